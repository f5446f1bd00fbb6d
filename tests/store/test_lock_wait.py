"""The document lock: a second writer waits for the first, takes the lock promptly once it is
free, gives up after its own timeout naming who holds it, and never names a writer that has
finished. A fake clock makes the waiting deterministic (flock conflicts between two opens of the
lock file even inside one process, so no second process is needed)."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oo_nb.errors import LockedError
from oo_nb.format.document import Document
from oo_nb.format.names import LOCK_NAME
from oo_nb.store import store

DOC = "yc-w26-batch.o-o.html"


class FakeTime:
    """``time`` for the store: ``sleep`` advances ``monotonic`` and may act at a given moment."""

    def __init__(self, at: Callable[[float], None] = lambda now: None) -> None:
        self.now = 1000.0
        self.start = self.now
        self._at = at

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self._at(self.now - self.start)

    @property
    def waited(self) -> float:
        return self.now - self.start


@contextlib.contextmanager
def held(path: Path, action: str) -> Iterator[contextlib.ExitStack]:
    """The document's lock, held until the stack closes (or the block ends)."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(store.document_lock(path, action))
        yield stack


def _bumped(p: Path) -> Document:
    return Document.read(p).edit_block("oo-manifest", lambda m: m.update(version=2))


def test_a_waiting_writer_takes_the_lock_as_soon_as_the_holder_lets_go(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = corpus_copy / DOC
    before = p.read_bytes()
    with held(p, "first writer") as holder:
        clock = FakeTime(at=lambda waited: holder.close() if waited >= 0.5 else None)
        monkeypatch.setattr(store, "time", clock)
        store.write_document(_bumped(p), expected=before, action="second writer", timeout=3)
    assert Document.read(p).manifest.version == 2
    assert 0.5 <= clock.waited < 0.6  # taken within one short poll of the release


def test_a_writer_gives_up_after_its_timeout_naming_the_holder(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = corpus_copy / DOC
    before = p.read_bytes()
    with held(p, "oo update"):
        clock = FakeTime()
        monkeypatch.setattr(store, "time", clock)
        with pytest.raises(LockedError) as info:
            store.write_document(_bumped(p), expected=before, action="t", timeout=1.5)
    assert 1.5 <= clock.waited < 1.6  # its own timeout, not the default
    err = info.value
    assert err.file == str(p)
    assert f"locked by pid {os.getpid()} on " in err.message and "(oo update)" in err.message
    assert "waited 1.5 s" in err.message
    assert p.read_bytes() == before


def test_a_rollback_waits_only_as_long_as_its_timeout(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = corpus_copy / DOC
    store.write_document(_bumped(p), expected=p.read_bytes(), action="update")
    after = p.read_bytes()
    with held(p, "oo update"):
        clock = FakeTime()
        monkeypatch.setattr(store, "time", clock)
        with pytest.raises(LockedError):
            store.rollback(p, 1, timeout=0.5)
    assert 0.5 <= clock.waited < 0.6
    assert p.read_bytes() == after


def test_a_finished_writer_is_never_named_as_the_holder(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A holder that does not say who it is (another tool's flock) is "another process", not
    the oo writer that held the lock before it."""
    p = corpus_copy / DOC
    with store.document_lock(p, "earlier writer"):
        pass
    lock_file = store.history_dir(p) / LOCK_NAME
    fd = os.open(lock_file, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        monkeypatch.setattr(store, "time", FakeTime())
        with (
            pytest.raises(LockedError, match="locked by another process") as info,
            store.document_lock(p, "t", timeout=0.2),
        ):
            pass
        assert "earlier writer" not in info.value.message
    finally:
        os.close(fd)


def test_the_holder_named_is_the_current_one_not_a_killed_writer_before_it(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer killed while holding the lock leaves its (longer) line in the lock file; the next
    holder's line replaces it entirely."""
    p = corpus_copy / DOC
    lock_file = store.history_dir(p) / LOCK_NAME
    lock_file.parent.mkdir(parents=True)
    lock_file.write_text("pid 1 on a-very-long-host-name.example (a killed writer) since then")
    with held(p, "x"):
        monkeypatch.setattr(store, "time", FakeTime())
        with pytest.raises(LockedError) as info, store.document_lock(p, "t", timeout=0.2):
            pass
    assert "killed writer" not in info.value.message
    assert info.value.message.startswith(f"locked by pid {os.getpid()} on ")
    assert "(x) since " in info.value.message
