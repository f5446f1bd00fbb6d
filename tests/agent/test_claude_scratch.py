"""The Claude Code backend's scratch folder: what Claude Code leaves in place of the copy is read
only when it is a regular file; the folder is removed on SIGTERM, and folders left by a killed
process are removed by the next run."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from oo_nb.agent.backends.claude_code import SCRATCH_PREFIX
from oo_nb.agent.run import UpdateOptions, prepare_update
from oo_nb.errors import AgentError
from oo_nb.store.stale import mark_scratch
from tests.support.agent_helpers import TODAY, copy_doc
from tests.support.fake_claude import FAKE_MODES, fake_claude_env, gone, wait_for_log

KINDS = {
    "fifo": "a FIFO",
    "device": "a character device",
    "socket": "a socket",
    "link": "a symbolic link",
    "folder": "a folder",
}


@contextlib.contextmanager
def _fifo_writer_after(folder: Path, seconds: float) -> Iterator[None]:
    """Were a FIFO read after all (the break this guards against), open it for writing after
    ``seconds``, so the read ends and the test fails instead of hanging."""
    stop = threading.Event()

    def unblock() -> None:
        if stop.wait(seconds):
            return
        for fifo in folder.rglob("*"):
            with contextlib.suppress(OSError):
                if stat.S_ISFIFO(fifo.lstat().st_mode):
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    watchdog = threading.Thread(target=unblock, daemon=True)
    watchdog.start()
    try:
        yield
    finally:
        stop.set()
        watchdog.join()


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temp folder the backend makes its scratch folders in, and the fake on PATH."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    for key, value in fake_claude_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    return folder


def _opts() -> UpdateOptions:
    return UpdateOptions(force=True, agent="claude-code", today=TODAY, download_images=False)


@pytest.mark.parametrize("mode", FAKE_MODES)
def test_anything_but_a_regular_file_is_refused_not_read(
    tmp_path: Path, scratch: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if mode == "device" and os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    monkeypatch.setenv("FAKE_CLAUDE_MODE", mode)
    doc = copy_doc(tmp_path / "lib")
    before = doc.read_bytes()
    with _fifo_writer_after(scratch, 10), pytest.raises(AgentError) as caught:
        prepare_update(doc, _opts())
    message = str(caught.value)
    assert f"Claude Code left {KINDS[mode]} in place of the scratch copy" in message
    assert "refused, not read" in message and message.endswith("(cost $0.0500)")
    assert caught.value.cost_usd == pytest.approx(0.05)
    assert doc.read_bytes() == before
    assert list(scratch.iterdir()) == []  # the scratch folder went too


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_removes_the_scratch_folder_and_stops_claude(
    tmp_path: Path, sig: signal.Signals
) -> None:
    # SIGHUP: the terminal closed or the ssh session dropped, ended as SIGTERM ends it
    doc = copy_doc(tmp_path / "lib")
    env = {**fake_claude_env(tmp_path), "FAKE_CLAUDE_MODE": "sleep", "TMPDIR": str(tmp_path)}
    child = subprocess.Popen(
        [sys.executable, "-m", "oo_nb", "update", str(doc), "--force", "--agent", "claude-code"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started = wait_for_log(env)
    assert Path(started["cwd"]).is_dir() and Path(started["cwd"]).name.startswith(SCRATCH_PREFIX)
    child.send_signal(sig)
    assert child.wait(timeout=30) == -sig
    assert not Path(started["cwd"]).exists()
    assert gone(started["pid"])  # Claude Code does not run on, out of sight


def test_the_next_run_removes_scratch_folders_of_killed_runs(tmp_path: Path, scratch: Path) -> None:
    dead = int(
        subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    live = os.getppid()
    killed = scratch / f"{SCRATCH_PREFIX}{dead}-abc123"
    (killed / "sub").mkdir(parents=True)
    (killed / "sub" / "copy.o-o.html").write_text("a whole copy")
    mark_scratch(killed, dead)
    old = scratch / f"{SCRATCH_PREFIX}{live}-x7y8z9"  # its PID reused since: by age
    old.mkdir()
    mark_scratch(old, live)
    os.utime(old, (time.time() - 2 * 86400, time.time() - 2 * 86400))
    running = scratch / f"{SCRATCH_PREFIX}{live}-def456"  # another run, still going
    running.mkdir()
    mark_scratch(running, live)
    outside = tmp_path / "not-scratch"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (scratch / f"{SCRATCH_PREFIX}{dead}-link").symlink_to(outside)
    with pytest.raises(AgentError, match="changed no article section"):
        prepare_update(copy_doc(tmp_path / "lib"), _opts())
    assert not killed.exists() and not old.exists()
    assert running.is_dir() and (outside / "keep.txt").read_text() == "keep"
    assert sorted(p.name for p in scratch.iterdir()) == sorted(
        [running.name, f"{SCRATCH_PREFIX}{dead}-link"]
    )


def test_the_users_own_folders_in_the_temp_folder_are_never_swept(
    tmp_path: Path, scratch: Path
) -> None:
    """Issue 28, item 5: only folders holding the marker oo_nb wrote (naming their PID) go."""
    from tests.support.attacks_data import users_scratch_lookalikes

    kept = users_scratch_lookalikes(scratch)
    with pytest.raises(AgentError, match="changed no article section"):
        prepare_update(copy_doc(tmp_path / "lib"), _opts())
    assert sorted(p.name for p in scratch.iterdir()) == sorted(kept)
    for name in kept:
        if (scratch / name).is_dir():
            assert (scratch / name / "mine.txt").read_text() == "my notes"
