"""SIGTERM (or SIGHUP) during a write or an agent run: the cleanup code runs, then the process ends as the
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
_fired: int | None = None  # the signal that arrived inside, to be sent again on the way out
# SIGHUP too: a closed terminal or a dropped ssh session ends the process the same way
_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _fired
    if _fired is not None:  # a second signal while the first one's cleanup runs: let it finish
        return
    _fired = signum
    raise Terminated(f"terminated by signal {signum}")


@contextlib.contextmanager
def cleanup_on_sigterm() -> Iterator[None]:
    """While inside (nested blocks count once), SIGTERM or SIGHUP raises ``Terminated``;
    leaving the outermost block after it re-sends the signal with its default action."""
    global _depth, _fired
    if threading.current_thread() is not threading.main_thread() or (
        _depth == 0 and signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield  # no signal arrives here, or someone else handles SIGTERM
        return
    _depth += 1
    taken: list[signal.Signals] = []
    try:
        if _depth == 1:
            _fired = None
            for sig in _SIGNALS:
                if signal.getsignal(sig) is signal.SIG_DFL:  # (a nohup'ed SIGHUP stays ignored)
                    signal.signal(sig, _on_signal)
                    taken.append(sig)
        yield
    finally:
        # blocked while the handlers are put back: a signal now must not cut this short
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(_SIGNALS))
        try:
            _depth -= 1
            for sig in taken:
                signal.signal(sig, signal.SIG_DFL)
            if _depth == 0 and _fired is not None:
                # the cleanup ran on the way here: end as the signal ends a process
                os.kill(os.getpid(), _fired)  # delivered when unblocked
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
