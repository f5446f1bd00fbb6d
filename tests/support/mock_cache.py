"""Prompt caching as the Messages API reports it, for the loopback mock.

A request's prefix runs tools, then system, then messages; every block marked ``cache_control``
is a breakpoint (at most four, else 400). The longest marked prefix already in the cache (same
model, same blocks, the marks themselves left out) is READ; every longer marked prefix of at least
the model's minimum length is WRITTEN; the rest of the prompt is plain input. Entries live 5
minutes (``"ttl": "1h"``: an hour), refreshed on each read. Tokens are counted as the mock's
count_tokens does: bytes / 4 of the blocks' JSON.

The scripted reply says how many prompt tokens the request used in all (``input_tokens``, which
includes the server tools' extra passes); the mock moves the cached part of the first pass out of
it into ``cache_read_input_tokens`` / ``cache_creation_input_tokens``, as the API reports them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["CacheRefusal", "PromptCache", "min_cacheable_tokens"]

MAX_BREAKPOINTS = 4
TTL_S = {"5m": 300.0, "1h": 3600.0}


class CacheRefusal(ValueError):
    """The request's cache marks are invalid: the API answers 400 invalid_request_error."""


def min_cacheable_tokens(model: str) -> int:
    """About 1,024 tokens for Sonnet/Opus-class models, more for Haiku-class."""
    return 2048 if "haiku" in model.lower() else 1024


def _tokens(block: Any) -> int:
    return max(1, len(json.dumps(block, sort_keys=True).encode()) // 4)


def _prefix_blocks(body: dict[str, Any]) -> list[tuple[Any, dict[str, Any] | None]]:
    """Every block of the prefix in order, as (block without its mark, its mark or None)."""
    out: list[tuple[Any, dict[str, Any] | None]] = []

    def add(kind: str, block: Any) -> None:
        if isinstance(block, dict):
            mark = block.get("cache_control")
            bare = {k: v for k, v in block.items() if k != "cache_control"}
            if mark is not None and bare.get("type") == "text" and not bare.get("text"):
                raise CacheRefusal("cache_control cannot be set for empty text blocks")
            if mark is not None and bare.get("type") in ("thinking", "redacted_thinking"):
                raise CacheRefusal("cache_control cannot be set on thinking blocks")
            out.append(((kind, bare), mark if isinstance(mark, dict) else None))
        else:
            out.append(((kind, block), None))

    for tool in body.get("tools") or []:
        add("tool", tool)
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system or []:
        add("system", block)
    for n, message in enumerate(body.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        role = message.get("role") if isinstance(message, dict) else None
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            add(f"message {n} {role}", block)
    return out


class PromptCache:
    """The cache of one mock server (thread-safe). ``clock`` may be replaced to test expiry."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.min_tokens: int | None = None  # None: by model (min_cacheable_tokens)
        self._entries: dict[str, tuple[float, float]] = {}  # key -> (expires at, ttl)
        self._lock = threading.Lock()

    def account(self, body: Any) -> tuple[int, int] | None:
        """(read, written) prompt tokens of a request; None when it has no breakpoint. Raises
        ``CacheRefusal`` for marks the API refuses."""
        if not isinstance(body, dict):
            return None
        blocks = _prefix_blocks(body)
        marks = [i for i, (_, mark) in enumerate(blocks) if mark is not None]
        if not marks:
            return None
        if len(marks) > MAX_BREAKPOINTS:
            raise CacheRefusal(
                f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
                f"Found {len(marks)}."
            )
        model = str(body.get("model", ""))
        minimum = self.min_tokens if self.min_tokens is not None else min_cacheable_tokens(model)
        digest = hashlib.sha256(model.encode())
        keys, sizes, total = [], [], 0
        for block, _ in blocks:
            digest.update(json.dumps(block, sort_keys=True).encode())
            total += _tokens(block[1])
            keys.append(digest.hexdigest())
            sizes.append(total)
        now = self.clock()
        with self._lock:
            read_at = -1
            for i in reversed(marks):
                entry = self._entries.get(keys[i])
                if entry is not None and entry[0] > now:
                    read_at = i
                    self._entries[keys[i]] = (now + entry[1], entry[1])  # refreshed by a read
                    break
            read = sizes[read_at] if read_at >= 0 else 0
            written_to = read_at
            for i in marks:
                if i > read_at and sizes[i] >= minimum:
                    mark = blocks[i][1] or {}
                    ttl = TTL_S.get(str(mark.get("ttl", "5m")), TTL_S["5m"])
                    self._entries[keys[i]] = (now + ttl, ttl)
                    written_to = i
            written = sizes[written_to] - read if written_to > read_at else 0
        return read, written

    def apply(self, body: Any, msg: dict[str, Any]) -> dict[str, Any]:
        """``msg`` with its usage split as the API would report it for ``body``."""
        usage = msg.get("usage")
        if not isinstance(usage, dict) or not isinstance(usage.get("input_tokens"), int):
            return msg
        if usage.get("cache_read_input_tokens") or usage.get("cache_creation_input_tokens"):
            return msg  # scripted figures win
        figures = self.account(body)
        if figures is None:
            return msg
        read, written = figures
        total = max(usage["input_tokens"], read + written)
        out = copy.deepcopy(msg)
        out["usage"].update(
            input_tokens=total - read - written,
            cache_read_input_tokens=read,
            cache_creation_input_tokens=written,
            cache_creation={"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0},
        )
        return out
