"""The ``claude`` CLI as a child process that never outlives its run: it runs in a process group
of its own, and the whole group (the CLI and whatever it started) is ended when the run stops
early: the timeout, update-all's interrupt (``agent.interrupt``), or any exception while it runs
(SIGTERM's ``Terminated`` in ``oo update``, Ctrl-C). A child left running is research paid for
and recorded nowhere."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

from oo_nb.agent import interrupt
from oo_nb.errors import AgentError

__all__ = ["run_child"]

_POLL_S = 0.2  # how soon a run sees update-all's interrupt
_GRACE_S = 5.0  # how long Claude Code has to end on SIGTERM before it is killed


def run_child(cmd: list[str], *, cwd: str, timeout_s: float) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` to its end and return what it printed; ``AgentError`` when it did not
    finish within ``timeout_s`` or update-all was interrupted (seen within ``_POLL_S``)."""
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                out, err = proc.communicate(timeout=_POLL_S)
                return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
            except subprocess.TimeoutExpired:
                if interrupt.requested():
                    raise AgentError(
                        "interrupted: Claude Code was ended (its cost is unknown)"
                    ) from None
                if time.monotonic() >= deadline:
                    raise AgentError(
                        f"Claude Code did not finish within {timeout_s:.0f} s (its cost is unknown)"
                    ) from None
    except BaseException:
        _end_group(proc)
        raise


def _end_group(proc: subprocess.Popen[str]) -> None:
    """SIGTERM to the child's process group, SIGKILL after ``_GRACE_S``; the pipes are closed."""
    for sig, wait in ((signal.SIGTERM, _GRACE_S), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # what the CLI started and left behind
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
