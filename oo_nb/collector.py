"""The cyclic garbage collector, paused where a burst of allocation would make it rescan the
same young objects again and again, and told which objects a command keeps to its end.

CPython's collector runs every few hundred allocations and, now and then, walks every object
alive. Reading a library builds millions of small acyclic objects, and importing the anthropic
SDK builds over a thousand pydantic classes (~1 M objects): while either is under way the walks
find nothing to free and only cost time (the import: ~0.1 s of ~0.9 CPU s)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["keep_to_exit", "paused"]


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block, then left as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def keep_to_exit() -> None:
    """Everything alive now is kept until the process ends: later collections, and the final
    one at exit, skip it (a command that imported the SDK and pandas spent ~0.3 s of its exit
    walking their objects). For a process about to end only: in a long-lived one (a kernel)
    what is frozen and later becomes cyclic garbage is never collected."""
    gc.freeze()
