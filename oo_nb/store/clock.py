"""Today's date and the current time, with one override: ``OO_TODAY=YYYY-MM-DD``.

Demo notebooks, the demo library builder and nbval need runs that give the same bytes on any
day: with ``OO_TODAY`` set, ``today()`` is that day and ``now()`` is noon UTC on it. Unset, they
are the real date and time. Code that takes an explicit ``today``/``now`` argument keeps it;
this is only the default.
"""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, time

from oo_nb.errors import ValidationError

__all__ = ["ENV", "now", "today"]

ENV = "OO_TODAY"


def _override() -> date | None:
    text = os.environ.get(ENV, "").strip()
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValidationError(f"{ENV} must be a date YYYY-MM-DD, not {text!r}", key=ENV) from None


def today() -> date:
    return _override() or date.today()


def now() -> datetime:
    """An aware UTC datetime (noon on ``OO_TODAY`` when it is set)."""
    day = _override()
    return datetime.combine(day, time(12, 0), UTC) if day else datetime.now(UTC)
