"""`oo new` under the file name of a deleted document whose proposal awaited review: the
proposal was made for that document, so the new one never inherits it (scheduled runs skipped
it as "awaiting review", and `oo review --force` wrote the old document's sections into it).
It is set aside, kept (it was paid for) and named."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from oo_nb.api.new import new_document
from oo_nb.cli.main import main
from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.store.proposals import awaiting_review, list_proposals
from oo_nb.store.store import history_dir


def _leftover(folder: Path, name: str) -> Path:
    """The pending proposal a deleted document ``name`` left in its history folder."""
    pending = history_dir(folder / name) / PENDING_PROPOSAL
    pending.parent.mkdir(parents=True)
    record = {"base_sha256": "0" * 64, "created": "2026-11-30T10:00:00+00:00", "run": {}}
    pending.write_text(json.dumps({**record, "proposal": {"sections": {}}}))
    return pending


def test_oo_new_sets_a_deleted_documents_proposal_aside_and_names_it(tmp_path: Path) -> None:
    leftover = _leftover(tmp_path, "tides.o-o.html")
    kept = leftover.read_bytes()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["new", "Tides", "--dir", str(tmp_path), "--no-update"])
    said = out.getvalue()
    doc = tmp_path / "tides.o-o.html"
    assert code == 0 and doc.is_file(), said
    assert awaiting_review(doc) is None  # the new document awaits nothing: runs research it
    aside = [p for p in list_proposals(doc) if not p.current]
    assert len(aside) == 1 and (history_dir(doc) / aside[0].name).read_bytes() == kept
    assert f"set aside as {history_dir(doc) / aside[0].name}" in said, said
    assert "oo review" in said and "--list" in said, said


def test_new_document_in_python_names_the_proposal_it_set_aside(tmp_path: Path) -> None:
    _leftover(tmp_path, "tides.o-o.html")
    made = new_document("Tides", tmp_path, update=False)
    assert made.set_aside is not None and made.set_aside.parent == history_dir(made.path)
    assert awaiting_review(made.path) is None


def test_a_name_that_is_taken_moves_no_proposal(tmp_path: Path) -> None:
    """The proposal of a document that still exists is its own: a refused `oo new` leaves it."""
    leftover = _leftover(tmp_path, "tides.o-o.html")
    (tmp_path / "tides.o-o.html").write_text("the document the proposal was made for")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["new", "Tides", "--dir", str(tmp_path), "--no-update"])
    assert code == 2 and "file already exists" in err.getvalue()
    assert leftover.is_file()
