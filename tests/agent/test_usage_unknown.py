"""A request whose usage is not known is charged its bound, never counted as free.

A 200 whose body is cut or is not a message, a stream that breaks off or cannot be read after
``message_start``, an answer without ``usage``: each was (or may have been) billed, by an
amount only the request's bound limits. The run charges that bound, says so, and the budget
counts it: a cut answer is tried again only while the rest of the budget covers it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.budget import Budget, RequestPlan
from oo_nb.agent.context import build_context
from oo_nb.agent.pricing import SEARCH_USD, price_for
from oo_nb.agent.proposal import validate_proposal
from oo_nb.cli.main import main
from oo_nb.errors import AgentError, BudgetExceeded
from oo_nb.format.document import Document
from tests.support.agent_helpers import CORPUS, MARKER, TODAY, backend, copy_doc, start_mock
from tests.support.mock_api import MockRequest, Reply, Script, message
from tests.support.mock_scenarios import search_result, server_tool_use, tool_use

MODEL = "claude-sonnet-5-5"


class PlannedBudget(Budget):
    """A budget that keeps the plan of every request it was charged for (sent requests)."""

    def _sent(self) -> None:
        assert self.last_plan is not None
        self.__dict__.setdefault("plans", []).append(self.last_plan)

    def record(self, usage: Any) -> float:
        self._sent()
        return super().record(usage)

    def record_unknown(self, reported: Any = None) -> float:
        self._sent()
        return super().record_unknown(reported)

    @property
    def plans(self) -> list[RequestPlan]:
        return list(self.__dict__.get("plans", []))


def submit(**usage: int) -> dict[str, Any]:
    payload = {
        "summary": "ok",
        "sections": [{"id": "recent", "title": "Recent", "html": "<p>New.</p>"}],
    }
    return message([tool_use("submit_proposal", payload)], "tool_use", **usage)


def half_body() -> Reply:
    data = json.dumps(submit()).encode()
    return Reply(body=data[: len(data) // 2])  # a complete HTTP answer: 200, half a message


CUTS: dict[str, tuple[Reply, bool, str]] = {
    "200 with half a body": (half_body(), False, "answer unreadable"),
    "200 cut mid-body": (Reply(message=submit(), fault="truncate"), False, "answer cut"),
    "200 with a JSON list": (Reply(body=b"[1]"), False, "answer unreadable"),
    "stream cut after message_start": (
        Reply(message=submit(), fault="truncate"),
        True,
        "stream cut",
    ),
    "stream the SDK refuses after message_start": (
        Reply(message=submit(), fault="stream_garbage"),
        True,
        "stream unreadable",
    ),
    "stream that is not SSE": (Reply(body=b"<html>proxy error</html>"), True, "stream unreadable"),
}


def run_with(
    b: Any, budget: Budget, *, concurrent: bool = False
) -> tuple[Any, Any]:  # (proposal, run)
    ctx = build_context(Document.read(CORPUS / "agi-declared.o-o.html"), today=TODAY)
    run = b.new_run(budget.limit_usd)
    if concurrent:
        return asyncio.run(b.arun(ctx, budget=budget, run=run, validate=validate_proposal)), run
    return b.run(ctx, budget=budget, run=run, validate=validate_proposal), run


def floor_of(request: MockRequest) -> float:
    """What the request could cost at least if it used what it was allowed: its output
    allowance and its searches (the bound adds the input of every tool pass)."""
    price = price_for(MODEL)
    searches = sum(t.get("max_uses", 0) for t in request.body["tools"] if t["name"] == "web_search")
    return request.body["max_tokens"] * price.output / 1e6 + searches * SEARCH_USD


@pytest.mark.parametrize("concurrent", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("case", list(CUTS))
def test_a_lost_answer_is_charged_its_bound_and_says_so(case: str, concurrent: bool) -> None:
    reply, stream, what = CUTS[case]
    mock = start_mock([reply])
    budget = PlannedBudget(5.0, price_for(MODEL))
    try:
        with pytest.raises(AgentError) as err:
            run_with(backend(mock, stream=stream), budget, concurrent=concurrent)
    finally:
        mock.stop()
    (request,) = mock.message_requests  # not sent again: no retries were allowed
    (plan,) = budget.plans
    assert plan.bound_usd >= floor_of(request) > 0.05
    assert err.value.cost_usd == pytest.approx(plan.bound_usd)  # the bound, not $0
    assert f"usage unknown ({what}): charged the bound ${plan.bound_usd:.4f}" in str(err.value)
    assert f"cost so far ${plan.bound_usd:.4f}" in str(err.value)


def test_a_stream_cut_after_more_than_its_bound_was_reported_charges_what_was_reported() -> None:
    # scripted usage as it is (no cache figures): the test is about what was reported
    mock = start_mock(
        [Reply(message=submit(input_tokens=900_000), fault="truncate")], prompt_cache=False
    )
    budget = PlannedBudget(5.0, price_for(MODEL))
    try:
        with pytest.raises(AgentError) as err:
            run_with(backend(mock, stream=True), budget)
    finally:
        mock.stop()
    (plan,) = budget.plans
    assert plan.bound_usd < 1.80  # 900k input tokens at $2/M reported before the cut
    assert err.value.cost_usd == pytest.approx(1.80, abs=0.001)


def test_a_cut_answer_is_tried_again_and_both_are_counted() -> None:
    mock = start_mock([Reply(message=submit(), fault="truncate"), submit()], prompt_cache=False)
    budget = PlannedBudget(5.0, price_for(MODEL))
    try:
        proposal, run = run_with(backend(mock, retries=1), budget)
    finally:
        mock.stop()
    assert proposal.summary == "ok" and len(mock.message_requests) == 2
    first, _ = budget.plans
    answered = 1000 * 2.0 / 1e6 + 200 * 10.0 / 1e6  # the second answer's usage
    assert run.cost_usd == pytest.approx(first.bound_usd + answered)
    assert run.requests == 2
    assert any("usage unknown (answer cut): charged the bound" in w for w in run.warnings)
    assert any("trying again" in w for w in run.warnings)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_cut_answers_are_tried_again_only_while_the_budget_covers_them(stream: bool) -> None:
    mock = start_mock(Script([Reply(message=submit(), fault="truncate")], repeat_last=True))
    budget = PlannedBudget(2.0, price_for(MODEL))
    try:
        with pytest.raises(BudgetExceeded, match="budget reached") as err:
            run_with(backend(mock, retries=50, stream=stream), budget)
    finally:
        mock.stop()
    sent = len(mock.message_requests)
    assert sent >= 2 and sent == len(budget.plans)
    assert err.value.cost_usd == pytest.approx(sum(p.bound_usd for p in budget.plans))
    assert err.value.cost_usd <= 2.0


def test_answers_without_usage_are_charged_and_the_budget_stops_the_run() -> None:
    def no_usage(request: MockRequest) -> Reply:
        block = f"srvtoolu_{len(request.messages)}"
        content = [
            server_tool_use("web_search", {"query": "more"}, block),
            search_result(block, [("https://example.org/x", "X")]),
        ]
        reply = message(content, "pause_turn")
        del reply["usage"]
        return Reply(message=reply)

    mock = start_mock(no_usage)
    budget = PlannedBudget(1.5, price_for(MODEL))
    try:
        with pytest.raises(AgentError) as err:
            run_with(backend(mock), budget)
    finally:
        mock.stop()
    assert "budget reached" in str(err.value)
    assert "usage unknown for " in str(err.value) and "charged their bound" in str(err.value)
    sent = len(mock.message_requests)
    assert sent >= 2 and sent == len(budget.plans)
    assert err.value.cost_usd == pytest.approx(sum(p.bound_usd for p in budget.plans))
    assert 0 < err.value.cost_usd <= 1.5


def test_the_cli_reports_the_bound_not_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mock = start_mock([half_body()])
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    try:
        path = copy_doc(tmp_path)
        before = path.read_bytes()
        args = ["update", str(path), "--force", "--yes", "--base-url", mock.base_url]
        assert main([*args, "--budget", "2"]) == 2
    finally:
        mock.stop()
    err = capsys.readouterr().err
    assert "usage unknown (answer unreadable): charged the bound $" in err
    assert "$0.0000" not in err and path.read_bytes() == before
