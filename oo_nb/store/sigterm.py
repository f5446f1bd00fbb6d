"""SIGTERM during a write or an agent run: the cleanup code runs, then the process ends as the
signal asked.

Python's default for SIGTERM ends the process at once: no ``finally`` runs, so a write's temp
file (``.NAME.PID.NS.tmp``, ``.00003-v2.snap.PID.NS.tmp``), a history row written ahead of its
replace, or the Claude Code backend's scratch folder would stay behind. Inside
``cleanup_on_sigterm()`` the signal raises ``Terminated`` instead, so every ``finally`` and
``except BaseException`` on the way out does its cleanup; when the outermost block is left, the
signal is sent again with its default action, and the process ends with the status a SIGTERM
gives (143 in a shell). Only the main thread receives signals, and a handler someone else
installed (a notebook kernel, a server) is left alone: then nothing changes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["Terminated", "cleanup_on_sigterm"]


class Terminated(BaseException):
    """SIGTERM arrived inside ``cleanup_on_sigterm``. A BaseException, like KeyboardInterrupt:
    code that handles errors (``except Exception``) must not swallow it."""


_depth = 0
_fired = False


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _fired
    if _fired:  # a second SIGTERM while the first one's cleanup runs: let it finish
        return
    _fired = True
    raise Terminated(f"terminated by signal {signum}")


@contextlib.contextmanager
def cleanup_on_sigterm() -> Iterator[None]:
    """While inside (nested blocks count once), SIGTERM raises ``Terminated``; leaving the
    outermost block after it re-sends the signal with its default action."""
    global _depth, _fired
    if threading.current_thread() is not threading.main_thread() or (
        _depth == 0 and signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield  # no signal arrives here, or someone else handles SIGTERM
        return
    _depth += 1
    try:
        if _depth == 1:
            _fired = False
            signal.signal(signal.SIGTERM, _on_sigterm)
        yield
    finally:
        # blocked while the handler is put back: a SIGTERM now must not cut this short
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            _depth -= 1
            if _depth == 0:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                if _fired:  # the cleanup ran on the way here: end as SIGTERM ends a process
                    os.kill(os.getpid(), signal.SIGTERM)  # delivered when unblocked
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
