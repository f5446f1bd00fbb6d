"""Every state oo writes is a seq `oo rollback` gives back byte for byte, also once the file was
changed outside oo (an editor, `git checkout`, a backup restored, a sync tool): history used to
keep each file only before a write, so the state a paid update wrote was then gone ("no
version 2 in history")."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.format.document import Document
from oo_nb.store import store
from oo_nb.store.history import CHANGED_OUTSIDE

DOC = "agi-declared.o-o.html"


def _update(p: Path, words: str) -> bytes:
    """A write through the store that raises the version (as an update does); its bytes."""
    doc = Document.read(p)
    version = doc.manifest.version
    edited = doc.text.replace(f'"version": {version}', f'"version": {version + 1}', 1)
    edited = edited.replace("</h1>", f" {words}</h1>", 1)
    assert edited != doc.text
    store.write_document(Document(edited, path=p), expected=p.read_bytes(), action="update")
    return p.read_bytes()


@pytest.fixture
def updated(corpus_copy: Path) -> tuple[Path, bytes, bytes]:
    p = corpus_copy / DOC
    before = p.read_bytes()
    return p, before, _update(p, "two")


def test_an_update_changed_outside_oo_is_kept_and_rolled_back_byte_for_byte(
    updated: tuple[Path, bytes, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    p, v1, v2 = updated
    version = Document.parse(v2).manifest.version
    p.write_bytes(v1 + b"<!-- an editor touched it -->\n")  # the update's result is gone
    hist = store.read_history(p)
    assert [e.action for e in hist] == ["update", CHANGED_OUTSIDE, "current"]
    assert store.seq_bytes(p, 2) == v2 and hist[1].version == version
    capsys.readouterr()
    assert main(["history", str(p)]) == 0
    said = capsys.readouterr().out
    assert f"replaced by {CHANGED_OUTSIDE}" in said and "seq 2 is what oo last wrote" in said
    assert main(["rollback", str(p), "--to", str(version)]) == 0
    assert p.read_bytes() == v2
    # the seqs stay as listed: the written state is now a row of its own, and so is the edit
    hist = store.read_history(p)
    assert [(e.seq, e.action) for e in hist] == [
        (1, "update"),
        (2, CHANGED_OUTSIDE),
        (3, f"rollback to v{version}"),
        (4, "current"),
    ]
    assert store.seq_bytes(p, 3) == v1 + b"<!-- an editor touched it -->\n"


def test_a_file_unchanged_since_oo_wrote_it_lists_no_extra_state(
    updated: tuple[Path, bytes, bytes],
) -> None:
    p, _, v2 = updated
    v3 = _update(p, "three")
    assert [e.action for e in store.read_history(p)] == ["update", "update", "current"]
    assert store.seq_bytes(p, 2) == v2 and store.seq_bytes(p, 3) == v3
    # one copy of the written state per document, however many writes
    snaps = sorted(f.name for f in (store.history_dir(p) / "snapshots").iterdir())
    assert len(snaps) == 3 and "last-written.snap" in snaps


def test_the_last_written_state_of_a_deleted_document_comes_back(
    updated: tuple[Path, bytes, bytes],
) -> None:
    p, _, v2 = updated
    p.unlink()
    hist = store.read_history(p)
    assert [e.action for e in hist] == ["update", CHANGED_OUTSIDE]
    store.rollback(p, seq=2)
    assert p.read_bytes() == v2


def test_a_contract_edit_survives_a_truncated_file(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    assert main(["contract", str(p), "--set", "tone", "dry"]) == 0
    assert main(["contract", str(p), "--set", "tone", "warm"]) == 0
    second = p.read_bytes()
    p.write_bytes(second[:100])
    seqs = [e.seq for e in store.read_history(p) if e.action == CHANGED_OUTSIDE]
    assert len(seqs) == 1 and store.seq_bytes(p, seqs[0]) == second


def test_a_new_documents_first_state_is_kept(tmp_path: Path) -> None:
    assert main(["new", "Tides", "--dir", str(tmp_path), "--no-update"]) == 0
    p = tmp_path / "tides.o-o.html"
    created = p.read_bytes()
    p.write_bytes(b"overwritten by a sync tool")
    assert store.seq_bytes(p, 1) == created
