"""Reliability part 8 (attacks, round two): the pending attacks. Each row counts the breaks found.

Issue 17, item 2: a hand-written ``.oo-history/<doc>/pending.json`` was shown as one harmless
heading edit and written with a ``touch`` in the shell, ``<script>`` in the article and a budget
of 999. Over every corpus document and a page ``oo new`` made:

- every forgery of ``forged_pending`` (older candidate files: shell after and before the heredoc,
  page script, article script, budget, contract and manifest; a current proposal file with
  hostile HTML, a claimed budget and a hostile candidate beside it) is reviewed with
  ``oo review DOC --accept-all``; a break is anything hostile in the file afterwards or a file
  that ``bash DOC --help`` creates; an older-form forgery that was not refused is a break too;
- every hand edit of ``page_edits`` (shell, header, opener, scripts, stylesheet, markup, policy)
  on those pages and on index pages (the corpus's, one ``oo index`` made): a break is an edit
  ``oo check`` does not report as ``unknown-page-code``; an untouched page (as the corpus has
  it, as ``oo new``, ``oo index`` and ``oo sync`` make it) that it reports is a break too;
- a normal proposal saved for review as an update saves it: a break is a review that does not
  write exactly the candidate the update built.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

from tests.support.figures import Figure

__all__ = ["attacks"]

PART = "8 attack"
NEW = "oo-new"


def attacks(workdir: Path) -> list[Figure]:
    pages = _pages(workdir / "pages")
    return [
        *_forgeries(workdir / "forged", pages),
        *_page_code(workdir / "check", pages),
        _round_trips(workdir / "round", pages),
    ]


def _quiet_main(args: list[str]) -> tuple[int, str]:
    from oo_nb.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except Exception as exc:  # a crash is counted by what the file holds afterwards
            return -1, f"{type(exc).__name__}: {exc}"
    return code, out.getvalue() + err.getvalue()


def _pages(folder: Path) -> dict[str, Path]:
    """The corpus documents and a page ``oo new`` made, as sources to copy."""
    from tests.conftest import CORPUS, DOC_NAMES

    folder.mkdir(parents=True, exist_ok=True)
    pages = {}
    for name in DOC_NAMES:
        shutil.copyfile(CORPUS / name, folder / name)
        pages[name] = folder / name
    made = folder / "new"
    made.mkdir()
    code, _ = _quiet_main(["new", "Tidal power / costs", "--dir", str(made), "--no-update"])
    assert code == 0
    pages[NEW] = next(made.glob("*.o-o.html"))
    return pages


def _copy(source: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    shutil.copyfile(source, target)
    target.chmod(0o755)
    return target


# --------------------------------------------------------------------------- forged pending files
def _forgeries(workdir: Path, pages: dict[str, Path]) -> list[Figure]:
    from oo_nb.format.document import Document
    from tests.support.forged_pending import FORGERIES, bash_help_creates, forge, hostile_left

    trials = written = not_refused = ran = 0
    first = "none"
    for kind in FORGERIES:
        for label, source in pages.items():
            path = _copy(source, workdir / kind / label)
            original = Document.read(path)
            forge(path, kind)
            code, _ = _quiet_main(["review", str(path), "--accept-all"])
            trials += 1
            left = hostile_left(original, Document.read(path))
            touched = bash_help_creates(path)
            written += bool(left or touched)
            ran += touched
            if kind != "proposal" and (code != 2 or path.read_bytes() != original.to_bytes()):
                not_refused += 1
            if (left or touched) and first == "none":
                first = f"{kind} on {label}: {(left or ['bash --help ran the touch'])[0]}"
    return [
        Figure(
            PART, "forged pending files written (kind × doc)", trials, written, "0", written == 0
        ),
        Figure(PART, "… bash DOC --help ran the forged shell", trials, ran, "0", ran == 0),
        Figure(PART, "… first forgery written", written, first, "info", None),
        Figure(
            PART,
            "older-form forgeries not refused",
            trials - len(pages),
            not_refused,
            "0",
            not_refused == 0,
        ),
    ]


# --------------------------------------------------------------------------- oo check on page code
def _page_code(workdir: Path, pages: dict[str, Path]) -> list[Figure]:
    from oo_nb.edit.sync import migrate_early, sync_document
    from oo_nb.format.check import check_path
    from oo_nb.format.document import Document
    from tests.support.page_edits import PAGE_EDITS, edit_page

    def reported(path: Path) -> bool:
        return any(f.code == "unknown-page-code" for f in check_path(path))

    pages = {**pages, **_index_pages(workdir / "index", pages[NEW])}
    missed = trials = 0
    first = "none"
    for edit in PAGE_EDITS:
        for label, source in pages.items():
            path = _copy(source, workdir / edit / label)
            edit_page(path, edit)
            trials += 1
            if not reported(path):
                missed += 1
                first = first if first != "none" else f"{edit} on {label}"
    clean = flagged = 0
    for label, source in pages.items():
        doc = Document.read(source)
        migrated = migrate_early(doc) if doc.layout == "early" else doc
        synced, _, _ = sync_document(migrated, ("css", "js", "shell"), "p { color: teal; }\n")
        for n, version in enumerate(
            {doc.text: doc, migrated.text: migrated, synced.text: synced}.values()
        ):
            path = workdir / "clean" / f"{n}-{label}" / source.name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(version.to_bytes())
            clean += 1
            flagged += reported(path)
    return [
        Figure(PART, "forged page-code regions oo check misses", trials, missed, "0", missed == 0),
        Figure(PART, "… first region missed", missed, first, "info", None),
        Figure(
            PART,
            "untouched pages oo check flags (corpus, new, index, synced)",
            clean,
            flagged,
            "0",
            flagged == 0,
        ),
    ]


def _index_pages(folder: Path, made: Path) -> dict[str, Path]:
    """The corpus's original index page and one ``oo index`` renders (``bash index.o-o.html``
    runs its shell too)."""
    from tests.conftest import CORPUS

    _copy(made, folder)
    code, _ = _quiet_main(["index", str(folder)])
    assert code == 0
    original = _copy(CORPUS / "index.o-o.html", folder / "original")
    return {"index": original, "oo-index": folder / "index.o-o.html"}


# --------------------------------------------------------------------------- normal round trips
def _round_trips(workdir: Path, pages: dict[str, Path]) -> Figure:
    """A proposal saved as an update saves it (a section rewritten, a new source, a fact, a
    sentinel status), then ``oo review --accept-all``: the candidate must come back exactly
    (the loopback-mock version of this, SDK and images included, is in tests/agent)."""
    from oo_nb.agent.context import next_source_id
    from oo_nb.format.document import Document
    from tests.support.forged_pending import save_proposal

    broken = 0
    for label, source in pages.items():
        path = _copy(source, workdir / label)
        doc = Document.read(path)
        sid = next_source_id(doc)
        section = doc.article.sections[0].id if doc.article.sections else "overview"
        raw = {
            "summary": f"Revised with a new report [{sid}].",
            "sections": [
                {
                    "id": section,
                    "title": "Revised",
                    "html": f"<p>A new report says more [{sid}].</p>",
                }
            ],
            "sources": [
                {
                    "id": sid,
                    "url": "https://news.example.com/report",
                    "title": "Report",
                    "accessed": "2026-11-28",
                }
            ],
            "facts": [{"text": "More was said.", "source_ids": [sid]}],
            "sentinel": {"status": "not_occurred", "evidence": f"Nothing yet [{sid}]."},
        }
        built = save_proposal(path, raw)
        code, _ = _quiet_main(["review", str(path), "--accept-all"])
        broken += code != 0 or path.read_bytes() != built.to_bytes()
    return Figure(
        PART,
        "saved proposals a review does not write as built",
        len(pages),
        broken,
        "0",
        broken == 0,
    )
