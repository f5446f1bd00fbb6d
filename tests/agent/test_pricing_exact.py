"""The cost a run reports, to the cent and below: each usage field read (from the SDK's object
and from JSON), summed across responses, priced at its own rate. A cache read or write left out,
a difference instead of a sum, or a whole-number count read as 0 under-reports what was spent."""

from __future__ import annotations

from typing import Any

from oo_nb.agent.pricing import (
    SEARCH_USD,
    UsageFigures,
    cost_usd,
    count,
    price_for,
    usage_figures,
)

USAGE = {
    "input_tokens": 1_000_000,
    "output_tokens": 200_000,
    "cache_creation_input_tokens": 300_000,
    "cache_read_input_tokens": 400_000,
    "server_tool_use": {"web_search_requests": 3, "web_fetch_requests": 2},
}
FIGURES = UsageFigures(1_000_000, 200_000, 300_000, 400_000, 3, 2)


class _SdkUsage:
    """What the SDK hands back: an object, read through ``model_dump``."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def model_dump(self) -> dict[str, Any]:
        return dict(self.data)


def test_every_usage_field_is_read_from_json_and_from_the_sdk_object() -> None:
    assert usage_figures(USAGE) == FIGURES
    assert usage_figures(_SdkUsage(USAGE)) == FIGURES


def test_responses_add_up_field_by_field() -> None:
    other = UsageFigures(1, 2, 3, 4, 5, 6)
    assert FIGURES + other == UsageFigures(1_000_001, 200_002, 300_003, 400_004, 8, 8)


def test_the_cost_prices_each_kind_of_token_at_its_rate() -> None:
    price = price_for("claude-sonnet-4-6")  # 3.00 / 3.75 / 0.30 / 15.00 per million
    expected = 1.0 * 3.00 + 0.3 * 3.75 + 0.4 * 0.30 + 0.2 * 15.00 + 3 * SEARCH_USD
    assert abs(cost_usd(FIGURES, price) - expected) < 1e-9
    assert abs(cost_usd(FIGURES, price, batch=True) - (expected - 3 * SEARCH_USD) / 2 - 0.03) < 1e-9


def test_a_count_is_the_whole_number_given() -> None:
    assert count(3.0) == 3 and count(7.9) == 7 and count(12) == 12
    assert count(float("nan")) == 0 and count(float("inf")) == 0 and count(-4) == 0
    assert count(True) == 0 and count("12") == 0 and count(None) == 0


def test_the_price_names_the_model_asked_for() -> None:
    for model in ("claude-sonnet-4-6", "claude-sonnet-4-6-20260101", "claude-opus-5-5-preview"):
        assert price_for(model).model == model
    unknown = price_for("someone-elses-model")
    assert unknown.model == "someone-elses-model" and unknown.known is False
