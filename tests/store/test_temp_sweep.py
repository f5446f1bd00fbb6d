"""Sweeping the temp files of dead writers touches only what is certainly dead: a temp file of a
running writer (ours or another user's) stays, the writer is not disturbed (no signal is sent),
and names that are not ``.NAME.PID.NS.tmp`` are left alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from oo_nb.format.document import Document
from oo_nb.store import store

DOC = "yc-w26-batch.o-o.html"


def _update(p: Path) -> None:
    doc = Document.read(p)
    v = doc.manifest.version + 1
    store.write_document(
        doc.edit_block("oo-manifest", lambda m: m.update(version=v)),
        expected=p.read_bytes(),
        action="t",
    )


def test_a_running_writers_temp_file_stays_and_the_writer_is_not_signalled(
    corpus_copy: Path,
) -> None:
    p = corpus_copy / DOC
    writer = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        busy = p.parent / f".{p.name}.{writer.pid}.123.tmp"
        busy.write_bytes(b"half written")
        _update(p)
        assert busy.exists()
        assert writer.poll() is None  # still running: probing it did not kill it
    finally:
        assert writer.stdin is not None
        writer.stdin.close()
        writer.wait(10)
    assert writer.returncode == 0


def test_a_temp_file_of_another_users_running_writer_stays(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``kill(pid, 0)`` on another user's process fails with EPERM: it is alive."""
    p = corpus_copy / DOC
    other = p.parent / f".{p.name}.999999.123.tmp"
    other.write_bytes(b"half written")

    def kill(pid: int, sig: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(store.os, "kill", kill)
    _update(p)
    assert other.exists()


def test_files_that_only_look_like_temp_files_are_left_alone(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    odd = [p.parent / f".{p.name}.{name}.tmp" for name in ("notes", "12a", "")]
    for f in odd:
        f.write_bytes(b"mine")
    _update(p)
    _update(p)
    assert all(f.exists() for f in odd)
    assert os.path.exists(p)
