from __future__ import annotations

import pytest

from oo_nb.agent.pricing import (
    PRICE_TABLE,
    PRICES_EFFECTIVE,
    UsageFigures,
    cost_usd,
    price_for,
    usage_figures,
)


def test_table_is_dated_data() -> None:
    assert PRICES_EFFECTIVE == "2026-11-29"
    assert PRICE_TABLE["claude-sonnet-5-5"]["rates"] == (2.00, 2.50, 0.10, 10.00)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-sonnet-5-5", "claude-sonnet-5-5"),
        ("claude-sonnet-5-5-20261001", "claude-sonnet-5-5"),
        ("claude-opus-5-5-preview", "claude-opus-5-5"),
        ("CLAUDE-HAIKU-4-5", "claude-haiku-4-5"),
    ],
)
def test_lookup(model: str, expected: str) -> None:
    p = price_for(model)
    assert p.known
    assert (p.input, p.cache_write, p.cache_read, p.output) == PRICE_TABLE[expected]["rates"]


def test_unknown_model_gets_the_highest_rates() -> None:
    p = price_for("someone-elses-model")
    assert not p.known
    assert p.input == 8.0 and p.output == 40.0 and p.cache_write == 10.0


def test_cost_formula_with_searches_and_batch() -> None:
    u = UsageFigures(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_creation_tokens=200_000,
        cache_read_tokens=1_000_000,
        web_searches=3,
        web_fetches=2,
    )
    p = price_for("claude-sonnet-5-5")
    tokens = 2.0 + 0.1 * 10 + 0.2 * 2.5 + 0.10
    assert cost_usd(u, p) == pytest.approx(tokens + 0.03)
    # batches halve the tokens, not the searches
    assert cost_usd(u, p, batch=True) == pytest.approx(tokens / 2 + 0.03)


def test_haiku_long_prompts_cost_five_times() -> None:
    p = price_for("claude-haiku-5-5")
    short = cost_usd(UsageFigures(input_tokens=100_000), p)
    long = cost_usd(UsageFigures(input_tokens=100_001), p)
    assert short == pytest.approx(0.01)
    assert long == pytest.approx(100_001 * 0.10 * 5 / 1e6)


def test_usage_from_api_json() -> None:
    u = usage_figures(
        {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_read_input_tokens": None,
            "server_tool_use": {"web_search_requests": 2, "web_fetch_requests": 1},
        }
    )
    assert (
        u.input_tokens,
        u.output_tokens,
        u.cache_read_tokens,
        u.web_searches,
        u.web_fetches,
    ) == (10, 5, 0, 2, 1)
    assert usage_figures(None) == UsageFigures()
