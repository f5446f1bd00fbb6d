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
    assert list((folder / "snapshots").iterdir()) == []  # the snapshot went again


def test_a_lock_that_is_not_a_plain_file_is_refused(lib: Path) -> None:
    folder = lib.parent / ".oo-history" / NAME
    (folder / RESEARCH_LOCK).mkdir(parents=True)
    with pytest.raises(OOError, match=r"research\.lock is not a regular file"):
        _claim(lib)


def test_a_history_folder_that_is_a_file_is_refused(lib: Path) -> None:
    (lib.parent / ".oo-history").write_text("not a folder")
    with pytest.raises(OOError, match=r"\.oo-history is not a folder"):
        _claim(lib)
