"""The anthropic SDK imported in the background while the kernel is idle, once ``%load_ext
oo_nb`` has run.

The SDK import takes seconds (6-10 s measured on a loaded machine) and every research agent but
``claude-code`` goes through it, the replay (recorded) agent included: the replay feeds recorded
responses to the same SDK code. A person reading the library table and the preview leaves the
kernel idle for seconds: the import is done then, so ``%oo update`` does not wait for it. It
starts only after a cell has finished and no other cell has started for ``IDLE_S``: started with
``%load_ext`` itself, it slowed the next cell's first ``%oo library`` 2.5x (both read hundreds of
modules from a busy disk at once; benchmarks/startup.py --notebook). ``OO_NB_PREWARM=0`` turns it
off (the benchmark's "before").
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
from typing import Any

__all__ = ["IDLE_S", "PREWARM_ENV", "IdleImport", "prewarm_sdk"]

PREWARM_ENV = "OO_NB_PREWARM"
IDLE_S = 1.0  # a cell that follows sooner (Run All) is not competed with
_MODULE = "oo_nb.agent.backends.anthropic"  # the SDK with the backend on it


class IdleImport:
    """Imports ``module`` in a daemon thread the first time the shell has been idle for
    ``idle_s`` after a cell (IPython's ``pre_run_cell`` / ``post_run_cell`` events)."""

    def __init__(self, shell: Any, module: str = _MODULE, idle_s: float | None = None) -> None:
        self.shell, self.module = shell, module
        self.idle_s = IDLE_S if idle_s is None else idle_s
        self.thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        shell.events.register("pre_run_cell", self.busy)
        shell.events.register("post_run_cell", self.idle)

    def busy(self, *_: Any) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def idle(self, *_: Any) -> None:
        with self._lock:
            if self.thread is not None:
                return
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.idle_s, self.start)
            self._timer.daemon = True
            self._timer.start()

    def start(self) -> None:
        with self._lock:
            if self.thread is not None:
                return
            self._timer = None
            self.thread = threading.Thread(target=self._load, name="oo-import-sdk", daemon=True)
            self.thread.start()
        with contextlib.suppress(ValueError):  # done with the events
            self.shell.events.unregister("pre_run_cell", self.busy)
            self.shell.events.unregister("post_run_cell", self.idle)

    def _load(self) -> None:
        # an import that fails here fails again, with its message, where the update needs it
        with contextlib.suppress(Exception):
            importlib.import_module(self.module)


def prewarm_sdk(shell: Any) -> IdleImport | None:
    """Import the SDK when the kernel is next idle (None when ``OO_NB_PREWARM=0`` or the shell
    has no cell events)."""
    if os.environ.get(PREWARM_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    if getattr(shell, "events", None) is None:
        return None
    return IdleImport(shell)
