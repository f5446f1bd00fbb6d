"""The one rule for a budget in US dollars, wherever one is given: ``--budget`` (``oo update``,
``oo update-all``, ``oo new``), ``oo contract --set budget`` and the API's ``budget=``
(``Library.update_all``, ``Document.update``). Each says the same words, naming both bounds."""

from __future__ import annotations

import math

from oo_nb.errors import ValidationError

__all__ = ["MAX_BUDGET_USD", "MIN_BUDGET_USD", "parse_budget"]

MIN_BUDGET_USD = 0.0001  # the contract stores four decimals: less is written as $0, no budget
MAX_BUDGET_USD = 100_000.0  # more is a typo (or 1e308), not a budget for one update


def parse_budget(value: object, *, key: str = "budget") -> float:
    """``value`` (a number, or text such as ``"0.50"`` or ``"$2"``) in dollars, rounded to what
    the contract stores; a ``ValidationError`` naming ``key`` and both bounds for anything else
    (``True`` is no amount, nor is ``1e308``)."""
    amount: float | None = None
    if isinstance(value, str):
        try:
            amount = float(value.strip().lstrip("$"))
        except ValueError:
            amount = None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            amount = float(value)
        except OverflowError:  # an int past a float's range
            amount = math.inf
    stored = round(amount, 4) if amount is not None and math.isfinite(amount) else None
    if stored is None or not MIN_BUDGET_USD <= stored <= MAX_BUDGET_USD:
        raise ValidationError(
            f"must be a number of US dollars from {MIN_BUDGET_USD} to {MAX_BUDGET_USD:,.0f}, "
            f"e.g. 0.50; got {value!r}",
            key=key,
        )
    return stored
