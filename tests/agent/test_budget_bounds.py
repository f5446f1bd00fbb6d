"""The bound of one request and the accounting after it, to the cent: batch halves the tokens but
not the search fee, a context grown past the long-prompt threshold is priced at the long rate,
a fetch grows the context by its page and its overhead, the wrap-up reserve covers the
compacted research; a plan steps its output allowance down in whole tokens, uses only the tools
the document allows, fits a budget that exactly covers it, and the spend adds up."""

from __future__ import annotations

import pytest

from oo_nb.agent.budget import Budget
from oo_nb.agent.pricing import Price, UsageFigures, price_for
from oo_nb.errors import BudgetExceeded

SONNET = price_for("claude-sonnet-5-5")  # $2 in, $10 out per million tokens
HAIKU = price_for("claude-haiku-5-5")  # x5 above 100,000 prompt tokens

EXACT = 1e-12


def test_bound_of_a_fetch_counts_the_page_and_its_overhead() -> None:
    b = Budget(1.0, SONNET, fetch_tokens=2000, fetch_overhead_tokens=500)
    # passes 10,000 and 12,500
    assert b.bound(10_000, 1000, fetches=1) == pytest.approx(
        ((10_000 + 12_500) * 2 + 1000 * 10) / 1e6, rel=EXACT
    )


def test_batch_halves_the_tokens_but_not_the_search_fee() -> None:
    plain, batch = Budget(1.0, SONNET), Budget(1.0, SONNET, batch=True)
    tokens = plain.bound(10_000, 1000, searches=2) - 2 * 0.01
    assert batch.bound(10_000, 1000, searches=2) == pytest.approx(tokens / 2 + 0.02, rel=EXACT)
    usage = UsageFigures(input_tokens=10_000, output_tokens=1000, web_searches=1)
    assert plain.record(usage) == pytest.approx(0.03 + 0.01, rel=EXACT)
    assert batch.record(usage) == pytest.approx(0.015 + 0.01, rel=EXACT)
    assert batch.spent_usd == pytest.approx(0.025, rel=EXACT)


def test_a_context_grown_past_the_long_prompt_threshold_costs_the_long_rate() -> None:
    b = Budget(5.0, HAIKU, search_tokens=6000)
    short = (98_000 * 0.10 + 1000 * 0.50) / 1e6
    assert b.bound(98_000, 1000) == pytest.approx(short, rel=EXACT)
    # one search: passes 98,000 and 104,000; the grown context is past 100,000
    grown = ((98_000 + 104_000) * 0.10 + 1000 * 0.50) / 1e6 * 5.0 + 0.01
    assert b.bound(98_000, 1000, searches=1) == pytest.approx(grown, rel=EXACT)


def test_the_wrapup_reserve_covers_the_compacted_research() -> None:
    b = Budget(1.0, SONNET, compact_search_tokens=400, compact_fetch_tokens=1500)
    assert b.wrapup_prompt(14_000, 4096, 3, 2) == 14_000 + 3 * 400 + 2 * 1500 + 4096
    plan = b.plan(14_000, max_tokens=4096, min_tokens=1024, searches=3, fetches=2)
    assert plan.reserve_usd == pytest.approx(
        b.bound(14_000 + plan.searches * 400 + plan.fetches * 1500 + 4096, 4096), rel=EXACT
    )


def test_the_output_allowance_steps_down_by_quarters_in_whole_tokens() -> None:
    """The API takes ``max_tokens`` as an integer; each smaller budget gets the next step."""
    steps = [8192, 6144, 4608, 3456, 2592, 2048]
    for step in steps:
        limit = Budget(1.0, SONNET).bound(14_000, step)
        plan = Budget(limit, SONNET).plan(
            14_000, max_tokens=8192, min_tokens=2048, searches=0, fetches=0
        )
        assert plan.max_tokens == step and type(plan.max_tokens) is int
        assert not plan.research
    with pytest.raises(BudgetExceeded):
        Budget(Budget(1.0, SONNET).bound(14_000, 2048) * 0.99, SONNET).plan(
            14_000, max_tokens=8192, min_tokens=2048, searches=0, fetches=0
        )


def test_a_budget_that_exactly_covers_a_request_allows_it() -> None:
    b = Budget(1.0, SONNET)
    cost = b.bound(14_000, 8192, 1, 0)
    reserve = b.bound(b.wrapup_prompt(14_000, 8192, 1, 0), 8192)
    for limit in (cost + reserve, cost + reserve - 5e-10):  # to rounding
        plan = Budget(limit, SONNET).plan(
            14_000, max_tokens=8192, min_tokens=2048, searches=1, fetches=0
        )
        assert (plan.searches, plan.fetches, plan.max_tokens) == (1, 0, 8192)
    # and without research
    for limit in (b.bound(14_000, 8192), b.bound(14_000, 8192) - 5e-10):
        plan = Budget(limit, SONNET).plan(
            14_000, max_tokens=8192, min_tokens=2048, searches=0, fetches=0
        )
        assert plan.max_tokens == 8192


@pytest.mark.parametrize(("searches", "fetches"), [(0, 3), (0, 1), (2, 0), (1, 1)])
def test_a_plan_uses_only_the_tools_the_document_allows(searches: int, fetches: int) -> None:
    for limit in (0.05, 0.12, 0.3, 1.0, 5.0):
        b = Budget(limit, SONNET)
        try:
            plan = b.plan(
                14_000, max_tokens=8192, min_tokens=2048, searches=searches, fetches=fetches
            )
        except BudgetExceeded:
            continue
        assert 0 <= plan.searches <= searches and 0 <= plan.fetches <= fetches, limit
    # a budget ample for everything: all of it
    plan = Budget(50.0, SONNET).plan(
        14_000, max_tokens=8192, min_tokens=2048, searches=searches, fetches=fetches
    )
    assert (plan.searches, plan.fetches) == (searches, fetches)


@pytest.mark.parametrize("price", [SONNET, HAIKU], ids=["sonnet", "haiku"])
@pytest.mark.parametrize(("searches", "fetches"), [(2, 1), (1, 3), (2, 2), (0, 3), (3, 0)])
def test_a_plan_never_counts_a_negative_tool_use(price: Price, searches: int, fetches: int) -> None:
    """Just below what each research request allowed would cost, the plan is one of the allowed
    requests (never one with a negative count, which would look cheaper)."""
    b = Budget(1.0, price)
    for s in range(searches + 1):
        for f in range(fetches + 1):
            if s + f == 0:
                continue
            need = b.bound(14_000, 8192, s, f) + b.bound(b.wrapup_prompt(14_000, 8192, s, f), 8192)
            for limit in (need - 0.001, need - 0.004):
                try:
                    plan = Budget(limit, price).plan(
                        14_000, max_tokens=8192, min_tokens=2048, searches=searches, fetches=fetches
                    )
                except BudgetExceeded:
                    continue
                assert 0 <= plan.searches <= searches and 0 <= plan.fetches <= fetches, (s, f)
                assert plan.bound_usd + plan.reserve_usd <= limit + 1e-9


@pytest.mark.parametrize(("searches", "fetches"), [(0, 3), (1, 0), (0, 1)])
def test_required_research_is_refused_not_dropped(searches: int, fetches: int) -> None:
    """The first request must research: when even the smallest research does not fit, the run
    stops with the cost so far, rather than submitting without research."""
    b = Budget(0.06, SONNET)
    b.spent_usd = 0.02
    with pytest.raises(BudgetExceeded) as err:
        b.plan(
            14_000,
            max_tokens=8192,
            min_tokens=2048,
            searches=searches,
            fetches=fetches,
            require_research=True,
        )
    assert "cannot cover one research request" in str(err.value)
    assert err.value.cost_usd == pytest.approx(0.02)


def test_required_research_without_research_tools_plans_a_submission() -> None:
    plan = Budget(1.0, SONNET).plan(
        14_000, max_tokens=8192, min_tokens=2048, searches=0, fetches=0, require_research=True
    )
    assert not plan.research and plan.max_tokens == 8192


def test_the_refusal_says_what_is_left() -> None:
    b = Budget(0.09, SONNET)
    b.spent_usd = 0.08
    with pytest.raises(BudgetExceeded) as err:
        b.plan(14_000, max_tokens=8192, min_tokens=2048, searches=0, fetches=0)
    assert "and the rest ($0.0100) cannot cover it" in str(err.value)
    b.spent_usd = 0.12
    with pytest.raises(BudgetExceeded) as err:
        b.plan(14_000, max_tokens=8192, min_tokens=2048, searches=0, fetches=0)
    assert "and the rest ($0.0000) cannot cover it" in str(err.value)


def test_the_spend_adds_up_and_a_response_at_its_bound_is_no_overshoot() -> None:
    b = Budget(0.10, SONNET)
    plan = b.plan(10_000, max_tokens=1000, min_tokens=500, searches=0, fetches=0)
    # exactly what the bound allowed: 10,000 in, 1,000 out
    cost = b.record(UsageFigures(input_tokens=10_000, output_tokens=1000))
    assert cost == pytest.approx(plan.bound_usd, rel=EXACT) and not b.overshoots
    b.plan(10_000, max_tokens=1000, min_tokens=500, searches=0, fetches=0)
    b.record(UsageFigures(input_tokens=10_000, output_tokens=1000))
    assert b.spent_usd == pytest.approx(0.06, rel=EXACT) and not b.overspent
    # spending the whole budget exactly is not overspending (the run may still write)
    b.record(UsageFigures(input_tokens=10_000, output_tokens=2000))
    assert b.spent_usd == pytest.approx(0.10, rel=EXACT) and not b.overspent
    b.record(UsageFigures(input_tokens=1))
    assert b.overspent
