"""Prompt caching as the Messages API reports it, for the loopback mock.

A request's prefix runs tools, then system, then messages (``tool_choice`` is part of the key of
the messages: changing it re-caches them, not the tools or system). Every block marked
``cache_control`` is a breakpoint (at most four, else 400). From each breakpoint the cache is
looked up there and at the 20 blocks before it; the longest live entry found is READ. Every marked
prefix longer than that and at least the model's minimum (``min_cacheable_tokens``) is WRITTEN;
the rest of the prompt is plain input. A written entry is readable only once the writing
request's response has begun (``publish``): requests that arrive meanwhile write it again.
Entries live 5 minutes (``"ttl": "1h"``: an hour), refreshed on each read. Tokens are counted as
the mock's count_tokens does: bytes / 4 of the blocks' JSON.

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
from dataclasses import dataclass, field
from typing import Any

from oo_nb.agent.backends.cache_points import min_cacheable_tokens

__all__ = ["CacheRefusal", "CacheUse", "PromptCache", "markup_bytes", "min_cacheable_tokens"]

MAX_BREAKPOINTS = 4
LOOKBACK_BLOCKS = 20
TTL_S = {"5m": 300.0, "1h": 3600.0}


@dataclass
class CacheUse:
    """What one request read and wrote; ``entries`` (key, ttl) become readable on ``publish``."""

    read: int
    written: int
    entries: list[tuple[str, float]] = field(default_factory=list)


def _as_text(content: Any) -> Any:
    """One plain text block as the string it stands for (billed the same)."""
    one = content[0] if isinstance(content, list) and len(content) == 1 else None
    if isinstance(one, dict) and set(one) == {"type", "text"} and one["type"] == "text":
        return one["text"]
    return content


def _unmarked(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as the model reads it: no cache marks, text blocks as the strings they hold."""

    def bare(blocks: Any) -> Any:
        if not isinstance(blocks, list):
            return blocks
        return [
            {k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b
            for b in blocks
        ]

    out = dict(body)
    if "tools" in out:
        out["tools"] = bare(out["tools"])
    system = out.get("system")
    if isinstance(system, list):
        texts = [b.get("text") for b in system if isinstance(b, dict)]
        plain = all(
            isinstance(b, dict) and set(b) <= {"type", "text", "cache_control"} for b in system
        )
        out["system"] = "".join(str(t) for t in texts) if plain else bare(system)
    if isinstance(out.get("messages"), list):
        out["messages"] = [
            {**m, "content": _as_text(bare(m.get("content")))} if isinstance(m, dict) else m
            for m in out["messages"]
        ]
    return out


def markup_bytes(body: Any) -> int:
    """The bytes that caching markup adds to a request's JSON: the API bills no tokens for them,
    so a scripted reply that counts the request's bytes leaves them out."""
    if not isinstance(body, dict):
        return 0

    def size(value: Any) -> int:  # compact, as the SDK sends it
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())

    return max(0, size(body) - size(_unmarked(body)))


class CacheRefusal(ValueError):
    """The request's cache marks are invalid: the API answers 400 invalid_request_error."""


def _tokens(block: Any) -> int:
    return max(1, len(json.dumps(block, separators=(",", ":")).encode()) // 4)


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

    def reserve(self, body: Any) -> CacheUse | None:
        """What ``body`` reads and writes; None when it has no breakpoint. Its writes are not
        readable until ``publish``. Raises ``CacheRefusal`` for marks the API refuses."""
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
        keys, sizes = _keys_and_sizes(model, body.get("tool_choice"), blocks)
        lookups = sorted(
            {p for m in marks for p in range(max(0, m - LOOKBACK_BLOCKS), m + 1)}, reverse=True
        )
        now = self.clock()
        with self._lock:
            read_at = -1
            for p in lookups:  # the longest live entry within reach of a breakpoint
                entry = self._entries.get(keys[p])
                if entry is not None and entry[0] > now:
                    read_at = p
                    self._entries[keys[p]] = (now + entry[1], entry[1])  # refreshed by a read
                    break
        read = sizes[read_at] if read_at >= 0 else 0
        entries: list[tuple[str, float]] = []
        written_to = read_at
        for m in marks:
            if m > read_at and sizes[m] >= minimum:
                mark = blocks[m][1] or {}
                entries.append((keys[m], TTL_S.get(str(mark.get("ttl", "5m")), TTL_S["5m"])))
                written_to = m
        written = sizes[written_to] - read if written_to > read_at else 0
        return CacheUse(read, written, entries)

    def publish(self, use: CacheUse | None) -> None:
        """The writing request's response has begun: its entries become readable."""
        if use is None:
            return
        now = self.clock()
        with self._lock:
            for key, ttl in use.entries:
                self._entries[key] = (now + ttl, ttl)

    def account(self, body: Any) -> tuple[int, int] | None:
        """(read, written) prompt tokens of a request whose response begins at once."""
        use = self.reserve(body)
        self.publish(use)
        return None if use is None else (use.read, use.written)

    def apply(self, body: Any, msg: dict[str, Any]) -> tuple[dict[str, Any], CacheUse | None]:
        """``msg`` with its usage split as the API would report it for ``body``, and the cache
        use to ``publish`` once its response begins."""
        usage = msg.get("usage")
        if not isinstance(usage, dict) or not isinstance(usage.get("input_tokens"), int):
            return msg, None
        if usage.get("cache_read_input_tokens") or usage.get("cache_creation_input_tokens"):
            return msg, None  # scripted figures win
        use = self.reserve(body)
        if use is None:
            return msg, None
        total = max(usage["input_tokens"], use.read + use.written)
        out = copy.deepcopy(msg)
        out["usage"].update(
            input_tokens=total - use.read - use.written,
            cache_read_input_tokens=use.read,
            cache_creation_input_tokens=use.written,
            cache_creation={
                "ephemeral_5m_input_tokens": use.written,
                "ephemeral_1h_input_tokens": 0,
            },
        )
        return out, use


def _keys_and_sizes(
    model: str, tool_choice: Any, blocks: list[tuple[Any, dict[str, Any] | None]]
) -> tuple[list[str], list[int]]:
    """The cache key and the token length of the prefix ending at each block. ``tool_choice``
    enters the key where the messages begin."""
    digest = hashlib.sha256(model.encode())
    keys: list[str] = []
    sizes: list[int] = []
    total = 0
    choice_in = False
    for block, _ in blocks:
        if not choice_in and str(block[0]).startswith("message"):
            digest.update(json.dumps({"tool_choice": tool_choice}, sort_keys=True).encode())
            choice_in = True
        digest.update(json.dumps(block, sort_keys=True).encode())
        total += _tokens(block[1])
        keys.append(digest.hexdigest())
        sizes.append(total)
    return keys, sizes
