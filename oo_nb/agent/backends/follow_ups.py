"""Whether the first request of a run should cache its document context.

Marking the document on the first request costs 1.25x its input price once and pays only if a
later request of the same run reads it (a pause_turn continuation, a re-prompt, a wrap-up that
keeps the tools): worth it when the odds of a second request exceed
(write - input) / (input - read), about 0.26 for Sonnet 5.5. A single update cannot know the odds
and marks (a continuation is common). The documents of one update-all share a ``FollowUps``:
once some of its runs have finished, the first request marks the document only while at least
that share of them needed a second request; an update-all of one-request runs stops paying for
writes nobody reads after its first few documents.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from oo_nb.agent.pricing import Price

__all__ = ["FollowUps", "follow_ups_for"]


class FollowUps:
    """How many finished runs of one update-all needed more than one request (thread-safe)."""

    def __init__(self) -> None:
        self.finished = 0
        self.continued = 0
        self._lock = threading.Lock()

    def record(self, answers: int) -> None:
        """A run ended after ``answers`` responses (a run with none tells nothing)."""
        if answers < 1:
            return
        with self._lock:
            self.finished += 1
            self.continued += answers > 1

    def likely(self, price: Price) -> bool:
        """Whether a second request is likely enough for a first-request write to pay."""
        saved = price.input - price.cache_read
        if saved <= 0:
            return False
        break_even = max(price.cache_write - price.input, 0.0) / saved
        with self._lock:
            return self.finished == 0 or self.continued >= break_even * self.finished


# one per shared SDK client: the documents of one update-all (gone with the client)
_SHARED: weakref.WeakKeyDictionary[Any, FollowUps] = weakref.WeakKeyDictionary()
_SHARED_LOCK = threading.Lock()


def follow_ups_for(client: Any) -> FollowUps:
    """The ``FollowUps`` of the runs that share ``client``."""
    with _SHARED_LOCK:
        odds = _SHARED.get(client)
        if odds is None:
            odds = _SHARED[client] = FollowUps()
        return odds
