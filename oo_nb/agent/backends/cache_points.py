"""Prompt-caching breakpoints for a Messages API request (``cache_control``).

The API caches the prefix of a request (tools, then system, then messages) up to each block
marked ``{"type": "ephemeral"}``; at most four marks per request. We mark, in prefix order:

1. the last tool: the tool definitions, the same for every request offering the same tools;
2. the document-independent head of the system prompt (``shared_system_head``): with 1. the
   prefix that the documents of one update-all share;
3. the last block of the first user message: the document context, which every continuation,
   re-prompt and correction of this run repeats;
4. the last markable block of the latest message, when the conversation has grown: a
   pause_turn continuation reads everything before it from the cache.

A prefix shorter than the model's minimum (about 1,024 tokens) is silently not cached; writing
one costs 1.25x the input price, reading it 0.1x (``Budget.cache_writes`` keeps the bound a bound).
A tool list that changes (fewer ``max_uses``, the wrap-up without server tools) changes the
prefix from its first byte: such a request writes a new entry instead of reading.

Nothing here changes the conversation itself: the marks go on copies of the request's blocks.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from oo_nb.agent.context import system_prompt

__all__ = ["EPHEMERAL", "MAX_BREAKPOINTS", "shared_system_head", "with_breakpoints"]

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
# Blocks that may carry cache_control (thinking blocks and empty text blocks may not).
_MARKABLE = {
    "text",
    "image",
    "document",
    "tool_use",
    "tool_result",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
}


@cache
def shared_system_head() -> str:
    """The head every system prompt starts with: the rules that do not depend on the document
    (the rules after it name domains, images and the sentinel of one document)."""
    bare = system_prompt(
        sentinel=None,
        prefer_domains=(),
        blocked_domains=(),
        require_https=False,
        images_allowed=False,
        max_images=0,
    )
    return bare.rsplit("\n\n- ", 1)[0]  # without its last rule, the one about images


def _system_blocks(system: str) -> list[dict[str, Any]]:
    head = shared_system_head()
    if system.startswith(head + "\n\n"):
        rest = system[len(head) :]
        return [
            {"type": "text", "text": head, "cache_control": EPHEMERAL},
            {"type": "text", "text": rest},
        ]
    return [{"type": "text", "text": system, "cache_control": EPHEMERAL}]


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [dict(b) for b in content if isinstance(b, dict)]


def _markable(block: dict[str, Any]) -> bool:
    if block.get("type") not in _MARKABLE:
        return False
    return block.get("type") != "text" or bool(block.get("text"))


def _mark_last(message: dict[str, Any]) -> dict[str, Any] | None:
    """A copy of ``message`` whose last markable block carries the mark; None if none can."""
    blocks = _blocks(message.get("content"))
    for i in range(len(blocks) - 1, -1, -1):
        if _markable(blocks[i]):
            blocks[i] = {**blocks[i], "cache_control": EPHEMERAL}
            return {**message, "content": blocks}
    return None


def with_breakpoints(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` (a Messages API request) with the cache breakpoints above, at most four."""
    out = dict(params)
    tools = [dict(t) for t in params.get("tools") or []]
    if tools:
        tools[-1] = {**tools[-1], "cache_control": EPHEMERAL}
        out["tools"] = tools
    system = params.get("system")
    if isinstance(system, str) and system:
        out["system"] = _system_blocks(system)
    messages = list(params.get("messages") or [])
    if messages:
        first = _mark_last(messages[0])
        if first is not None:
            messages[0] = first
        if len(messages) > 1:
            tail = _mark_last(messages[-1])
            if tail is not None:
                messages[-1] = tail
        out["messages"] = messages
    return out
