"""Canned conversations for the loopback mock: content-block builders, the research turn (web
search results, a fetch, then ``submit_proposal`` in exactly the issue's shape) and fault replies.

The research responder is stateless: it reads the request (the harness's user message: next free
source id, section ids, cache ids) and how far the conversation got, so one mock can serve many
documents concurrently and a batch too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date
from typing import Any

from oo_nb.format.vocab import citation_ids
from oo_nb.store import clock
from tests.support.mock_api import MockRequest, Reply, Script, error_reply, message
from tests.support.mock_cache import markup_bytes

__all__ = [
    "FETCHED_TEXT",
    "FOUND_QUOTE",
    "MISSING_QUOTE",
    "endless_pause",
    "error_reply",
    "fetch_result",
    "proposal_for",
    "research_scenario",
    "search_result",
    "server_tool_use",
    "text",
    "then",
    "tool_use",
]

# What the mock's fetch returns, and the quotes checked against it: the first is in it (with
# straight quotes and a hyphen where the page has curly quotes and an em dash), the second not.
FETCHED_TEXT = (
    "The latest developments, reported in detail. The agency said the \u201cfirst phase\u201d "
    "is complete \u2014 on schedule."
)
FOUND_QUOTE = 'The agency said the "first phase" is complete - on schedule.'
MISSING_QUOTE = "The agency confirmed that a second phase will start next year."

_NEXT_ID = re.compile(r"Next free source id: (s\d+)")
_H2 = re.compile(r"<h2[^>]*\bid=\"([^\"]+)\"")
_TAG = re.compile(r"<(source_cache|article)>(.*?)</\1>", re.DOTALL)
_TITLE = re.compile(r'Update the living document "(.*?)"\.')


def text(value: str, citations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": value}
    if citations:
        block["citations"] = citations
    return block


def tool_use(name: str, payload: Any, block_id: str = "toolu_mock_submit") -> dict[str, Any]:
    return {"type": "tool_use", "id": block_id, "name": name, "input": payload}


def server_tool_use(name: str, payload: dict[str, Any], block_id: str) -> dict[str, Any]:
    return {"type": "server_tool_use", "id": block_id, "name": name, "input": payload}


def search_result(tool_use_id: str, results: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "type": "web_search_tool_result",
        "tool_use_id": tool_use_id,
        "content": [
            {
                "type": "web_search_result",
                "url": url,
                "title": title,
                "encrypted_content": "RW5jcnlwdGVkIG1vY2s=",
                "page_age": "1 day ago",
            }
            for url, title in results
        ],
    }


def fetch_result(tool_use_id: str, url: str, title: str, body: str) -> dict[str, Any]:
    return {
        "type": "web_fetch_tool_result",
        "tool_use_id": tool_use_id,
        "content": {
            "type": "web_fetch_result",
            "url": url,
            "retrieved_at": "2026-11-28T12:00:00Z",
            "content": {
                "type": "document",
                "title": title,
                "source": {"type": "text", "media_type": "text/plain", "data": body},
                "citations": {"enabled": True},
            },
        },
    }


def _search_citation(url: str, title: str, cited: str) -> dict[str, Any]:
    return {
        "type": "web_search_result_location",
        "url": url,
        "title": title,
        "encrypted_index": "bW9jaw==",
        "cited_text": cited,
    }


# --------------------------------------------------------------------------- reading the request
def _user_text(request: MockRequest) -> str:
    msgs = request.messages
    if not msgs:
        return ""
    content = msgs[0].get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def _undeclared(request: MockRequest, submitted: Any) -> list[str]:
    """Top-level fields of the submitted input that the request's ``submit_proposal`` schema
    does not declare (none when the request declares no such tool)."""
    tools = request.body.get("tools") if isinstance(request.body, dict) else None
    tool = next(
        (t for t in tools or [] if isinstance(t, dict) and t.get("name") == "submit_proposal"), None
    )
    if tool is None or not isinstance(submitted, dict):
        return []
    declared = (tool.get("input_schema") or {}).get("properties") or {}
    return sorted(k for k in submitted if k not in declared)


def _slug(value: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")[:40] or "doc"


def proposal_for(
    user_text: str,
    *,
    new_url: str,
    image_url: str | None,
    today: date | None = None,
    unsupported_quote: bool = False,
) -> dict[str, Any]:
    """The ``submit_proposal`` input for the document described in ``user_text``: a new section
    citing a new source, one uncited old source dropped (when there is one), a fact, an image and
    the sentinel status — every key of the issue's shape."""
    found = _NEXT_ID.search(user_text)
    new_id = found.group(1) if found else "s900"
    blocks = {m.group(1): m.group(2) for m in _TAG.finditer(user_text)}
    article = blocks.get("article", "")
    existing = set(_H2.findall(article))
    section = "recent-developments"
    n = 2
    while section in existing:
        section, n = f"recent-developments-{n}", n + 1
    drop: list[str] = []
    try:
        cache = json.loads(blocks.get("source_cache", "{}"))
        cited = set(citation_ids(article))
        ids = [s.get("id") for s in cache.get("sources", []) if isinstance(s, dict)]
        drop = [i for i in ids if isinstance(i, str) and i not in cited][:1]
    except (json.JSONDecodeError, AttributeError):
        pass
    accessed = (today or clock.today()).isoformat()
    proposal: dict[str, Any] = {
        "summary": f"Added a Recent Developments section citing a new source ({new_id}).",
        "sections": [
            {
                "id": section,
                "title": "Recent Developments",
                "html": f"<p>A new report describes the latest developments in this area [{new_id}].</p>",
            }
        ],
        "sources": [
            {
                "id": new_id,
                "url": new_url,
                "title": "Latest developments",
                "tier": "news",
                "accessed": accessed,
            }
        ],
        "drop_sources": drop,
        "facts": [
            {
                "text": "The agency says the first phase is complete, on schedule.",
                "source_ids": [new_id],
                "quote": FOUND_QUOTE,
            }
        ],
        "images": [],
        "sentinel": {
            "status": "not_occurred",
            "evidence": f"No declaration found in recent coverage [{new_id}].",
        },
    }
    if image_url:
        proposal["images"] = [
            {
                "url": image_url,
                "page_url": new_url,
                "caption": "Latest developments chart.",
                "alt": "Chart",
                "layout": "fig-right",
            }
        ]
    if unsupported_quote:
        proposal["facts"].append(
            {
                "text": "A second phase starts next year.",
                "source_ids": [new_id],
                "quote": MISSING_QUOTE,
            }
        )
    return proposal


# --------------------------------------------------------------------------- the research turn
def research_scenario(
    *,
    base_url: Callable[[], str] | str | None = None,
    pause_after_search: bool = False,
    pauses: int = 0,
    with_image: bool = True,
    image_url: str | None = None,
    model: str = "claude-sonnet-5-5",
    proposal: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    today: date | None = None,
    unsupported_quote: bool = False,
    strict_schema: bool = False,
) -> Callable[[MockRequest], Reply]:
    """A responder for a whole update: web search (the new source among the results), a fetch of
    it, a cited text, then ``submit_proposal`` (stop_reason ``tool_use``). With
    ``pause_after_search`` the first answer stops at ``pause_turn`` and the continuation finishes;
    ``pauses=N``: the first N answers each search and stop at ``pause_turn`` (N+1 requests).
    ``proposal`` may rewrite the submitted input (to script malformed proposals). ``base_url``
    (the mock's own) lets the proposed image live on the mock (http on loopback: the default
    downloader refuses it before any network); ``image_url`` names another one. With
    ``strict_schema`` a submitted field the request's ``submit_proposal`` schema does not declare
    gets a 400, as a strict tool never carries one."""

    def respond(request: MockRequest) -> Reply:
        user = _user_text(request)
        found = _TITLE.search(user)
        title = found.group(1) if found else "document"
        new_url = f"https://news.example.com/{_slug(title)}/latest-developments"
        root = base_url() if callable(base_url) else base_url
        image = image_url or (f"{root}/img/chart.png" if (with_image and root) else None)
        # the prompt as billed: caching markup (marks, a system split in blocks) costs no tokens
        body_tokens = max(1, (len(request.raw) - markup_bytes(request.body)) // 4)
        search_id, fetch_id = "srvtoolu_mock_search", "srvtoolu_mock_fetch"
        search_blocks = [
            text("Let me check what changed."),
            server_tool_use("web_search", {"query": f"{title} latest news"}, search_id),
            search_result(
                search_id,
                [
                    (new_url, "Latest developments"),
                    ("https://www.example.org/background", "Background"),
                    ("https://reddit.com/r/none", "Forum thread"),
                ],
            ),
        ]
        submitted = proposal_for(
            user, new_url=new_url, image_url=image, today=today, unsupported_quote=unsupported_quote
        )
        if proposal is not None:
            submitted = proposal(submitted)
        undeclared = _undeclared(request, submitted) if strict_schema else []
        if undeclared:  # a strict tool cannot carry a field its schema does not declare
            return error_reply(
                400,
                "invalid_request_error",
                "submit_proposal input has fields its schema does not declare: "
                + ", ".join(undeclared),
            )
        finish_blocks = [
            server_tool_use("web_fetch", {"url": new_url}, fetch_id),
            fetch_result(
                fetch_id,
                new_url,
                "Latest developments",
                FETCHED_TEXT,
            ),
            text(
                "A new report covers the latest developments.",
                [_search_citation(new_url, "Latest developments", "The latest developments")],
            ),
            tool_use("submit_proposal", submitted),
        ]
        continuing = any(m.get("role") == "assistant" for m in request.messages)
        out = 300 + len(json.dumps(submitted)) // 4
        paused = _searches_so_far(request)
        may_pause = paused > 0 or not continuing  # not once the history was compacted
        if may_pause and paused < max(pauses, 1 if pause_after_search else 0):
            if paused:  # a later search, under its own id
                search_blocks[1] = {**search_blocks[1], "id": f"{search_id}_{paused}"}
                search_blocks[2] = {**search_blocks[2], "tool_use_id": f"{search_id}_{paused}"}
            return Reply(
                message=message(
                    search_blocks,
                    "pause_turn",
                    model=model,
                    input_tokens=body_tokens,
                    output_tokens=120,
                    searches=1,
                )
            )
        blocks = finish_blocks if continuing else search_blocks + finish_blocks
        return Reply(
            message=message(
                blocks,
                "tool_use",
                model=model,
                input_tokens=body_tokens * (2 if continuing else 3),
                output_tokens=out,
                searches=0 if continuing else 1,
                fetches=1,
            )
        )

    return respond


def _searches_so_far(request: MockRequest) -> int:
    """How many web searches the assistant turns of ``request`` already hold."""
    return sum(
        1
        for m in request.messages
        if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict)
        and b.get("type") == "server_tool_use"
        and b.get("name") == "web_search"
    )


# --------------------------------------------------------------------------- faults
def endless_pause() -> Callable[[MockRequest], Reply]:
    """Every answer stops at ``pause_turn`` (a server loop that never finishes)."""

    def respond(request: MockRequest) -> Reply:
        block_id = f"srvtoolu_mock_{len(request.messages)}"
        return Reply(
            message=message(
                [
                    server_tool_use("web_search", {"query": "more"}, block_id),
                    search_result(block_id, [("https://example.org/x", "X")]),
                ],
                "pause_turn",
                input_tokens=2000,
                output_tokens=50,
                searches=1,
            )
        )

    return respond


def then(first: Reply, responder: Callable[[MockRequest], Reply]) -> Script:
    """``first`` once, then ``responder`` for every later request."""
    return Script([first, responder], repeat_last=True)
