"""The mock's prompt cache against the API's rules (the notes, "Prompt caching"): a write is
readable only once its request's response has begun; each breakpoint looks back 20 blocks; a
prefix under the model's minimum is not cached; tools, system, tool_choice and messages are in the
key in the API's order."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.support.agent_helpers import MARKER
from tests.support.mock_api import MockAPI, Reply, message
from tests.support.mock_cache import PromptCache

MARK = {"type": "ephemeral"}


def text(n_tokens: int, fill: str = "x", *, marked: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": fill * (n_tokens * 4)}
    return {**block, "cache_control": MARK} if marked else block


def request(
    blocks: list[dict[str, Any]],
    *,
    model: str = "claude-sonnet-5-5",
    tools: list[dict[str, Any]] | None = None,
    system: list[dict[str, Any]] | None = None,
    tool_choice: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": blocks}]}
    if tools is not None:
        body["tools"] = tools
    if system is not None:
        body["system"] = system
    if tool_choice is not None:
        body["tool_choice"] = tool_choice
    return body


def test_a_write_is_readable_only_once_its_response_has_begun() -> None:
    cache = PromptCache()
    body = request([text(2000, marked=True)])
    first = cache.reserve(body)
    assert first is not None and first.read == 0 and first.written > 2000
    # a concurrent request arriving before the first response begins writes again
    second = cache.reserve(body)
    assert second is not None and (second.read, second.written) == (0, first.written)
    cache.publish(first)
    third = cache.reserve(body)
    assert third is not None and (third.read, third.written) == (first.written, 0)


def test_a_breakpoint_finds_an_entry_up_to_20_blocks_before_it() -> None:
    cache = PromptCache()
    head = [text(1500, "h", marked=True)]
    written = cache.account(request(head))
    assert written is not None and written[1] > 0
    within = head[:1] + [text(5, str(i)) for i in range(19)] + [text(5, "z", marked=True)]
    within[0] = text(1500, "h")  # the mark moved 20 blocks later: the look-back finds it
    got = cache.account(request(within))
    assert got is not None and got[0] == written[1]
    beyond = [text(1500, "h")] + [text(5, str(i)) for i in range(20)] + [text(5, "z", marked=True)]
    got = cache.account(request(beyond))  # 21 blocks later: out of reach, written anew
    assert got is not None and got[0] == 0 and got[1] > written[1]


def test_the_minimum_prefix_depends_on_the_model() -> None:
    cache = PromptCache()
    for model, tokens, cached in [
        ("claude-sonnet-5-5", 1000, False),
        ("claude-sonnet-5-5", 1100, True),
        ("claude-opus-5-5", 1100, True),
        ("claude-haiku-5-5", 1500, False),
        ("claude-haiku-5-5", 2100, True),
        ("claude-haiku-4-5", 3000, False),
        ("claude-haiku-4-5", 4200, True),
    ]:
        got = cache.account(request([text(tokens, model[-3], marked=True)], model=model))
        assert got is not None and (got[1] > 0) is cached, (model, tokens)


def test_tools_system_and_tool_choice_are_in_the_key_in_the_apis_order() -> None:
    cache = PromptCache()
    tools = [{"name": "search", "description": "d" * 4000}]
    system = [text(600, "s", marked=True)]
    doc = [text(2000, "d", marked=True)]
    auto = {"type": "auto"}
    first = cache.account(request(doc, tools=tools, system=system, tool_choice=auto))
    assert first is not None and first[0] == 0
    to_system = cache.account(request([text(10, "q")], tools=tools, system=system))
    assert to_system is not None
    # tool_choice keys the messages only: tools + system are still read
    other_choice = cache.account(
        request(doc, tools=tools, system=system, tool_choice={"type": "any"})
    )
    assert other_choice is not None and 0 < other_choice[0] == to_system[0] < first[1]
    # other tools change the prefix from its first block: nothing is read
    other_tools = [{"name": "search", "description": "e" * 4000}]
    changed = cache.account(request(doc, tools=other_tools, system=system, tool_choice=auto))
    assert changed is not None and changed[0] == 0
    # the same again reads the whole marked prefix
    again = cache.account(request(doc, tools=tools, system=system, tool_choice=auto))
    assert again == (first[1], 0)


def post(base_url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base_url + "/v1/messages",
        data=json.dumps(body).encode(),
        headers={"x-api-key": MARKER, "content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        usage: dict[str, Any] = json.loads(resp.read())["usage"]
        return usage


def test_over_http_concurrent_requests_write_and_a_later_one_reads() -> None:
    """Two requests in flight together (the mock waits before answering) both write; the one
    sent after their responses began reads."""
    reply = Reply(message=message([{"type": "text", "text": "ok"}], input_tokens=5000))
    with MockAPI(lambda _: reply, api_key=MARKER, latency=0.3) as mock:
        body = request([text(2000, marked=True)])
        with ThreadPoolExecutor(2) as pool:
            together = list(pool.map(lambda _: post(mock.base_url, body), range(2)))
        later = post(mock.base_url, body)
    assert [u["cache_read_input_tokens"] for u in together] == [0, 0]
    assert all(u["cache_creation_input_tokens"] > 2000 for u in together)
    assert later["cache_read_input_tokens"] == together[0]["cache_creation_input_tokens"]
    assert later["cache_creation_input_tokens"] == 0


def test_over_http_a_request_whose_connection_breaks_writes_nothing_readable() -> None:
    replies = [Reply(fault="reset"), Reply(message=message([], input_tokens=5000))] * 2
    script = iter(replies)
    with MockAPI(lambda _: next(script), api_key=MARKER) as mock:
        body = request([text(2000, marked=True)])
        with pytest.raises((urllib.error.URLError, ConnectionError, http.client.HTTPException)):
            post(mock.base_url, body)
        after_reset = post(mock.base_url, body)
    assert after_reset["cache_read_input_tokens"] == 0  # the broken response never began
    assert after_reset["cache_creation_input_tokens"] > 2000
