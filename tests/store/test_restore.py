"""Rollback results: a deleted document comes back from history, a rollback that names one state
by version is recorded as such, and a rollback to the bytes already on disk reports exactly that
(``oo rollback`` prints these numbers)."""

from __future__ import annotations

from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.store import store
from oo_nb.store.history import CHANGED_OUTSIDE

DOC = "yc-w26-batch.o-o.html"


def _bump(p: Path, version: int) -> bytes:
    doc = Document.read(p).edit_block("oo-manifest", lambda m: m.update(version=version))
    store.write_document(doc, expected=p.read_bytes(), action=f"update to v{version}")
    return p.read_bytes()


def test_a_deleted_document_comes_back_from_history(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    v1 = p.read_bytes()
    for v in (2, 3, 4):
        _bump(p, v)
    v4 = p.read_bytes()
    p.unlink()
    # the last state oo wrote (v4) is kept too: replaced by the deletion, made outside oo
    hist = store.read_history(p)
    assert [e.seq for e in hist] == [1, 2, 3, 4] and hist[-1].action == CHANGED_OUTSIDE
    done = store.restore(p, 1)
    assert done.written is True and done.path == p and p.read_bytes() == v1
    # nothing was replaced: the restored file is the next entry `oo history` lists
    assert done.current_seq == store.read_history(p)[-1].seq == 5
    assert store.read_history(p)[-1].action == "current"
    assert store.seq_bytes(p, 4) == v4


def test_a_rollback_to_a_version_held_by_one_state_is_recorded_by_its_version(
    corpus_copy: Path,
) -> None:
    p = corpus_copy / DOC
    v1 = p.read_bytes()
    _bump(p, 2)
    done = store.restore(p, 1)
    assert done.written is True and done.path == p and p.read_bytes() == v1
    assert done.current_seq == 2 and done.pick.others == ()
    assert [e.action for e in store.read_history(p)] == [
        "update to v2",
        "rollback to v1",
        "current",
    ]


def test_a_rollback_to_the_bytes_on_disk_reports_the_current_seq(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    _bump(p, 2)
    v3 = _bump(p, 3)
    done = store.restore(p, seq=3)
    assert done.written is False and done.path == p and done.current_seq == 3
    assert done.pick.entry.seq == 3 and done.pick.data == v3
    assert store.rollback(p, 3) == p and p.read_bytes() == v3
    assert len(store.read_history(p)) == 3


def test_a_planted_snapshot_with_unknown_page_code_is_not_restored(tmp_path: Path) -> None:
    """Issue 28, item 2: a kept state whose shell adds a command (log row and hash made to
    match) is refused, naming the region, and nothing is written; asked for, it is restored."""
    from tests.support.attacks_code import PLANTED_LINE, plant_snapshot, rollback

    path = plant_snapshot(tmp_path / "lib")
    before = path.read_bytes()
    code, said = rollback(path)
    assert code != 0 and path.read_bytes() == before
    assert "not restored: seq 1" in said and "OO:SHELL section after the heredoc (line" in said
    assert "--allow-unknown-code" in said and path.name in said
    assert rollback(path, "--allow-unknown-code")[0] == 0
    assert PLANTED_LINE in path.read_text()


def test_a_rollback_keeps_code_the_file_already_has(corpus_copy: Path) -> None:
    """Unknown code the file already holds is not new: the rollback restores as before."""
    p = corpus_copy / DOC
    text = p.read_text().replace("</body>", "<script>window.mine = 1;</script>\n</body>", 1)
    p.write_text(text)
    _bump(p, 2)
    assert store.restore(p, seq=1).written
    assert p.read_text() == text


def test_a_deleted_document_brought_back_replaced_no_file(corpus_copy: Path) -> None:
    """s35 attack 2, row 11 (a): `oo rollback --seq 2` of a deleted document said "the previous
    file is kept in history as seq 3"; there was none (seq 3 was the file it had just written)."""
    from oo_nb.api.history import roll_back

    p = corpus_copy / DOC
    v2 = _bump(p, 2)
    p.unlink()
    by_seq = roll_back(p, seq=2)
    assert p.read_bytes() == v2 and by_seq.written and by_seq.previous_seq is None
    assert by_seq.message == f"{p}: restored seq 2 (version 2; there was no file to replace)"
    p.unlink()
    by_version = roll_back(p, 1)
    assert by_version.previous_seq is None
    assert by_version.message == f"{p}: restored version 1 (there was no file to replace)"
    # with a file in place, the replaced one is kept and named
    again = roll_back(p, seq=2)
    assert (
        again.previous_seq == 3 and "the previous file is kept in history as seq 3" in again.message
    )
