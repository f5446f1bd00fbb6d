"""A library cloned from someone else may hold links in its history folders: the store never
writes through them. Regression: ``research.lock`` (and ``lock``) linked to a file elsewhere was
truncated and overwritten by every update; a linked ``.oo-history`` got snapshots and logs."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.store import store
from oo_nb.store.research_claim import RESEARCH_LOCK, claim_research
from tests.conftest import CORPUS

VICTIM = b"my important notes\n"
NAME = "yc-w26-batch.o-o.html"


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    (tmp_path / "lib").mkdir()
    doc = tmp_path / "lib" / NAME
    shutil.copyfile(CORPUS / NAME, doc)
    doc.chmod(0o644)
    return doc


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    file = tmp_path / "elsewhere" / "important.txt"
    file.parent.mkdir()
    file.write_bytes(VICTIM)
    return file


def _write(doc: Path) -> None:
    old = doc.read_bytes()
    new = Document.read(doc).edit_block("oo-manifest", lambda m: m.update(version=2))
    store.write_document(new, expected=old, action="update")


def _claim(doc: Path) -> None:
    claim = claim_research(doc)
    assert not isinstance(claim, str)
    claim.release()


ACTIONS: dict[str, Callable[[Path], None]] = {"claim research": _claim, "write": _write}


def _outside_untouched(victim: Path) -> None:
    assert victim.read_bytes() == VICTIM
    assert sorted(p.name for p in victim.parent.iterdir()) == [victim.name]


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("lock", [RESEARCH_LOCK, "lock"])
def test_a_linked_lock_file_is_refused_naming_it(
    lib: Path, victim: Path, lock: str, action: str
) -> None:
    folder = lib.parent / ".oo-history" / NAME
    folder.mkdir(parents=True)
    (folder / lock).symlink_to(victim)
    before = lib.read_bytes()
    if action == "claim research" and lock == "lock":
        _claim(lib)  # the research lock is not the write lock: nothing of the link is used
    elif action == "write" and lock == RESEARCH_LOCK:
        _write(lib)
    else:
        with pytest.raises(OOError, match=re.escape(f"{folder / lock} is a symbolic link; ")):
            ACTIONS[action](lib)
        assert lib.read_bytes() == before
    _outside_untouched(victim)


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("linked", [".oo-history", f".oo-history/{NAME}"])
def test_a_linked_history_folder_is_refused_naming_it(
    lib: Path, victim: Path, linked: str, action: str
) -> None:
    link = lib.parent / linked
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(victim.parent, target_is_directory=True)
    before = lib.read_bytes()
    with pytest.raises(OOError, match=re.escape(f"{link} is a symbolic link; ")):
        ACTIONS[action](lib)
    assert lib.read_bytes() == before
    _outside_untouched(victim)


def test_a_dangling_linked_history_folder_is_not_made(lib: Path, tmp_path: Path) -> None:
    link = lib.parent / ".oo-history"
    link.symlink_to(tmp_path / "not-yet")
    with pytest.raises(OOError, match="is a symbolic link"):
        _claim(lib)
    assert not (tmp_path / "not-yet").exists()


def test_linked_snapshots_folder_and_log_are_refused(lib: Path, victim: Path) -> None:
    folder = lib.parent / ".oo-history" / NAME
    folder.mkdir(parents=True)
    (folder / "snapshots").symlink_to(victim.parent, target_is_directory=True)
    before = lib.read_bytes()
    with pytest.raises(OOError, match=re.escape(f"{folder / 'snapshots'} is a symbolic link; ")):
        _write(lib)
    (folder / "snapshots").unlink()
    (folder / "log.jsonl").symlink_to(victim)
    victim.write_bytes(b"")  # an empty log reads as no history: only the append could write
    with pytest.raises(OOError, match=re.escape(f"{folder / 'log.jsonl'} is a symbolic link; ")):
        _write(lib)
    assert lib.read_bytes() == before and victim.read_bytes() == b""
    # refused as the log is read, before any snapshot is taken (or, then, the snapshot went)
    assert not any((folder / "snapshots").glob("*"))


def test_a_lock_that_is_not_a_plain_file_is_refused(lib: Path) -> None:
    folder = lib.parent / ".oo-history" / NAME
    (folder / RESEARCH_LOCK).mkdir(parents=True)
    with pytest.raises(OOError, match=r"research\.lock is not a regular file"):
        _claim(lib)


def test_a_history_folder_that_is_a_file_is_refused(lib: Path) -> None:
    (lib.parent / ".oo-history").write_text("not a folder")
    with pytest.raises(OOError, match=r"\.oo-history is not a folder"):
        _claim(lib)


# ------------------------------------------------------------------ history_place itself
def test_a_linked_document_keeps_its_history_next_to_the_real_file(
    lib: Path, tmp_path: Path
) -> None:
    from oo_nb.store.history_place import check_history_folder, history_folder

    alias = tmp_path / "alias.o-o.html"
    alias.symlink_to(lib)
    folder = history_folder(alias, "snapshots")
    assert folder == lib.parent / ".oo-history" / NAME / "snapshots"
    check_history_folder(alias)  # the real file's folders: fine
    shutil.rmtree(lib.parent / ".oo-history")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (lib.parent / ".oo-history").symlink_to(elsewhere)
    with pytest.raises(OOError, match="is a symbolic link") as info:
        check_history_folder(alias)
    assert info.value.file == str(lib)  # the document, as the error names it


@pytest.mark.parametrize("kind", ["link", "file"])
def test_a_refusal_names_the_document(lib: Path, tmp_path: Path, kind: str) -> None:
    from oo_nb.store.history_place import check_history_folder, history_folder

    history = lib.parent / ".oo-history"
    if kind == "link":
        history.symlink_to(tmp_path)
    else:
        history.write_text("not a folder")
    for check in (history_folder, check_history_folder):
        with pytest.raises(
            OOError, match="is a symbolic link" if kind == "link" else "not a folder"
        ) as info:
            check(lib)
        assert info.value.file == str(lib)


def test_folders_and_lock_files_get_the_usual_modes_and_stay_out_of_child_processes(
    lib: Path,
) -> None:
    import fcntl
    import os
    import stat

    from oo_nb.store.history_place import history_folder, open_plain_file

    umask = os.umask(0o022)
    try:
        folder = history_folder(lib, "snapshots")
        fd = open_plain_file(folder.parent / "research.lock", os.O_RDWR | os.O_CREAT)
    finally:
        os.umask(umask)
    try:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755
        assert stat.S_IMODE(os.fstat(fd).st_mode) == 0o644
        assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
        assert os.get_blocking(fd) is not False  # blocking again once opened
    finally:
        os.close(fd)


def test_a_fifo_where_a_lock_should_be_is_refused_without_hanging_or_leaking(lib: Path) -> None:
    import os

    from oo_nb.store.history_place import history_folder, open_plain_file

    lock = history_folder(lib) / "research.lock"
    os.mkfifo(lock)
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(OOError, match=re.escape(f"{lock} is not a regular file")):
        open_plain_file(lock, os.O_RDWR | os.O_CREAT)
    assert len(os.listdir("/proc/self/fd")) == before  # the fd opened to look at it is closed


@pytest.mark.parametrize("linked", ["log.jsonl", ".oo-history"])
def test_a_linked_log_is_not_read(lib: Path, tmp_path: Path, linked: str) -> None:
    """Reading the log is held to the library as writing it is: a log (or the folder above it)
    that is a link to one elsewhere was followed, its rows listed as this document's history."""
    from oo_nb.errors import FormatError
    from oo_nb.store.history import read_history

    _write(lib)  # a real history: one snapshot and its log row
    history = lib.parent / ".oo-history"
    assert len(read_history(lib)) == 2
    moved = tmp_path / "elsewhere"
    if linked == "log.jsonl":
        moved.mkdir()
        (history / NAME / "log.jsonl").rename(moved / "log.jsonl")
        (history / NAME / "log.jsonl").symlink_to(moved / "log.jsonl")
        named = history / NAME / "log.jsonl"
    else:
        history.rename(moved)
        history.symlink_to(moved, target_is_directory=True)
        named = history
    with pytest.raises(FormatError, match=re.escape(f"{named} is a symbolic link; ")) as info:
        read_history(lib)
    assert info.value.file == str(history / NAME / "log.jsonl")
