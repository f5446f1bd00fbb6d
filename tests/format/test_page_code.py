"""``oo check`` reports page code (shell header, markup, stylesheets, scripts, shell after the
heredoc) that matches neither a known original o-o page nor this version's templates, and stays
quiet on the corpus, on pages ``oo new`` makes and on pages ``oo sync`` migrated or updated."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.edit.sync import migrate_early, sync_document
from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from oo_nb.format.known_page_code import KNOWN_PAGE_CODE
from oo_nb.format.legacy_script import has_our_script
from oo_nb.format.page_code import code_regions, unknown_regions
from tests.conftest import CORPUS
from tests.support.page_edits import PAGE_EDITS, edit_page

PAGES = sorted(p.name for p in CORPUS.glob("*.o-o.html"))
DOCS = [n for n in PAGES if n != "index.o-o.html"]


def _codes(path: Path) -> list[str]:
    return [f.code for f in check_path(path) if f.code == "unknown-page-code"]


@pytest.mark.parametrize("name", PAGES)
def test_untouched_corpus_pages_are_known(name: str) -> None:
    assert unknown_regions(Document.read(CORPUS / name)) == []
    assert _codes(CORPUS / name) == []


@pytest.mark.parametrize("name", PAGES)
def test_pages_oo_sync_leaves_are_known(name: str) -> None:
    doc = Document.read(CORPUS / name)
    migrated = migrate_early(doc) if doc.layout == "early" else doc
    synced, _, _ = sync_document(migrated, ("css", "js", "shell"), "body { color: teal; }\n")
    for version in (migrated, synced):
        assert unknown_regions(version) == [], [r.describe() for r in unknown_regions(version)]


def test_pages_oo_new_makes_are_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "Tidal power / costs", "--dir", str(tmp_path), "--no-update"]) == 0
    assert (
        main(["new", "A watch", "--sentinel", "it happens", "--dir", str(tmp_path), "--no-update"])
        == 0
    )
    assert main(["index", str(tmp_path)]) == 0
    capsys.readouterr()
    pages = sorted(tmp_path.glob("*.o-o.html"))
    assert len(pages) == 3
    for page in pages:
        assert unknown_regions(Document.read(page)) == [], page.name
        assert _codes(page) == []


def test_shipped_demo_documents_are_quiet() -> None:
    folder = Path(__file__).resolve().parents[2] / "oo_nb" / "demo" / "data" / "documents"
    for page in sorted(folder.glob("*.o-o.html")):
        assert _codes(page) == [], page.name


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("edit", sorted(PAGE_EDITS))
def test_a_changed_region_is_reported(name: str, edit: str, tmp_path: Path) -> None:
    path = tmp_path / name
    shutil.copyfile(CORPUS / name, path)
    region = edit_page(path, edit)
    found = [f for f in check_path(path) if f.code == "unknown-page-code"]
    assert found, f"{edit} on {name} not reported"
    # original pages: one info finding (oo_nb cannot know every o-o version); ours: warnings
    ours = has_our_script(Document.read(path))
    assert [f.severity for f in found] == (["warning"] * len(found) if ours else ["info"])
    assert any(region in f.message for f in found), [f.message for f in found]
    assert "line " in found[0].message


def test_an_index_pages_shell_is_checked_too(tmp_path: Path) -> None:
    path = tmp_path / "index.o-o.html"
    shutil.copyfile(CORPUS / "index.o-o.html", path)
    assert _codes(path) == []
    assert "the shell after the heredoc" in edit_page(path, "shell-after-heredoc")
    assert _codes(path) == ["unknown-page-code"]


def test_a_users_stylesheet_is_data_but_a_script_beside_it_is_code() -> None:
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    synced, _, _ = sync_document(doc, ("css",), "article { max-width: 40em; }\n")
    assert "OO:CUSTOM:START" in synced.text and unknown_regions(synced) == []
    hostile = synced.text.replace(
        "<!-- OO:CUSTOM:END -->", "<script>alert(1)</script>\n<!-- OO:CUSTOM:END -->"
    )
    # the block is no longer only a stylesheet: all of it is page code again
    assert {r.kind for r in unknown_regions(Document(hostile))} == {"page script", "stylesheet"}


def test_regions_ignore_line_endings_header_comments_and_page_text() -> None:
    doc = Document.read(CORPUS / "anthropic-leadership.o-o.html")
    renamed = doc.text.replace("this_file.o-o.html", "renamed.o-o.html")
    retitled = renamed.replace(
        '<h1 id="doc-title">Anthropic Leadership Team</h1>', '<h1 id="doc-title">Other</h1>'
    )
    spaced = retitled.replace("exit 1\n", "exit 1   \n")
    assert unknown_regions(Document(spaced)) == []


def test_a_json_block_that_could_run_is_page_code() -> None:
    doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")
    text = doc.text.replace(
        '<script id="oo-changelog" type="application/json">', '<script id="oo-changelog">', 1
    )
    assert [r.kind for r in unknown_regions(Document(text))] == ["page markup"]


def test_the_fingerprints_cover_the_corpus() -> None:
    """``python -m tools.page_fingerprints`` has been run on the corpus: its regions (those no
    template has) are all in the stored set."""
    from tools.page_fingerprints import fingerprints

    assert set(fingerprints(sorted(CORPUS.glob("*.o-o.html")))) <= KNOWN_PAGE_CODE


def test_every_region_kind_is_seen_in_the_corpus() -> None:
    kinds = {r.kind for n in DOCS for r in code_regions(Document.read(CORPUS / n))}
    assert kinds == {
        "shell header",
        "page markup",
        "stylesheet",
        "page script",
        "shell",
        "shell section",
    }


SHIPPED = Path(__file__).resolve().parents[1] / "fixtures" / "shipped"


@pytest.mark.parametrize("page", sorted(SHIPPED.glob("*/*.o-o.html")), ids=lambda p: p.name)
def test_pages_an_earlier_release_wrote_stay_known(page: Path) -> None:
    """A document and index as oo_nb 0.1.0 wrote them (before the shell ran Python with -P):
    a template change keeps the shipped shell known (``tools.page_fingerprints --shipped``)."""
    assert unknown_regions(Document.read(page)) == []
    assert _codes(page) == []


def test_markup_in_the_shell_headers_comment_lines_is_page_code() -> None:
    # bash skips a comment line; a browser reads the header as the page's first markup
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    for line in ("# <script>alert(1)</script>\n", "# <img src=x onerror=alert(1)>\n"):
        hostile = Document(doc.text.replace("\n: << ", "\n" + line + ": << ", 1))
        assert [r.kind for r in unknown_regions(hostile)] == ["shell header"]
    plain = Document(doc.text.replace("\n: << ", "\n# a < b & c\n: << ", 1))
    assert unknown_regions(plain) == []


def test_a_users_stylesheet_with_a_handler_is_code() -> None:
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    synced, _, _ = sync_document(doc, ("css",), "article { max-width: 40em; }\n")
    hostile = synced.text.replace(
        "<!-- OO:CUSTOM:START -->\n<style>", "<!-- OO:CUSTOM:START -->\n<style onload=alert(1)>"
    )
    assert hostile != synced.text and unknown_regions(Document(hostile)) != []
