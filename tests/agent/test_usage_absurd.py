"""Usage figures from the API are untrusted: a negative, string or non-integer cache count never
lowers the spend. Such an answer is charged its request's bound, like one without usage."""

from __future__ import annotations

from typing import Any

import pytest

from oo_nb.agent.backends.conversation import usage_known
from oo_nb.agent.pricing import price_for, usage_figures
from tests.agent.test_usage_unknown import MODEL, PlannedBudget, run_with, submit
from tests.support.agent_helpers import backend, start_mock

ABSURD: dict[str, dict[str, Any]] = {
    "negative cache read": {"cache_read_input_tokens": -(10**9)},
    "negative cache write": {"cache_creation_input_tokens": -(10**8)},
    "cache write as a float": {"cache_creation_input_tokens": 2.5},
    "negative searches": {"server_tool_use": {"web_search_requests": -1000}},
}
# the SDK turns a numeric string into its int (priced as such): only raw JSON keeps it a string
STRING = {"cache_read_input_tokens": "5000000"}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("case", list(ABSURD))
def test_absurd_cache_figures_are_charged_the_bound(case: str, stream: bool) -> None:
    reply = submit()
    reply["usage"].update(ABSURD[case])
    mock = start_mock([reply], prompt_cache=False)
    budget = PlannedBudget(2.0, price_for(MODEL))
    try:
        _proposal, run = run_with(backend(mock, stream=stream), budget)
    finally:
        mock.stop()
    (plan,) = budget.plans
    # was -$99.996 for a negative read: the spend went down and the budget grew
    assert run.cost_usd == pytest.approx(plan.bound_usd)
    assert budget.spent_usd == pytest.approx(plan.bound_usd) and run.requests == 1
    assert any("usage" in w and "charged the bound" in w for w in run.warnings)


def test_usage_known_reads_the_cache_and_tool_counts() -> None:
    base = {"input_tokens": 10, "output_tokens": 5}
    assert usage_known(base)
    assert usage_known({**base, "cache_read_input_tokens": None, "server_tool_use": None})
    assert usage_known({**base, "cache_read_input_tokens": 7, "cache_creation_input_tokens": 0})
    for extra in [*ABSURD.values(), STRING]:
        assert not usage_known({**base, **extra})


@pytest.mark.parametrize("value", [-5, -0.5, float("nan"), float("inf"), "9", True])
def test_a_count_is_never_negative(value: object) -> None:
    figures = usage_figures({"input_tokens": 1, "cache_read_input_tokens": value})
    assert figures.cache_read_tokens == 0 and figures.input_tokens == 1
