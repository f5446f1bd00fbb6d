"""The Anthropic backend against the loopback mock: the research turn and every fault.

In each failure the error says what happened and the cost so far; nothing is returned."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from oo_nb.agent.backends.conversation import AgentSettings
from oo_nb.agent.budget import Budget
from oo_nb.agent.context import build_context
from oo_nb.agent.pricing import price_for
from oo_nb.errors import AgentError, BudgetExceeded
from oo_nb.format.document import Document
from tests.support.agent_helpers import CORPUS, TODAY, backend, run_backend, start_mock
from tests.support.bad_text import deep_list
from tests.support.mock_api import MockRequest, Reply, Script, error_reply, message
from tests.support.mock_scenarios import (
    endless_pause,
    proposal_for,
    research_scenario,
    search_result,
    server_tool_use,
    text,
    tool_use,
)

NEW_URL = "https://news.example.com/agi-declared/latest-developments"


def good_proposal() -> dict[str, Any]:
    return {
        "summary": "ok",
        "sections": [{"id": "recent", "title": "Recent", "html": "<p>New [s20].</p>"}],
        "sources": [
            {
                "id": "s20",
                "url": NEW_URL,
                "title": "Latest",
                "tier": "news",
                "accessed": "2026-11-29",
            }
        ],
    }


def submit(payload: Any = None, **usage: int) -> dict[str, Any]:
    return message(
        [tool_use("submit_proposal", payload if payload is not None else good_proposal())],
        "tool_use",
        **usage,
    )


def only_tools(req: MockRequest) -> list[str]:
    return [t["name"] for t in req.body["tools"]]


def test_research_turn_collects_urls_and_configures_tools() -> None:
    mock = start_mock()
    mock.responder = research_scenario(base_url=lambda: mock.base_url)
    try:
        proposal, run, budget = run_backend(backend(mock))
    finally:
        mock.stop()
    assert proposal.sections[0].id == "recent-developments" and proposal.sources[0].url == NEW_URL
    assert {NEW_URL, "https://www.example.org/background"} <= run.seen_urls
    assert "https://reddit.com/r/none" not in run.seen_urls  # denied: dropped from the answer
    assert (run.requests, run.usage.web_searches, run.usage.web_fetches) == (1, 1, 1)
    assert run.cost_usd == pytest.approx(budget.spent_usd) and run.cost_usd > 0
    (req,) = mock.message_requests
    body = req.body
    search, fetch, sub = body["tools"]
    # the deny list is enforced on the answers (deny_filter), not in the shared tool definitions
    assert search["type"] == "web_search_20250305" and "blocked_domains" not in search
    assert (
        search["max_uses"] >= 1
        and fetch["type"] == "web_fetch_20250910"
        and fetch["citations"] == {"enabled": True}
    )
    assert (
        sub["name"] == "submit_proposal"
        and sub["strict"] is True
        and sub["input_schema"]["additionalProperties"] is False
    )
    assert "tool_choice" not in body and "temperature" not in body
    system = "".join(b["text"] for b in body["system"])  # blocks: the cached head, the rest
    assert body["model"] == "claude-sonnet-5-5" and "submit_proposal" in system
    assert "Never use these domains (they are blocked): reddit.com, quora.com." in system


def test_pause_turn_is_continued_in_the_same_assistant_turn() -> None:
    mock = start_mock(research_scenario(pause_after_search=True))
    try:
        _, run, _ = run_backend(backend(mock))
    finally:
        mock.stop()
    _first, second = mock.message_requests
    assert run.requests == 2
    assert [m["role"] for m in second.body["messages"]] == ["user", "assistant"]
    assert any(b["type"] == "web_search_tool_result" for b in second.body["messages"][1]["content"])


def test_endless_pause_turn_ends_in_a_compact_wrapup_without_tools() -> None:
    pausing = endless_pause()

    def responder(req: MockRequest) -> Reply:
        return Reply(message=submit()) if only_tools(req) == ["submit_proposal"] else pausing(req)

    mock = start_mock(responder)
    try:
        proposal, run, _ = run_backend(backend(mock, max_continuations=2))
    finally:
        mock.stop()
    reqs = mock.message_requests
    assert len(reqs) == 4 and proposal.summary == "ok"
    last = reqs[-1].body
    assert only_tools(reqs[-1]) == ["submit_proposal"]
    blocks = [b for m in last["messages"] if m["role"] == "assistant" for b in m["content"]]
    assert blocks and all(
        b["type"] in ("text", "tool_use") for b in blocks
    )  # server blocks compacted
    assert "Stop researching" in str(last["messages"][-1]["content"])
    assert any("research stopped early" in w for w in run.warnings)


def test_missing_submit_is_asked_for_once() -> None:
    mock = start_mock([message([text("Here is my summary.")], "end_turn"), submit()])
    try:
        proposal, run, _ = run_backend(backend(mock))
    finally:
        mock.stop()
    assert proposal.summary == "ok" and run.requests == 2
    assert "without calling submit_proposal" in str(
        mock.message_requests[1].body["messages"][-1]["content"]
    )


def test_missing_submit_twice_fails_with_cost() -> None:
    mock = start_mock([message([text("a")], "end_turn"), message([text("b")], "end_turn")])
    try:
        with pytest.raises(
            AgentError, match=r"ended without calling submit_proposal.*cost so far \$0\.0\d+"
        ) as err:
            run_backend(backend(mock))
    finally:
        mock.stop()
    assert err.value.cost_usd > 0


def test_malformed_submit_gets_one_correction_round() -> None:
    mock = start_mock([submit({"summary": "no sections"}), submit()])
    try:
        proposal, _, _ = run_backend(backend(mock))
    finally:
        mock.stop()
    retry = mock.message_requests[1].body
    result = retry["messages"][-1]["content"][0]
    assert (
        result["type"] == "tool_result"
        and result["is_error"] is True
        and "sections" in result["content"]
    )
    assert only_tools(mock.message_requests[1]) == ["submit_proposal"]
    assert proposal.summary == "ok"


def test_malformed_submit_twice_names_the_field() -> None:
    bad = {"summary": "x", "sections": [{"id": "a", "title": 3, "html": "<p/>"}]}
    mock = start_mock([submit(bad), submit(bad)])
    try:
        with pytest.raises(AgentError, match=r"invalid again.*sections\[0\]\.title"):
            run_backend(backend(mock))
    finally:
        mock.stop()


@pytest.mark.parametrize(
    ("stop", "pattern"),
    [
        ("refusal", "declined"),
        ("max_tokens", "cut off at max_tokens"),
        ("model_context_window_exceeded", "context window"),
    ],
)
def test_stop_reasons_that_end_the_run(stop: str, pattern: str) -> None:
    mock = start_mock([message([text("partial")], stop)])
    try:
        with pytest.raises(AgentError, match=pattern) as err:
            run_backend(backend(mock))
    finally:
        mock.stop()
    assert "cost so far $" in str(err.value) and err.value.cost_usd > 0


def test_429_with_retry_after_ms_is_retried_by_the_sdk() -> None:
    mock = start_mock(
        [error_reply(429, "rate_limit_error", "slow down", retry_after_ms=20), submit()]
    )
    try:
        proposal, run, _ = run_backend(backend(mock, retries=2))
    finally:
        mock.stop()
    assert proposal.summary == "ok" and len(mock.message_requests) == 2 and run.requests == 1


@pytest.mark.parametrize(("status", "kind"), [(529, "overloaded_error"), (500, "api_error")])
def test_server_errors_fail_after_the_sdk_retries(status: int, kind: str) -> None:
    mock = start_mock(
        Script([error_reply(status, kind, "busy", retry_after_ms=5)], repeat_last=True)
    )
    try:
        with pytest.raises(
            AgentError,
            match=rf"API error {status} \({kind}\): busy, after 2 retries \(cost so far \$0\.0000\)",
        ):
            run_backend(backend(mock, retries=2))
    finally:
        mock.stop()
    assert len(mock.message_requests) == 3


def test_timeout() -> None:
    mock = start_mock([Reply(message=submit(), fault="hang")])
    try:
        with pytest.raises(AgentError, match="did not answer in time"):
            run_backend(backend(mock, retries=0, timeout=0.3))
    finally:
        mock.stop()


def test_connection_reset_then_recovery_and_failure() -> None:
    mock = start_mock([Reply(message=submit(), fault="reset"), submit()])
    try:
        proposal, _, _ = run_backend(backend(mock, retries=1))
        assert proposal.summary == "ok"
    finally:
        mock.stop()
    mock = start_mock([Reply(message=submit(), fault="reset")])
    try:
        with pytest.raises(AgentError, match="cannot reach the API"):
            run_backend(backend(mock, retries=0))
    finally:
        mock.stop()


def test_error_event_mid_stream_is_not_retried_and_its_usage_is_counted() -> None:
    mock = start_mock([Reply(message=submit(input_tokens=200_000), fault="stream_error"), submit()])
    try:
        with pytest.raises(
            AgentError, match=r"stream broke off with an error event \(overloaded_error"
        ) as err:
            run_backend(backend(mock, retries=2, stream=True))
    finally:
        mock.stop()
    assert len(mock.message_requests) == 1
    # message_start reported 200,000 input tokens ($0.40) before the error, and the output and
    # searches were never reported: the request's bound is charged, at least what was reported
    assert err.value.cost_usd >= 0.40
    assert (
        "usage unknown (stream ended by an error event): charged the bound $" in err.value.message
    )
    assert f"cost so far ${err.value.cost_usd:.4f}" in err.value.message


def test_budget_too_small_for_any_research_sends_nothing() -> None:
    mock = start_mock([submit()])
    try:
        with pytest.raises(BudgetExceeded, match=r"budget reached.*\$0\.0000") as err:
            run_backend(backend(mock), budget_usd=0.05)
    finally:
        mock.stop()
    assert mock.message_requests == []
    # the message gives the real minimum: the smallest research request plus its wrap-up
    need = re.search(r"a budget of at least \$(\d+\.\d\d)", str(err.value))
    assert need is not None and "kept for its wrap-up" in str(err.value)
    mock = start_mock([submit()])
    try:
        proposal, _run, budget = run_backend(backend(mock), budget_usd=float(need.group(1)))
    finally:
        mock.stop()
    assert proposal.summary == "ok" and budget.spent_usd <= float(need.group(1))
    first = mock.message_requests[0]
    assert "web_search" in only_tools(first) or "web_fetch" in only_tools(first)
    assert (
        first.body["max_tokens"] < AgentSettings(model="m").max_tokens
    )  # fewer output tokens, not refused


def test_budget_nearly_spent_asks_for_the_submission_without_tools() -> None:
    block = "srvtoolu_1"
    pause = message(
        [
            server_tool_use("web_search", {"query": "q"}, block),
            search_result(block, [(NEW_URL, "Latest")]),
        ],
        "pause_turn",
        input_tokens=120_000,
        searches=1,
    )
    mock = start_mock([pause, submit()])
    try:
        proposal, run, budget = run_backend(backend(mock), budget_usd=0.5)
    finally:
        mock.stop()
    assert proposal.summary == "ok"
    assert only_tools(mock.message_requests[1]) == ["submit_proposal"]
    assert budget.spent_usd <= 0.5 and not run.overspent
    assert NEW_URL in run.seen_urls


def test_usage_beyond_the_bound_marks_the_run_overspent() -> None:
    mock = start_mock([submit(input_tokens=400_000)])
    try:
        _, run, budget = run_backend(backend(mock), budget_usd=0.5)
    finally:
        mock.stop()
    assert run.overspent and budget.spent_usd > 0.5
    assert any("more than its bound" in w for w in run.warnings)


def test_overspent_without_a_proposal_stops() -> None:
    block = "srvtoolu_1"
    pause = message(
        [
            server_tool_use("web_search", {"query": "q"}, block),
            search_result(block, [(NEW_URL, "L")]),
        ],
        "pause_turn",
        input_tokens=400_000,
    )
    mock = start_mock([pause, submit()])
    try:
        with pytest.raises(BudgetExceeded, match="more usage than bounded") as err:
            run_backend(backend(mock), budget_usd=0.5)
    finally:
        mock.stop()
    assert err.value.cost_usd > 0.5 and len(mock.message_requests) == 1


def test_async_backend_runs_the_same_conversation() -> None:
    mock = start_mock(research_scenario(pause_after_search=True))
    try:
        b = backend(mock)
        doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")
        ctx = build_context(doc, today=TODAY)
        budget = Budget(1.5, price_for(b.model))
        run = b.new_run(1.5)
        from oo_nb.agent.proposal import validate_proposal

        proposal = asyncio.run(b.arun(ctx, budget=budget, run=run, validate=validate_proposal))
    finally:
        mock.stop()
    assert run.requests == 2 and proposal.sources[0].id == "s10"
    assert mock.message_requests[0].headers["x-stainless-async"].startswith("async:")


def test_scenario_proposal_has_exactly_the_issue_shape() -> None:
    ctx = build_context(Document.read(CORPUS / "agi-declared.o-o.html"), today=TODAY)
    p = proposal_for(ctx.user, new_url=NEW_URL, image_url="https://example.org/x.png", today=TODAY)
    assert set(p) == {
        "summary",
        "sections",
        "sources",
        "drop_sources",
        "facts",
        "images",
        "sentinel",
    }
    assert set(p["sections"][0]) == {"id", "title", "html"} and set(p["sources"][0]) == {
        "id",
        "url",
        "title",
        "tier",
        "accessed",
    }
    assert set(p["images"][0]) == {"url", "page_url", "caption", "alt", "layout"} and set(
        p["sentinel"]
    ) == {"status", "evidence"}
    assert p["drop_sources"] == ["s7"]  # s7 is in the cache but never cited


def test_compacted_paused_turn_is_not_left_as_a_prefill() -> None:
    """The budget drops the fetch tool while the paused turn holds a fetch: history is compacted
    and a user message follows it (a compacted assistant turn must not be sent as a prefill)."""
    block = "srvtoolu_f"
    paused = message(
        [
            server_tool_use("web_fetch", {"url": NEW_URL}, block),
            {
                "type": "web_fetch_tool_result",
                "tool_use_id": block,
                "content": {
                    "type": "web_fetch_result",
                    "url": NEW_URL,
                    "content": {
                        "type": "document",
                        "title": "T",
                        "source": {
                            "type": "text",
                            "media_type": "text/plain",
                            "data": "body " * 10,
                        },
                    },
                },
            },
        ],
        "pause_turn",
        input_tokens=60_000,
        fetches=1,
    )
    mock = start_mock([paused, submit()])
    try:
        proposal, run, _ = run_backend(backend(mock), budget_usd=0.5)
    finally:
        mock.stop()
    second = mock.message_requests[1].body
    assert "web_fetch" not in only_tools(mock.message_requests[1])
    assert second["messages"][-1]["role"] == "user" and "Continue where you stopped" in str(
        second["messages"][-1]["content"]
    )
    assert "Fetched " + NEW_URL in str(second["messages"][1]["content"])
    assert proposal.summary == "ok" and NEW_URL in run.seen_urls


def test_model_resolution_order_and_family_names(monkeypatch: pytest.MonkeyPatch) -> None:
    from oo_nb.agent.backends.anthropic import DEFAULT_MODEL, resolve_model

    monkeypatch.delenv("OO_MODEL", raising=False)
    assert resolve_model(None, None) == DEFAULT_MODEL
    assert (
        resolve_model("sonnet", "claude-opus-5-5") == "claude-sonnet-5-5"
    )  # the original's --model sonnet
    assert resolve_model(None, "Opus") == "claude-opus-5-5"
    monkeypatch.setenv("OO_MODEL", "haiku")
    assert resolve_model(None, None) == "claude-haiku-5-5"
    assert (
        resolve_model(None, "claude-sonnet-4-6") == "claude-sonnet-4-6"
    )  # the contract wins over OO_MODEL
    assert resolve_model("claude-fable-5-2", None) == "claude-fable-5-2"


@pytest.mark.parametrize("concurrent", [False, True])
def test_a_stream_cut_mid_body_is_a_clear_error_and_its_usage_is_counted(concurrent: bool) -> None:
    import asyncio

    from oo_nb.agent.budget import Budget
    from oo_nb.agent.context import build_context
    from oo_nb.agent.pricing import price_for
    from oo_nb.agent.proposal import validate_proposal
    from oo_nb.format.document import Document
    from tests.support.agent_helpers import CORPUS, TODAY

    mock = start_mock([Reply(message=submit(input_tokens=200_000), fault="truncate")])
    try:
        b = backend(mock, stream=True)
        ctx = build_context(Document.read(CORPUS / "agi-declared.o-o.html"), today=TODAY)
        budget, run = Budget(5.0, price_for(b.model)), b.new_run(5.0)
        with pytest.raises(AgentError, match="connection was lost") as err:
            if concurrent:
                asyncio.run(b.arun(ctx, budget=budget, run=run, validate=validate_proposal))
            else:
                b.run(ctx, budget=budget, run=run, validate=validate_proposal)
    finally:
        mock.stop()
    # at least message_start's 200,000 tokens ($0.40); its output is unknown: the bound is charged
    assert err.value.cost_usd >= 0.40 and "charged the bound" in err.value.message


@pytest.mark.parametrize("count", [None, "12", 1, True])
def test_an_unbelievable_token_count_is_ignored_with_a_warning(count: object) -> None:
    mock = start_mock([submit()])
    mock.count_tokens = lambda raw: count  # type: ignore[assignment,return-value]
    try:
        proposal, run, _ = run_backend(backend(mock))
    finally:
        mock.stop()
    assert proposal is not None
    assert any("not believable" in w for w in run.warnings), run.warnings


# --------------------------------------------------------------------------- hostile answers
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("depth", [60, 400])
def test_an_answer_nested_deep_is_one_line_with_its_cost(stream: bool, depth: int) -> None:
    """~400 deep ended in pydantic's "Maximum serialization depth exceeded" (a traceback, the
    cost never reported). Now one line, the place named where it can be, the cost counted."""
    payload = good_proposal()
    payload["sources"][0]["title"] = deep_list(depth)
    mock = start_mock([submit(payload, input_tokens=10_000, output_tokens=500)])
    try:
        with pytest.raises(AgentError) as err:
            run_backend(backend(mock, stream=stream))
    finally:
        mock.stop()
    text = str(err.value)
    assert "\n" not in text and text.startswith("the API's answer could not be read")
    cost = f"(cost so far ${err.value.cost_usd:.4f})"
    if stream and depth == 400:  # the SDK stopped reading before the final usage: the bound
        assert (
            "nothing was proposed; usage unknown (stream unreadable): charged the bound $" in text
        )
        assert text.endswith(cost)
    else:
        assert text.endswith(f"nothing was proposed {cost}")
    assert err.value.cost_usd > 0 and len(mock.message_requests) == 1  # no correction round
    if not stream or depth == 60:  # the stream parser of the SDK gives up past ~250 levels
        assert "content[0] (tool_use submit_proposal) is nested deeper than 32 levels" in text
        assert "at input.sources[0].title[0][0]" in text and text.count("…") == 1
    else:
        assert "its tool input: recursion limit exceeded" in text and "JSON:" not in text


def test_an_answer_nested_past_the_json_parser_is_one_line() -> None:
    body = json.dumps(submit({"summary": "DEEP"})).replace('"DEEP"', "[" * 50_000 + "]" * 50_000)
    mock = start_mock([Reply(body=body.encode())])
    try:
        with pytest.raises(AgentError, match=r"nested too deeply for the JSON parser\); nothing"):
            run_backend(backend(mock))
    finally:
        mock.stop()


def test_a_lone_surrogate_in_the_answer_keeps_the_paid_proposal() -> None:
    """ "\\ud800" in the answer crashed the sanitiser after the money was spent: the text is
    kept with U+FFFD, with a warning naming where."""
    payload = good_proposal()
    payload["sections"][0]["html"] = "<p>New \ud800 [s20].</p>"
    search = search_result("srvtoolu_1", [(NEW_URL + "?\udcff", "Latest \udfff")])
    answer = message([search, tool_use("submit_proposal", payload)], "tool_use")
    mock = start_mock([answer])
    try:
        proposal, run, _ = run_backend(backend(mock))
    finally:
        mock.stop()
    assert proposal.sections[0].html == "<p>New \ufffd [s20].</p>"
    assert any(
        "not valid Unicode" in w and "content[1].input.sections[0].html" in w for w in run.warnings
    )
    assert NEW_URL + "?\ufffd" in run.seen_urls and run.cost_usd > 0


def test_a_lone_surrogate_in_a_stream_reports_the_cost() -> None:
    payload = good_proposal()
    payload["summary"] = "bad \ud800"
    mock = start_mock([submit(payload, input_tokens=10_000)])
    try:
        with pytest.raises(AgentError) as err:
            run_backend(backend(mock, stream=True))
    finally:
        mock.stop()
    # the SDK's stream parser refuses it (its words depend on where the chunks split)
    assert "could not be read (its tool input: " in str(err.value) and err.value.cost_usd > 0
    assert "\n" not in str(err.value) and "JSON:" not in str(err.value)
