"""The cyclic garbage collector, paused where a burst of allocation would make it rescan the
same young objects again and again, and told which objects a command keeps to its end.

CPython's collector runs every few hundred allocations and, now and then, walks every object
alive. Reading a library builds millions of small acyclic objects, and importing the anthropic
SDK builds over a thousand pydantic classes (~1 M objects): while either is under way the walks
find nothing to free and only cost time (the import: ~0.1 s of ~0.9 CPU s). What such an
import builds lives as long as the process; left to the collector afterwards, it is walked again
by a young, a middle and a full collection (~0.25 s of an `oo update-all`, the first two before
its first request), so the `oo` program freezes it instead (``program``, ``paused(lasting=True)``)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["keep_to_exit", "paused", "program"]

# this process is the `oo` program, which ends when its one command does (not a kernel, a test)
_ending_with_command = False


@contextlib.contextmanager
def program() -> Iterator[None]:
    """For the block, this process is the `oo` program: it ends with the command it runs."""
    global _ending_with_command
    before, _ending_with_command = _ending_with_command, True
    try:
        yield
    finally:
        _ending_with_command = before


@contextlib.contextmanager
def paused(*, lasting: bool = False) -> Iterator[None]:
    """The collector off for the block, then left as it was. ``lasting``: what the block builds
    lives as long as the process (an import); in the `oo` program it is then frozen, so that no
    collection walks it again. Elsewhere (a kernel) it is left to the collector: a freeze there
    would also keep, for good, any garbage of the user's alive at that moment."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if lasting and _ending_with_command:
            gc.freeze()
        if enabled:
            gc.enable()


def keep_to_exit() -> None:
    """Everything alive now is kept until the process ends: later collections, and the final
    one at exit, skip it (a command that imported the SDK and pandas spent ~0.3 s of its exit
    walking their objects). For a process about to end only: in a long-lived one (a kernel)
    what is frozen and later becomes cyclic garbage is never collected."""
    gc.freeze()
