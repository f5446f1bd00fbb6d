"""The deadline of one update's research, and a progress line while a request is waited on.

A hung API server kept ``oo update`` silent for minutes: the SDK's timeout is per attempt and per
read (a server that trickles a byte now and then never trips it), and its retries multiply it.
So the deadline is kept from outside the SDK: each request runs as a worker (a daemon thread, or a
task under asyncio) and the caller waits for it in steps of at most ``HEARTBEAT_S``, telling the
progress callback how long it has waited, and gives up when the deadline passes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = [
    "DEFAULT_DEADLINE_S",
    "HEARTBEAT_S",
    "Deadline",
    "DeadlinePassed",
    "await_with_deadline",
    "call_with_deadline",
]

T = TypeVar("T")

DEFAULT_DEADLINE_S = 600.0  # one update's research, every request and retry included
HEARTBEAT_S = 30.0  # the longest silence while waiting on one request (read at each wait)

Progress = Callable[[str], None] | None


class DeadlinePassed(Exception):
    """The deadline passed before the request answered (the backend turns it into an
    ``AgentError`` with the cost so far)."""


@dataclass
class Deadline:
    seconds: float
    started: float = field(default_factory=time.monotonic)

    def remaining(self) -> float:
        return self.seconds - (time.monotonic() - self.started)

    def describe(self) -> str:
        return f"{self.seconds:g} s"


def _still_waiting(tell: Progress, since: float, deadline: Deadline) -> None:
    if tell is not None:
        waited = time.monotonic() - since
        left = max(0.0, deadline.remaining())
        tell(f"still waiting for the API ({_secs(waited)} s; giving up in {_secs(left)} s)")


def _secs(value: float) -> str:
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def call_with_deadline(work: Callable[[], T], deadline: Deadline, tell: Progress = None) -> T:
    """``work()`` in a daemon thread; its result or exception. Raises ``DeadlinePassed`` when
    the deadline passes first: the thread is left behind (its own per-attempt timeout, at most
    the time that was left, ends it) and its outcome is ignored."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def worker() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the caller as it is
            box["error"] = exc
        finally:
            done.set()

    if deadline.remaining() <= 0:
        raise DeadlinePassed  # nothing is sent once the deadline has passed
    since = time.monotonic()
    threading.Thread(target=worker, name="oo-api-request", daemon=True).start()
    while True:
        left = deadline.remaining()
        if left <= 0:
            raise DeadlinePassed
        if done.wait(min(HEARTBEAT_S, left)):
            break
        if deadline.remaining() > 0:
            _still_waiting(tell, since, deadline)
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


async def await_with_deadline(
    work: Coroutine[Any, Any, T], deadline: Deadline, tell: Progress = None
) -> T:
    """``await work`` under the deadline, as ``call_with_deadline``; on expiry the task is
    cancelled (which closes its connection)."""
    if deadline.remaining() <= 0:
        work.close()  # never started: nothing is sent once the deadline has passed
        raise DeadlinePassed
    task = asyncio.ensure_future(work)
    since = time.monotonic()
    try:
        while True:
            left = deadline.remaining()
            if left <= 0:
                raise DeadlinePassed
            finished, _ = await asyncio.wait({task}, timeout=min(HEARTBEAT_S, left))
            if finished:
                return task.result()
            if deadline.remaining() > 0:
                _still_waiting(tell, since, deadline)
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
