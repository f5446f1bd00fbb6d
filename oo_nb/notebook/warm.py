"""pandas, pyarrow, the anthropic SDK and matplotlib's figure module imported in the background
while the kernel is idle, once ``%load_ext oo_nb`` has run.

Each takes seconds on a loaded machine: pandas with pyarrow 4-5 s, the SDK 6-10 s. The first
``%oo library`` (its frames) needs pandas and pyarrow; an update through the API needs the SDK
(imported only when an update would use it: a key is set or ``OO_AGENT=anthropic``; a replay
and Claude Code never import it). A person reading the output and typing the next cell leaves
the kernel idle for seconds: the imports are done then, so ``%oo library`` and ``%oo update`` do
not wait for them. They go in that order (the library is what a newcomer runs first), one
module at a time, each only once a cell has finished and no other cell has started for
``IDLE_S``: a cell that starts meanwhile runs alone, and the next
module waits for the next idle second. Started with ``%load_ext`` itself, the SDK import slowed
the next cell's first ``%oo library`` 2.5x (both read hundreds of modules from a busy disk at
once; benchmarks/startup.py --notebook); the SDK alone, started after a second of idle, still
made a ``%oo library`` typed 3 s later 1.6x slower than no import at all (6.0 -> 9.6 s,
benchmarks/first_library_kernel.py), as the two imports competed. ``OO_NB_PREWARM=0`` turns it
off (the benchmarks' "before"). Last comes ``matplotlib.figure`` (0.45 s of the 0.47 s a first
``plot_staleness`` spends importing; pyplot, which picks the backend, is left to the plot).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
import weakref
from typing import Any

from oo_nb.agent.models import uses_the_api

__all__ = ["IDLE_S", "MODULES", "PREWARM_ENV", "SDK_MODULE", "IdleImport", "prewarm"]

PREWARM_ENV = "OO_NB_PREWARM"
IDLE_S = 1.0  # a cell that follows sooner (Run All) is not competed with
# in the order a newcomer needs them: the library's frames, then the SDK with the backend on it
SDK_MODULE = "oo_nb.agent.backends.anthropic"
MODULES = ("pandas", "pyarrow", SDK_MODULE, "matplotlib.figure")


class IdleImport:
    """Imports ``modules`` one by one in a daemon thread, each once the shell has been idle for
    ``idle_s`` after a cell (IPython's ``pre_run_cell`` / ``post_run_cell`` events)."""

    def __init__(
        self, shell: Any, modules: tuple[str, ...] = MODULES, idle_s: float | None = None
    ) -> None:
        self.shell, self.modules = shell, modules
        self.idle_s = IDLE_S if idle_s is None else idle_s
        self.thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._idle = threading.Event()  # set: no cell has run for idle_s
        self._lock = threading.Lock()
        shell.events.register("pre_run_cell", self.busy)
        shell.events.register("post_run_cell", self.idle)

    def busy(self, *_: Any) -> None:
        with self._lock:
            self._idle.clear()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def idle(self, *_: Any) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.idle_s, self.start)
            self._timer.daemon = True
            self._timer.start()

    def start(self) -> None:
        with self._lock:
            self._timer = None
            self._idle.set()
            if self.thread is None:
                self.thread = threading.Thread(target=self._load, name="oo-prewarm", daemon=True)
                self.thread.start()

    def _load(self) -> None:
        for module in self.modules:
            self._idle.wait()  # a cell running now runs alone
            if module == SDK_MODULE and not uses_the_api():
                continue  # a replay or Claude Code: ~1 CPU s the next cell would compete with
            # an import that fails here fails again, with its message, where a verb needs it
            with contextlib.suppress(Exception):
                importlib.import_module(module)
        with self._lock, contextlib.suppress(ValueError):  # done with the events
            self.shell.events.unregister("pre_run_cell", self.busy)
            self.shell.events.unregister("post_run_cell", self.idle)
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None


_LOADERS: weakref.WeakKeyDictionary[Any, IdleImport] = weakref.WeakKeyDictionary()


def prewarm(shell: Any) -> IdleImport | None:
    """Import pandas, pyarrow and the SDK when the kernel is next idle (None when
    ``OO_NB_PREWARM=0`` or the shell has no cell events)."""
    if os.environ.get(PREWARM_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    if getattr(shell, "events", None) is None:
        return None
    # one loader a shell: `%reload_ext oo_nb` runs this again, and each run added another pair
    # of cell callbacks (a loader that is done has let its own go, and its modules are in)
    with contextlib.suppress(TypeError):  # (a shell no weak reference can name: a new one)
        return _LOADERS.get(shell) or _LOADERS.setdefault(shell, IdleImport(shell))
    return IdleImport(shell)
