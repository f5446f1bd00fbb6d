"""Disk full during a write: the document is unchanged, the error says so, and the history
holds no "replaced by" row (nor a snapshot) for the write that failed."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.store import history, store
from oo_nb.store.store import history_dir, read_history, write_document
from tests.conftest import corpus_file


def _full(*_: Any, **__: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _bumped(path: Path, version: int) -> Document:
    return Document.read(path).edit_block("oo-manifest", lambda m: m.update(version=version))


@pytest.fixture
def doc_path(tmp_path: Path) -> Path:
    path = corpus_file("yc-w26-batch.o-o.html", tmp_path)
    write_document(_bumped(path, 7), expected=path.read_bytes(), action="first")  # one row
    return path


def _state(path: Path) -> tuple[bytes, bytes, list[str]]:
    folder = history_dir(path)
    return (
        path.read_bytes(),
        (folder / "log.jsonl").read_bytes(),
        sorted(p.name for p in (folder / "snapshots").iterdir()),
    )


@pytest.mark.parametrize("where", ["replace", "snapshot", "log row"])
def test_a_failed_write_leaves_no_replaced_row(
    doc_path: Path, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _state(doc_path)
    if where == "replace":  # the document's own atomic write; snapshots still go through
        real = store.atomic_write_bytes

        def replace(path: Path, data: bytes, **kw: Any) -> None:
            if path == doc_path:
                _full()
            real(path, data, **kw)

        monkeypatch.setattr(store, "atomic_write_bytes", replace)
    elif where == "snapshot":
        monkeypatch.setattr(history, "atomic_write_bytes", _full)
    else:  # the row is written, its fsync fails: no half row, no row at all
        real_fsync = os.fsync
        log = history_dir(doc_path) / "log.jsonl"

        def fsync(fd: int) -> None:
            if os.path.samestat(os.fstat(fd), log.stat()):
                _full()
            real_fsync(fd)

        monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OOError) as caught:
        write_document(_bumped(doc_path, 8), expected=doc_path.read_bytes(), action="update")
    assert "no space left" in str(caught.value).lower() or "No space" in str(caught.value)
    assert "the document is unchanged" in str(caught.value)
    monkeypatch.undo()
    assert _state(doc_path) == before
    entries = read_history(doc_path)
    assert [e.action for e in entries] == ["first", "current"]
    # and the next write (disk freed) numbers its row as if nothing had happened
    write_document(_bumped(doc_path, 8), expected=doc_path.read_bytes(), action="update")
    assert [(e.seq, e.action) for e in read_history(doc_path)] == [
        (1, "first"),
        (2, "update"),
        (3, "current"),
    ]
