"""What a request costs: a dated price table kept as data, and the cost formula.

Prices are USD per million tokens (input / 5-minute cache write / cache read / output), from
notes/anthropic-api.md (checked 2026-11-29, offline). ``models.list()`` gives capabilities but no
prices, so the table is ours to keep current: re-check it before relying on it and bump
``PRICES_EFFECTIVE``. An unknown model is priced at the highest known rate, so that a budget
stays an upper bound rather than a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BATCH_FACTOR",
    "PRICES_EFFECTIVE",
    "PRICE_TABLE",
    "SEARCH_USD",
    "Price",
    "UsageFigures",
    "cost_usd",
    "price_for",
    "usage_figures",
]

PRICES_EFFECTIVE = "2026-11-29"
SEARCH_USD = 10.0 / 1000  # web search: $10 per 1,000 requests, not discounted in batches
BATCH_FACTOR = 0.5  # Message Batches halve token prices

# model id -> (input, cache write 5 min, cache read, output) USD per million tokens, plus an optional
# long-prompt rule (threshold in prompt tokens, multiplier applied to every rate above it).
PRICE_TABLE: dict[str, dict[str, Any]] = {
    "claude-sonnet-5-5": {"rates": (2.00, 2.50, 0.10, 10.00)},
    "claude-opus-5-5": {"rates": (4.00, 5.00, 0.20, 20.00)},
    "claude-haiku-5-5": {"rates": (0.10, 0.125, 0.01, 0.50), "long_prompt": (100_000, 5.0)},
    "claude-fable-5-2": {"rates": (8.00, 10.00, 0.20, 40.00)},
    "claude-sonnet-4-6": {"rates": (3.00, 3.75, 0.30, 15.00)},
    "claude-sonnet-4-5": {"rates": (3.00, 3.75, 0.30, 15.00)},
    "claude-haiku-4-5": {"rates": (1.00, 1.25, 0.10, 5.00)},
}
_DATE_SUFFIX = re.compile(r"-\d{8}$")


@dataclass(frozen=True)
class Price:
    """One model's rates (USD per million tokens)."""

    model: str
    input: float
    cache_write: float
    cache_read: float
    output: float
    long_prompt_tokens: int | None = None
    long_prompt_factor: float = 1.0
    known: bool = True  # False: the model is not in the table; the highest rates are used

    def factor_for(self, prompt_tokens: int) -> float:
        if self.long_prompt_tokens is not None and prompt_tokens > self.long_prompt_tokens:
            return self.long_prompt_factor
        return 1.0


def _from_row(model: str, row: dict[str, Any], known: bool = True) -> Price:
    i, w, r, o = row["rates"]
    threshold, factor = row.get("long_prompt", (None, 1.0))
    return Price(model, i, w, r, o, threshold, factor, known)


def _highest() -> dict[str, Any]:
    rows = [row["rates"] for row in PRICE_TABLE.values()]
    return {"rates": tuple(max(col) for col in zip(*rows, strict=True))}


def price_for(model: str) -> Price:
    """The rates of ``model``: exact id, then the id without a ``-YYYYMMDD`` snapshot suffix, then
    the longest table id it starts with; otherwise the highest known rates (``known=False``)."""
    name = model.strip().lower()
    for candidate in (name, _DATE_SUFFIX.sub("", name)):
        if candidate in PRICE_TABLE:
            return _from_row(model, PRICE_TABLE[candidate])
    prefixes = [key for key in PRICE_TABLE if name.startswith(key)]
    if prefixes:
        return _from_row(model, PRICE_TABLE[max(prefixes, key=len)])
    return _from_row(model, _highest(), known=False)


@dataclass(frozen=True)
class UsageFigures:
    """The billable numbers of one response (or a sum of responses)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    web_searches: int = 0
    web_fetches: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_creation_tokens + self.cache_read_tokens

    def __add__(self, other: UsageFigures) -> UsageFigures:
        return UsageFigures(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_tokens=self.cache_creation_tokens + other.cache_creation_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            web_searches=self.web_searches + other.web_searches,
            web_fetches=self.web_fetches + other.web_fetches,
        )


def _int(value: Any) -> int:
    """A count as reported, never negative (a negative count would lower the spend)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        return 0
    return int(value) if value != float("inf") else 0


def usage_figures(usage: Any) -> UsageFigures:
    """Read an SDK ``Usage`` object or its JSON dict (missing fields count as zero)."""
    if usage is None:
        return UsageFigures()
    raw: dict[str, Any] = usage if isinstance(usage, dict) else usage.model_dump()
    server = raw.get("server_tool_use")
    server = server if isinstance(server, dict) else {}  # untrusted JSON (a CLI's, a cassette's)
    return UsageFigures(
        input_tokens=_int(raw.get("input_tokens")),
        output_tokens=_int(raw.get("output_tokens")),
        cache_creation_tokens=_int(raw.get("cache_creation_input_tokens")),
        cache_read_tokens=_int(raw.get("cache_read_input_tokens")),
        web_searches=_int(server.get("web_search_requests")),
        web_fetches=_int(server.get("web_fetch_requests")),
    )


def cost_usd(usage: UsageFigures, price: Price, *, batch: bool = False) -> float:
    """cost = (in·input + w·cache_write + r·cache_read + out·output)/1e6 (× 0.5 in a batch)
    + $0.01 per web search. Web fetches cost only their tokens."""
    factor = price.factor_for(usage.prompt_tokens) * (BATCH_FACTOR if batch else 1.0)
    tokens = (
        usage.input_tokens * price.input
        + usage.cache_creation_tokens * price.cache_write
        + usage.cache_read_tokens * price.cache_read
        + usage.output_tokens * price.output
    ) / 1e6
    return tokens * factor + usage.web_searches * SEARCH_USD
