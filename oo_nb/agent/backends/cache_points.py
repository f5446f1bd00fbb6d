"""Prompt-caching breakpoints for a Messages API request (``cache_control``).

The API caches the prefix of a request (tools, then system, then messages) up to each block
marked ``{"type": "ephemeral"}``; at most four marks per request. We mark, in prefix order:

1. the document-independent head of the system prompt (``shared_system_head``): with the tools
   before it, the prefix that the documents of one update-all share. The tools carry no
   per-contract deny list (``deny_filter`` enforces it) so that this prefix is the same for every
   document; it is marked only when it reaches the model's minimum (``min_cacheable_tokens``),
   below which the API silently caches nothing;
2. the last block of the first user message: the document context, which every continuation,
   re-prompt and correction of this run repeats;
3. the last markable block of the latest message, when the conversation has grown and a later
   request may still come (not on the wrap-up): a pause_turn continuation reads everything
   before it from the cache.

Writing costs 1.25x the input price, reading 0.05-0.1x (``Budget.cache_writes`` keeps the bound a
bound), so a mark pays only if it is read: nothing is marked that no later request can read.
A tool list that changes (fewer ``max_uses``, the wrap-up without server tools) changes the
prefix from its first byte: such a request writes a new entry instead of reading.

Nothing here changes the conversation itself: the marks go on copies of the request's blocks.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from oo_nb.agent.context import system_prompt

__all__ = [
    "EPHEMERAL",
    "MAX_BREAKPOINTS",
    "min_cacheable_tokens",
    "shared_system_head",
    "with_breakpoints",
]

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


# The shortest prefix each model family caches (Anthropic's prompt-caching docs; the notes:
# about 1,024 for Sonnet/Opus-class, more for Haiku-class). Longest id prefix wins.
_MIN_CACHEABLE = {
    "claude-haiku-4-5": 4096,
    "claude-haiku": 2048,
    "claude-opus": 1024,
    "claude-sonnet": 1024,
    "claude-fable": 1024,
}
_MIN_CACHEABLE_UNKNOWN = 4096  # an unknown model: the largest, so a mark is never wasted


def min_cacheable_tokens(model: str) -> int:
    """The shortest prefix ``model`` caches; a shorter marked prefix is silently not cached."""
    name = model.strip().lower()
    prefixes = [key for key in _MIN_CACHEABLE if name.startswith(key)]
    return _MIN_CACHEABLE[max(prefixes, key=len)] if prefixes else _MIN_CACHEABLE_UNKNOWN


def _tokens(value: Any) -> int:
    """About the tokens of ``value``: 4 bytes of its JSON each, as count_tokens roughly gives."""
    return len(json.dumps(value, ensure_ascii=False).encode()) // 4


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


def _system_blocks(system: str, tools: list[dict[str, Any]], minimum: int) -> list[dict[str, Any]]:
    """The system prompt as blocks, its shared head marked when tools + head can be cached."""
    head = shared_system_head()
    blocks: list[dict[str, Any]]
    if system.startswith(head + "\n\n"):
        blocks = [{"type": "text", "text": head}, {"type": "text", "text": system[len(head) :]}]
    else:
        blocks = [{"type": "text", "text": system}]
    if _tokens(tools) + _tokens(blocks[0]) >= minimum:
        blocks[0] = {**blocks[0], "cache_control": EPHEMERAL}
    return blocks


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


def with_breakpoints(params: dict[str, Any], *, read_later: bool = True) -> dict[str, Any]:
    """``params`` (a Messages API request) with the cache breakpoints above, at most four.
    ``read_later``: whether another request of this run may follow and read its messages (not
    on a wrap-up, nor in a one-request run): without it only the shared prefix is marked."""
    out = dict(params)
    tools = [dict(t) for t in params.get("tools") or []]
    minimum = min_cacheable_tokens(str(params.get("model", "")))
    system = params.get("system")
    if isinstance(system, str) and system:
        out["system"] = _system_blocks(system, tools, minimum)
    messages = list(params.get("messages") or [])
    if messages and read_later:
        first = _mark_last(messages[0])
        if first is not None:
            messages[0] = first
        if len(messages) > 1:
            tail = _mark_last(messages[-1])
            if tail is not None:
                messages[-1] = tail
        out["messages"] = messages
    return out
