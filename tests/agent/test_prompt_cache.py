"""Prompt caching: where the breakpoints go, how the mock reports cache use (as the API does),
what a cached run costs and records, and the budget bound with cache writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.backends.cache_points import (
    min_cacheable_tokens,
    shared_system_head,
    with_breakpoints,
)
from oo_nb.agent.backends.conversation import SUBMIT_TOOL, AgentSettings, Conversation
from oo_nb.agent.backends.follow_ups import FollowUps
from oo_nb.agent.budget import Budget
from oo_nb.agent.context import build_context
from oo_nb.agent.many import update_library
from oo_nb.agent.pricing import UsageFigures, cost_usd, price_for
from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from tests.support.agent_helpers import (
    CORPUS,
    MARKER,
    TODAY,
    backend,
    copy_doc,
    run_backend,
    start_mock,
)
from tests.support.mock_api import MockAPI, message
from tests.support.mock_cache import CacheRefusal, PromptCache
from tests.support.mock_scenarios import research_scenario, search_result, server_tool_use

SONNET = price_for("claude-sonnet-5-5")


def marks(params: dict[str, Any]) -> list[str]:
    """Where the cache_control marks of a request are, in prefix order."""
    out = [f"tool {t['name']}" for t in params.get("tools", []) if "cache_control" in t]
    system = params.get("system")
    if isinstance(system, list):
        out += [f"system {i}" for i, b in enumerate(system) if "cache_control" in b]
    for n, m in enumerate(params.get("messages", [])):
        content = m["content"]
        if isinstance(content, list):
            out += [f"message {n} block {i}" for i, b in enumerate(content) if "cache_control" in b]
    return out


def conversation(**settings: Any) -> Conversation:
    ctx = build_context(Document.read(CORPUS / "agi-declared.o-o.html"), today=TODAY)
    return Conversation(
        ctx,
        AgentSettings(model="claude-sonnet-5-5", **settings),
        Budget(5.0, SONNET),
        RunInfo(backend="t", model="claude-sonnet-5-5"),
        lambda x: x,
    )


# --------------------------------------------------------------------------- breakpoints
def test_first_request_marks_the_shared_system_head_and_the_document() -> None:
    conv = conversation()
    params = conv.next_request()
    # tools + head reach Sonnet's 1,024 tokens: one mark covers them (tools precede system)
    assert marks(params) == ["system 0", "message 0 block 0"]
    head, rest = params["system"]
    assert head["text"] == shared_system_head() and "cache_control" not in rest
    assert head["text"] + rest["text"] == conv.ctx.system  # the model reads the same prompt
    assert "SENTINEL" in rest["text"] and "SENTINEL" not in head["text"]
    assert conv.budget.cache_writes  # the bound prices the prompt as a cache write


def test_a_continuation_adds_the_tail_and_keeps_four_marks_at_most() -> None:
    conv = conversation()
    conv.next_request()
    conv.on_response(
        message(
            [
                server_tool_use("web_search", {"query": "q"}, "srv1"),
                search_result("srv1", [("https://example.com/a", "A")]),
            ],
            "pause_turn",
            searches=1,
        )
    )
    params = conv.next_request()
    assert marks(params) == [
        "system 0",
        "message 0 block 0",
        "message 1 block 1",  # the paused turn's last block: the next request reads up to it
    ]
    # the conversation itself carries no marks (a mark moves with the tail)
    assert "cache_control" not in json.dumps(conv.messages)
    assert "cache_control" not in json.dumps(conv._tools(conv.last_plan))  # type: ignore[arg-type]


def test_nothing_is_marked_that_no_later_request_can_read() -> None:
    """A one-request run (max_requests 1) marks only the shared prefix; so does a first request
    when the runs of its update-all rarely continued; a wrap-up request marks no messages."""
    one = conversation(max_requests=1).next_request()
    assert marks(one) == ["system 0"]
    odds = FollowUps()
    for _ in range(3):
        odds.record(1)
    conv = conversation()
    conv.follow_ups = odds
    assert marks(conv.next_request()) == ["system 0"]
    odds.record(2)  # 1 in 4 continued: under the break-even (0.25 / 0.95 for Sonnet 5.5)
    assert marks(conv.next_request()) == ["system 0"]
    odds.record(3)  # 2 in 5: over it
    assert marks(conv.next_request()) == ["system 0", "message 0 block 0"]
    wrapup = conversation()
    wrapup.next_request()
    wrapup.on_response(
        message([server_tool_use("web_search", {"query": "q"}, "s1")], "pause_turn", searches=1)
    )
    wrapup._enter_wrapup("test")
    params = wrapup.next_request()
    assert [t["name"] for t in params["tools"]] == ["submit_proposal"]
    assert all(m.startswith("system") for m in marks(params))


def test_a_prefix_under_the_models_minimum_is_not_marked() -> None:
    params = {
        "model": "claude-haiku-4-5",  # 4,096 tokens: tools + head (~1,200) are too short
        "tools": [{"name": "t"}],
        "system": shared_system_head() + "\n\n- the rest",
        "messages": [{"role": "user", "content": "doc"}],
    }
    assert marks(with_breakpoints(params)) == ["message 0 block 0"]
    sonnet = with_breakpoints({**params, "model": "claude-sonnet-5-5", "tools": [SUBMIT_TOOL]})
    assert marks(sonnet) == ["system 0", "message 0 block 0"]
    assert min_cacheable_tokens("claude-haiku-5-5") == 2048
    assert (
        min_cacheable_tokens("claude-opus-5-5") == min_cacheable_tokens("claude-fable-5-2") == 1024
    )
    assert min_cacheable_tokens("some-future-model") == 4096  # unknown: never a wasted mark


def test_marks_skip_blocks_that_cannot_carry_one() -> None:
    params = {
        "tools": [{"name": "t"}],
        "system": "not the shared head",
        "messages": [
            {"role": "user", "content": "doc"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "x"}, {"type": "thinking", "thinking": "y"}],
            },
        ],
    }
    out = with_breakpoints(params)
    assert marks(out) == ["message 0 block 0", "message 1 block 0"]
    assert params["messages"][0]["content"] == "doc"  # the input is not changed


def test_without_prompt_cache_no_marks_and_the_plain_bound() -> None:
    conv = conversation(prompt_cache=False)
    params = conv.next_request()
    assert marks(params) == [] and isinstance(params["system"], str)
    assert not conv.budget.cache_writes


# --------------------------------------------------------------------------- the mock's cache
def body(doc_tokens: int, *, model: str = "claude-sonnet-5-5", tail: str = "") -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "d" * (doc_tokens * 4),
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        }
    ]
    if tail:
        messages += [
            {
                "role": "assistant",
                "content": [{"type": "text", "text": tail, "cache_control": {"type": "ephemeral"}}],
            }
        ]
    return {"model": model, "system": "s", "messages": messages}


def test_mock_cache_writes_first_then_reads_longest_prefix() -> None:
    cache = PromptCache()
    first = cache.account(body(2000))
    assert first is not None and first[0] == 0 and first[1] >= 2000
    again = cache.account(body(2000))
    assert again == (first[1], 0)
    longer = cache.account(body(2000, tail="t" * 400))
    assert longer is not None and longer[0] == first[1] and longer[1] > 0


def test_mock_cache_minimum_length_model_and_expiry() -> None:
    now = [0.0]
    cache = PromptCache(clock=lambda: now[0])
    assert cache.account(body(500)) == (0, 0)  # below 1,024 tokens: silently not cached
    assert cache.account(body(1500, model="claude-haiku-5-5")) == (0, 0)  # Haiku needs more
    written = cache.account(body(1500))
    assert written is not None and written[1] > 0
    now[0] = 299.0
    assert cache.account(body(1500)) == (written[1], 0)  # a read refreshes the 5 minutes
    now[0] = 299.0 + 301.0
    assert cache.account(body(1500)) == (0, written[1])  # expired: written again
    assert cache.account({"model": "m", "messages": []}) is None  # no marks: no figures


def test_mock_refuses_more_than_four_marks_and_marked_empty_text() -> None:
    cache = PromptCache()
    mark = {"type": "ephemeral"}
    tools = [{"name": f"t{i}", "cache_control": mark} for i in range(5)]
    with pytest.raises(CacheRefusal, match="maximum of 4 blocks"):
        cache.account({"model": "m", "tools": tools, "messages": []})
    empty = {"role": "user", "content": [{"type": "text", "text": "", "cache_control": mark}]}
    with pytest.raises(CacheRefusal, match="empty text"):
        cache.account({"model": "m", "messages": [empty]})


# --------------------------------------------------------------------------- end to end
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_three_request_run_writes_then_reads_and_is_priced_as_reported(stream: bool) -> None:
    mock = start_mock(research_scenario(pauses=2, with_image=False))
    try:
        _, run, budget = run_backend(backend(mock, stream=stream))
        plain_mock = start_mock(research_scenario(pauses=2, with_image=False))
        try:
            _, plain, _ = run_backend(backend(plain_mock, stream=stream, prompt_cache=False))
        finally:
            plain_mock.stop()
    finally:
        mock.stop()
    assert run.requests == 3 and plain.requests == 3
    u = run.usage
    assert u.cache_creation_tokens > 0 and u.cache_read_tokens > 0
    assert plain.usage.cache_creation_tokens == plain.usage.cache_read_tokens == 0
    # the cost is the API's formula over what was reported, cache rates included
    assert run.cost_usd == pytest.approx(cost_usd(u, SONNET))
    assert budget.spent_usd == pytest.approx(run.cost_usd) and not run.overspent
    assert u.prompt_tokens == pytest.approx(plain.usage.prompt_tokens, rel=0.02)
    assert run.cost_usd < plain.cost_usd
    # the requests carried the marks; each later one read what the one before wrote
    sent = [r.body for r in mock.message_requests]
    assert all(1 <= len(marks(b)) <= 4 for b in sent)
    fields = run.changelog_fields()["tokens"]
    assert fields["cache_write"] == u.cache_creation_tokens
    assert fields["cache_read"] == u.cache_read_tokens


def test_the_changelog_entry_records_cache_use(tmp_path: Path) -> None:
    mock = start_mock(research_scenario(pauses=1, with_image=False))
    try:
        path = copy_doc(tmp_path)
        opts = UpdateOptions(
            force=True,
            agent="anthropic",
            api_key=MARKER,
            base_url=mock.base_url,
            download_images=False,
            budget_usd=5.0,
        )
        result = write_result(prepare_update(path, opts), yes=True)
    finally:
        mock.stop()
    assert result.written is not None
    entry = Document.read(path).block_json("oo-changelog")
    entries = entry["entries"] if isinstance(entry, dict) else entry
    tokens = entries[-1]["tokens"]
    assert tokens["cache_read"] > 0 and tokens["cache_write"] > 0
    assert entries[-1]["cost_usd"] == pytest.approx(round(result.run.cost_usd, 4))  # type: ignore[union-attr]


def test_update_all_documents_read_the_shared_prefix(tmp_path: Path) -> None:
    """One at a time, the second and later documents read tools + the shared system head that
    the first one wrote."""
    mock = start_mock(research_scenario(with_image=False))
    try:
        for name in (
            "agi-declared.o-o.html",
            "ai-model-landscape.o-o.html",
            "yc-w26-batch.o-o.html",
        ):
            copy_doc(tmp_path, name)
        opts = UpdateOptions(
            force=True,
            agent="anthropic",
            api_key=MARKER,
            base_url=mock.base_url,
            download_images=False,
            budget_usd=5.0,
        )
        out = update_library(tmp_path, opts, concurrency=1, progress=False)
    finally:
        mock.stop()
    assert not out.failures and len(out.results) == 3
    reads = [r.run.usage.cache_read_tokens for r in out.results if r.run is not None]
    assert sum(1 for n in reads if n > 0) == 2  # every document but the first


def test_mock_without_cache_keeps_scripted_usage() -> None:
    with MockAPI(research_scenario(with_image=False), api_key=MARKER, prompt_cache=False) as mock:
        _, run, _ = run_backend(backend(mock))
    assert run.usage.cache_read_tokens == run.usage.cache_creation_tokens == 0


# --------------------------------------------------------------------------- the bound
@pytest.mark.parametrize("searches,fetches", [(0, 0), (2, 1), (5, 3)])
def test_bound_covers_a_prompt_billed_as_a_cache_write(searches: int, fetches: int) -> None:
    """The worst a cached request can be billed: the whole prompt written, every extra pass at
    the input price, all output. The bound with cache writes covers it; the plain one does not."""
    prompt, out = 20_000, 4_000
    cached = Budget(5.0, SONNET, cache_writes=True)
    plain = Budget(5.0, SONNET)
    passes, context = prompt, prompt
    for g in sorted([11_000] * fetches + [6_000] * searches, reverse=True):
        context += g
        passes += context
    worst = UsageFigures(
        input_tokens=passes - prompt,
        cache_creation_tokens=prompt,
        output_tokens=out,
        web_searches=searches,
    )
    assert cost_usd(worst, SONNET) == pytest.approx(cached.bound(prompt, out, searches, fetches))
    assert cost_usd(worst, SONNET) > plain.bound(prompt, out, searches, fetches)
    read = UsageFigures(input_tokens=passes - prompt, cache_read_tokens=prompt, output_tokens=out)
    assert cost_usd(read, SONNET) < cached.bound(prompt, out, searches, fetches)


def test_update_all_stops_marking_documents_once_its_runs_end_after_one_request(
    tmp_path: Path,
) -> None:
    """The first document marks its context (a second request is common); once runs of this
    update-all end after one request, the next documents mark only the shared prefix."""
    mock = start_mock(research_scenario(with_image=False))
    try:
        for name in (
            "agi-declared.o-o.html",
            "ai-model-landscape.o-o.html",
            "yc-w26-batch.o-o.html",
        ):
            copy_doc(tmp_path, name)
        opts = UpdateOptions(
            force=True,
            agent="anthropic",
            api_key=MARKER,
            base_url=mock.base_url,
            download_images=False,
            budget_usd=5.0,
        )
        out = update_library(tmp_path, opts, concurrency=1, progress=False)
    finally:
        mock.stop()
    assert not out.failures
    sent = [marks(r.body) for r in mock.message_requests]
    assert sent == [
        ["system 0", "message 0 block 0"],
        ["system 0"],
        ["system 0"],
    ]


def test_follow_up_odds_against_the_break_even() -> None:
    odds = FollowUps()
    assert odds.likely(SONNET)  # nothing known yet: mark
    odds.record(0)  # a run that got no answer tells nothing
    assert odds.finished == 0
    odds.record(1)
    assert not odds.likely(SONNET)
    odds.record(4)
    assert odds.likely(SONNET)  # 1 in 2 continued
