"""When the budget cannot cover one research request, the refusal names the cheapest research
the document's tools allow (a search, or a page fetch when that is cheaper or the only tool), what
is left of the budget, and a budget that is enough: the figure it asks for works, a cent less
does not."""

from __future__ import annotations

import re

import pytest

from oo_nb.agent.budget import Budget
from oo_nb.agent.pricing import Price, price_for
from oo_nb.errors import BudgetExceeded

SONNET = price_for("claude-sonnet-5-5")  # a search ($0.01) is dear next to 5,000 more tokens
HAIKU = price_for("claude-haiku-5-5")  # tokens are cheap: a page fetch costs less than a search
OPUS = price_for("claude-opus-5-5")


def _refusal(budget: Budget, prompt: int, searches: int, fetches: int) -> str:
    with pytest.raises(BudgetExceeded) as err:
        budget.plan(
            prompt,
            max_tokens=8192,
            min_tokens=2048,
            searches=searches,
            fetches=fetches,
            require_research=True,
        )
    return str(err.value)


@pytest.mark.parametrize(
    ("price", "searches", "fetches", "expected"),
    [
        (SONNET, 5, 3, (1, 0)),  # both tools: the cheaper is a search
        (HAIKU, 5, 3, (0, 1)),  # both tools: the cheaper is a fetch
        (HAIKU, 5, 1, (0, 1)),
        (SONNET, 1, 0, (1, 0)),  # only one tool: that one
        (SONNET, 0, 3, (0, 1)),
        (SONNET, 0, 1, (0, 1)),
        (HAIKU, 1, 0, (1, 0)),
    ],
)
def test_the_smallest_research_request_uses_a_tool_the_document_allows(
    price: Price, searches: int, fetches: int, expected: tuple[int, int]
) -> None:
    b = Budget(1.0, price)
    p = b.research_minimum(14_000, 2048, searches, fetches)
    assert (p.searches, p.fetches) == expected and p.max_tokens == 2048
    assert p.bound_usd == pytest.approx(b.bound(14_000, 2048, *expected))
    # and it is the cheapest of the one-tool requests allowed
    allowed = [(s, f) for s, f in ((1, 0), (0, 1)) if s <= searches and f <= fetches]
    cost = {
        sf: b.bound(14_000, 2048, *sf) + b.bound(b.wrapup_prompt(14_000, 2048, *sf), 2048)
        for sf in allowed
    }
    assert p.bound_usd + p.reserve_usd == pytest.approx(min(cost.values()))


@pytest.mark.parametrize(
    ("price", "searches", "fetches", "what"),
    [
        (SONNET, 5, 3, "one web search"),
        (HAIKU, 5, 3, "one page fetch"),
        (SONNET, 0, 2, "one page fetch"),
        (HAIKU, 2, 0, "one web search"),
    ],
)
def test_the_refusal_names_the_tool_of_the_smallest_request(
    price: Price, searches: int, fetches: int, what: str
) -> None:
    text = _refusal(Budget(0.0001, price), 14_000, searches, fetches)
    assert f"the smallest ({what}, 2,048 output tokens)" in text


def test_the_refusal_says_what_is_left_after_spending() -> None:
    fresh = _refusal(Budget(0.05, SONNET), 14_000, 5, 3)
    assert fresh.startswith("budget reached: $0.05 cannot cover one research request")
    b = Budget(0.60, SONNET)
    b.spent_usd = 0.55
    spent = _refusal(b, 14_000, 5, 3)
    assert spent.startswith(
        "budget reached: the rest of the budget ($0.0500 of $0.60) cannot cover one research request"
    )
    b.spent_usd = 0.75  # already over (the API reported more than the bound): nothing is left
    assert "the rest of the budget ($0.0000 of $0.60)" in _refusal(b, 14_000, 5, 3)


@pytest.mark.parametrize(
    ("price", "prompt"),
    [(SONNET, 14_000), (OPUS, 150_000), (OPUS, 180_000), (HAIKU, 120_000), (SONNET, 90_000)],
)
def test_the_budget_the_refusal_asks_for_is_the_smallest_that_works(
    price: Price, prompt: int
) -> None:
    text = _refusal(Budget(0.01, price), prompt, 5, 3)
    m = re.search(r"a budget of at least \$(\d+\.\d\d)\)", text)
    assert m is not None, text
    enough = float(m.group(1))
    plan = Budget(enough, price).plan(
        prompt, max_tokens=8192, min_tokens=2048, searches=5, fetches=3, require_research=True
    )
    assert plan.research
    _refusal(Budget(round(enough - 0.01, 2), price), prompt, 5, 3)
