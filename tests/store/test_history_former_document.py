"""A document deleted, then a new one made under its name (`oo new` with the same title): the
history of the name goes on, but the deleted document's states are a former document's.
Regression (s35 attack 2, row 11 b): they were listed as the new document's own (one called
"what oo last wrote before the file was changed outside oo"), and `oo rollback DOC --to V` of
the new document restored the deleted one."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.errors import FormatError, NotFound, OOError
from oo_nb.library.changes import document_changes
from oo_nb.store import store
from oo_nb.store.history import CHANGED_OUTSIDE
from tests.conftest import CORPUS

TITLE = "Tides"


def _new(folder: Path) -> Path:
    assert main(["new", TITLE, "--dir", str(folder), "--no-update"]) == 0
    return folder / "tides.o-o.html"


@pytest.fixture
def reused(tmp_path: Path) -> tuple[Path, bytes]:
    """`oo new`, a contract edit (seq 1 keeps the stub), the file deleted, `oo new` again (the
    same stub's bytes: seq 1's). Returns the path and the deleted document's last bytes."""
    p = _new(tmp_path)
    assert main(["contract", str(p), "--set", "tone", "dry"]) == 0
    deleted = p.read_bytes()
    p.unlink()
    assert _new(tmp_path) == p
    return p, deleted


@pytest.fixture
def researched(tmp_path: Path) -> tuple[Path, int]:
    """A researched document (facts, sources, sections, version > 0) edited once, deleted, and
    a stub (version 0) made under its name. Returns the path and the deleted one's version."""
    p = tmp_path / "agi-declared.o-o.html"
    shutil.copyfile(CORPUS / p.name, p)
    assert main(["contract", str(p), "--set", "tone", "dry"]) == 0
    version = store.read_history(p)[-1].version
    p.unlink()
    assert main(["new", "AGI Declared", "--dir", str(tmp_path), "--no-update"]) == 0
    assert isinstance(version, int) and version > 0
    return p, version


def test_the_deleted_documents_states_are_a_former_documents(reused: tuple[Path, bytes]) -> None:
    p, deleted = reused
    hist = store.read_history(p)
    assert [(e.seq, e.action, e.document, e.former) for e in hist] == [
        (1, "contract edit", 1, True),
        (2, CHANGED_OUTSIDE, 1, True),
        (3, "current", 2, False),
    ]
    assert store.seq_bytes(p, 2) == deleted  # kept, by its seq


def test_a_rollback_by_version_never_picks_a_former_documents_state(
    reused: tuple[Path, bytes],
) -> None:
    p, deleted = reused
    now = p.read_bytes()
    done = store.restore(p, 0)  # the new document is at version 0: nothing to restore
    assert done.written is False and done.pick.entry.seq == 3 and p.read_bytes() == now
    # by seq, the deleted document comes back (the new one is kept in history)
    assert store.restore(p, seq=2).written and p.read_bytes() == deleted
    assert store.read_history(p)[-2].former is False  # the replaced new document is not former


def test_a_version_only_a_former_document_has_is_named_with_its_seqs(
    researched: tuple[Path, int],
) -> None:
    p, version = researched
    now = p.read_bytes()
    with pytest.raises(
        NotFound, match=rf"no version {version} in history \(known: 0; seq 1, 2 of a former"
    ):
        store.restore(p, version)
    assert p.read_bytes() == now
    assert store.restore(p, seq=2).written  # by seq it comes back


def test_oo_history_lists_them_as_a_former_documents(
    reused: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    p, _ = reused
    capsys.readouterr()
    assert main(["history", str(p)]) == 0
    said = capsys.readouterr().out
    assert said.count("[former document]") == 2
    assert "seq 1-2: a former document at this name" in said and "--seq N` restores one" in said
    assert "what oo last wrote" not in said  # not the new document's own state
    assert "version 0 is carried by" not in said  # `--to 0` has one state to choose
    # the notebook's frame says so too
    from oo_nb.api.history import history_frame

    states = history_frame(store.read_history(p))["state"].tolist()
    assert [s.endswith("(former document)") for s in states] == [True, True, False]


def test_no_change_is_reported_between_two_documents(researched: tuple[Path, int]) -> None:
    """`oo changes` once reported the new stub as every fact and source of the deleted
    document removed (the contract edit before is no change it reports)."""
    p, _ = researched
    assert document_changes(p) == []
    assert [e.former for e in store.read_history(p)] == [True, True, False]


def test_a_deleted_document_that_comes_back_is_the_same_document(tmp_path: Path) -> None:
    p = _new(tmp_path)
    assert main(["contract", str(p), "--set", "tone", "dry"]) == 0
    p.unlink()
    store.restore(p, seq=2)
    assert not any(e.former for e in store.read_history(p))
    assert not (store.history_dir(p) / "former.json").exists()


def test_a_new_document_with_no_history_before_it_marks_nothing(tmp_path: Path) -> None:
    p = _new(tmp_path)
    assert not (store.history_dir(p) / "former.json").exists()
    assert [e.former for e in store.read_history(p)] == [False]


def test_a_name_taken_twice_numbers_its_documents(reused: tuple[Path, bytes]) -> None:
    p, _ = reused
    assert main(["contract", str(p), "--set", "tone", "warm"]) == 0
    p.unlink()
    _new(p.parent)
    hist = store.read_history(p)
    assert [(e.document, e.former) for e in hist] == [
        (1, True),
        (1, True),
        (2, True),
        (2, True),
        (3, False),
    ]


def test_a_creation_that_fails_takes_its_mark_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = _new(tmp_path)
    assert main(["contract", str(p), "--set", "tone", "dry"]) == 0
    p.unlink()

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "atomic_write_bytes", full)
    with pytest.raises(OOError, match="No space left"):
        _write_new(p)
    assert not p.exists() and not (store.history_dir(p) / "former.json").exists()


def _write_new(p: Path) -> None:
    from oo_nb.edit.new import NewSpec, create_document

    create_document(NewSpec(title=TITLE), p.parent)


@pytest.mark.parametrize(
    "content", [b"not json", b'{"former_documents_end_at_seq": [true]}', b"[2]"]
)
def test_a_damaged_former_file_is_an_error_naming_it(
    reused: tuple[Path, bytes], content: bytes
) -> None:
    p, _ = reused
    file = store.history_dir(p) / "former.json"
    file.write_bytes(content)
    with pytest.raises(FormatError, match="history file is damaged") as info:
        store.read_history(p)
    assert info.value.file == str(file)


def test_a_former_end_past_the_log_is_damaged_naming_the_file(
    reused: tuple[Path, bytes],
) -> None:
    """s36 attack H3: an end past the log (from elsewhere, or a bad write) made the user's own
    later states a former document's, and `--to` refused them."""
    p, _ = reused
    last = store.read_history(p)[-2].seq  # (the last entry is the current file)
    file = store.history_dir(p) / "former.json"
    file.write_bytes(b'{"former_documents_end_at_seq": [1, 99]}')
    with pytest.raises(FormatError, match=rf"seq 99, past the log's last \({last}\)") as info:
        store.read_history(p)
    assert info.value.file == str(file)


def test_a_former_file_that_is_a_link_is_refused(
    reused: tuple[Path, bytes], tmp_path: Path
) -> None:
    p, _ = reused
    file = store.history_dir(p) / "former.json"
    outside = tmp_path / "outside.json"
    outside.write_bytes(json.dumps({"former_documents_end_at_seq": []}).encode())
    file.unlink()
    os.symlink(outside, file)
    with pytest.raises(OOError, match=r"former\.json is a symbolic link"):
        store.read_history(p)
