"""SIGTERM, SIGHUP or SIGINT to ``update-all`` (a supervisor, ``timeout``, cron's kill, Ctrl-C, ``kill``):
its research runs end, nothing is written after it, and the report says "interrupted" with the
cost known so far, as ``oo update`` does for its one run (``store.sigterm``).

update-all researches in an asyncio loop, Claude Code runs in worker threads. Python's default
for SIGTERM ended the process at once: its Claude Code children ran on (paid, their cost recorded
nowhere) and their scratch folders stayed. SIGINT cancelled the loop's task, but the worker
threads finished their runs and wrote under ``--auto`` seconds later. Inside ``on_signals`` both
signals instead set one flag (``requested``) and cancel the run's task: a Claude Code run that
sees the flag ends its child (``backends/claude_code``), ``write_result`` writes nothing once it
is set, and the task's documents are reported interrupted with what they cost so far.

Only in the main thread, and only where the signals have Python's default handlers: a notebook
kernel or a server that handles them is left alone. Around the whole run (``held``), from before
its loop starts to its outcome, the same signals are recorded where ``on_signals`` does not take
them (asyncio closing the loop, the moments after it): a run that had finished and gets a signal
in its last milliseconds reports its work as interrupted, with the signal's exit status, rather
than a CancelledError, a bare KeyboardInterrupt or a silent SIGTERM death. The CLI holds them
the same way while it sends the alerts after the run (``cli/update_all``): the sending stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = [
    "Stop",
    "catches_signals",
    "held",
    "interrupted_said",
    "loop_running",
    "on_signals",
    "requested",
    "stopped_message",
]

_requested = threading.Event()


def requested() -> bool:
    """Whether a run inside ``on_signals`` was told to stop (read by worker threads too)."""
    return _requested.is_set()


@dataclass
class Stop:
    """The signals a run takes, the one that stopped it (None: not stopped), and how many
    documents it left."""

    signals: tuple[signal.Signals, ...]  # the ones taken (``catches_signals``)
    signum: int | None = None
    not_started: int = 0
    # while the run's loop is inside ``on_signals``: stops it from another thread (the caller's
    # Ctrl-C, a kernel's Interrupt, when the loop runs in a worker thread)
    request: Callable[[int], None] | None = field(default=None, repr=False)
    # the run's work is over and its cleanup runs: a signal is recorded (the report says
    # interrupted) and cancels nothing, or the cleanup's own awaits would end in CancelledError
    settling: bool = False

    def interrupt(self, signum: int = signal.SIGINT) -> None:
        """Stop the run as ``signum`` would, from any thread: its research ends, nothing is
        written after it."""
        request = self.request
        if request is not None:
            with contextlib.suppress(RuntimeError):  # (the loop closed meanwhile: it has ended)
                request(signum)
        elif self.signum is None:  # the loop has not reached ``on_signals``: it stops there
            self.signum = signum
            _requested.set()

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else ""

    @property
    def exit_code(self) -> int:
        """What a shell reports for a process ended by this signal (130, 143)."""
        return 128 + (self.signum or 0)


def catches_signals() -> tuple[signal.Signals, ...]:
    """The signals ``on_signals`` may take here: in the main thread with no loop running (else
    the run goes to a worker thread's loop, which cannot take them), SIGTERM and SIGHUP when they
    have their default action and SIGINT when it has Python's handler (asyncio's own is
    installed later, inside run). An ignored SIGINT (a background job of a script) stays
    ignored."""
    if threading.current_thread() is not threading.main_thread() or loop_running():
        return ()
    taken = (
        (signal.SIGTERM, signal.SIG_DFL),
        (signal.SIGHUP, signal.SIG_DFL),  # the terminal closed, the ssh session dropped
        (signal.SIGINT, signal.default_int_handler),
    )
    return tuple(sig for sig, default in taken if signal.getsignal(sig) is default)


def loop_running() -> bool:
    """Whether this thread runs an event loop now (update-all then runs in a worker thread)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@contextlib.contextmanager
def on_signals(stop: Stop, task: asyncio.Task[object]) -> Iterator[None]:
    """While inside (in ``task``'s running loop), ``stop.signals`` set ``stop`` and the flag
    and cancel ``task``. The flag is cleared on the way in; a signal's flag stays set until the
    loop's worker threads are done (``held``)."""
    loop = asyncio.get_running_loop()
    # only a main-thread loop can take signals (set_wakeup_fd); a loop in a worker thread (the
    # caller has a running loop: a notebook kernel's cell, an async program) is stopped through
    # ``stop.interrupt`` by the caller's thread, and the caller keeps its own handlers
    signals = stop.signals if threading.current_thread() is threading.main_thread() else ()

    def fire(signum: int) -> None:
        if stop.signum is None:  # a second signal while the first one's cleanup runs: no more
            stop.signum = signum
            _requested.set()
            if not stop.settling:
                task.cancel()

    def request(signum: int) -> None:
        loop.call_soon_threadsafe(fire, signum)

    early = stop.signum  # ``stop.interrupt`` came before the loop got here
    before = {sig: signal.getsignal(sig) for sig in signals}  # ``held``'s, or the defaults
    _requested.clear()
    stop.request = request
    if early is not None:
        stop.signum = None
        fire(early)
    for sig in signals:
        loop.add_signal_handler(sig, fire, sig)
    try:
        yield
    finally:
        stop.request = None
        # blocked meanwhile: a signal must not meet the default that remove_signal_handler puts
        # back before the handler from before is
        with _blocked(signals):
            for sig in signals:
                loop.remove_signal_handler(sig)
                signal.signal(sig, before[sig])


@contextlib.contextmanager
def held(stop: Stop) -> Iterator[None]:
    """Around a run's whole loop and the making of its outcome: in the main thread,
    ``stop.signals`` stop it as ``stop.interrupt`` does wherever ``on_signals`` does not take
    them. The flag goes on the way out (``asyncio.run`` has waited for the loop's worker
    threads: nothing of the stopped run can still write), a signal's after the loop too, so it
    is never left set for a later run."""
    signals = stop.signals if threading.current_thread() is threading.main_thread() else ()

    def record(signum: int, frame: object) -> None:
        stop.interrupt(signum)

    before = {sig: signal.getsignal(sig) for sig in signals}
    for sig in signals:
        signal.signal(sig, record)
    try:
        yield
    finally:
        with _blocked(signals):
            for sig, handler in before.items():
                signal.signal(sig, handler)
            # one that came while they were put back belongs to the run, not to the default
            for sig in signal.sigpending() & set(signals):
                signal.sigtimedwait([sig], 0)
                stop.interrupt(sig)
        _requested.clear()


@contextlib.contextmanager
def _blocked(signals: tuple[signal.Signals, ...]) -> Iterator[None]:
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def stopped_message(stop: Stop, cost_usd: float | None, *, claude_code: bool) -> str:
    """What an interrupted document's line says: nothing written, and what it cost so far
    (``cost_usd`` None: its research had not begun)."""
    if cost_usd is None:
        return f"interrupted by {stop.name} before its research began: nothing sent or written"
    known = f"cost so far ${cost_usd:.4f}"
    if claude_code:  # Claude Code reports its cost only when it ends
        known += " (Claude Code was ended before it reported its cost: at most its budget)"
    return f"interrupted by {stop.name} during its research: nothing written; {known}"


def interrupted_said(exc: KeyboardInterrupt) -> str:
    """What ``oo VERB`` and ``%oo VERB`` say after a Ctrl-C or a kernel's Interrupt, in one
    line: the run's own words when it has them (one document's research: nothing written, its
    cost so far), else that it was interrupted."""
    return str(exc) or "interrupted; nothing was written"
