"""SIGTERM during a write: the temp files go, a history row written ahead of its replace is taken
back, and the process still ends as SIGTERM ends it. Temp files of a killed writer (SIGKILL: no
cleanup possible) are swept by the next write in that folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from oo_nb.format.document import Document
from oo_nb.store.stale import sweep_temp_files
from oo_nb.store.store import history_dir, read_history, write_document
from tests.conftest import corpus_file

# A writer that stops inside the fsync of the file it is writing (the snapshot's or the
# document's temp file) and says so on stdout: the parent then sends SIGTERM.
CHILD = r"""
import os, sys, time
from pathlib import Path
from oo_nb.format.document import Document
from oo_nb.store.store import write_document

path, stop_in = Path(sys.argv[1]), sys.argv[2]
real_fsync = os.fsync

def fsync(fd):
    name = os.readlink(f"/proc/self/fd/{fd}")
    if name.endswith(".tmp") and stop_in in os.path.basename(name):
        print("stopped", name, flush=True)
        time.sleep(60)
    real_fsync(fd)

os.fsync = fsync
doc = Document.read(path).edit_block("oo-manifest", lambda m: m.update(version=42))
write_document(doc, expected=path.read_bytes(), action="killed write")
print("not stopped", flush=True)
"""


def _temp_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.parametrize("stop_in", [".snap.", ".o-o.html."])
def test_sigterm_mid_write_leaves_no_temp_file_and_no_row(tmp_path: Path, stop_in: str) -> None:
    path = corpus_file("yc-w26-batch.o-o.html", tmp_path)
    before = path.read_bytes()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), stop_in], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.startswith("stopped"), line
    assert len(_temp_files(tmp_path)) == 1  # the temp file is there while it writes
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=30) == -signal.SIGTERM  # it still ends as SIGTERM ends it
    assert _temp_files(tmp_path) == []
    assert path.read_bytes() == before
    assert [e.action for e in read_history(path)] == ["current"]  # no row for the lost write
    assert not list((history_dir(path) / "snapshots").iterdir())


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_the_next_write_sweeps_stale_temp_files(tmp_path: Path) -> None:
    path = corpus_file("yc-w26-batch.o-o.html", tmp_path)
    snapshots = history_dir(path) / "snapshots"
    snapshots.mkdir(parents=True)
    dead, live = _dead_pid(), os.getppid()  # the pytest runner's parent runs
    stale = [
        tmp_path / f".yc-w26-batch.o-o.html.{dead}.1.tmp",
        tmp_path / f".other.o-o.html.{dead}.2.tmp",  # another document's: also dead
        snapshots / f".00001-v1.snap.{dead}.3.tmp",
        history_dir(path) / f".pending.json.{dead}.4.tmp",
        tmp_path / f".old.o-o.html.{live}.5.tmp",  # a live PID, but two hours old (PID reuse)
    ]
    kept = [
        tmp_path / f".busy.o-o.html.{live}.6.tmp",  # another document's write in progress
        tmp_path / f".notes.txt.{dead}.7.tmp",  # not a document's temp file: not ours to judge
    ]
    for p in stale + kept:
        p.write_bytes(b"a whole copy")
    hours_ago = time.time() - 7200
    os.utime(stale[-1], (hours_ago, hours_ago))
    doc = Document.read(path).edit_block("oo-manifest", lambda m: m.update(version=3))
    write_document(doc, expected=path.read_bytes(), action="next run")
    assert [p for p in stale if p.exists()] == []
    assert all(p.exists() for p in kept)


def test_sweep_leaves_folders_and_missing_places_alone(tmp_path: Path) -> None:
    (tmp_path / f".x.o-o.html.{_dead_pid()}.1.tmp").mkdir()
    assert sweep_temp_files(tmp_path) == [] and sweep_temp_files(tmp_path / "nope") == []
