"""The freshness gate: a document is fresh while its age is below its cadence
(``update_every_days``, or the legacy ``freshness`` daily/weekly/monthly). ``--force`` skips it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from oo_nb.format.document import Document

__all__ = ["Freshness", "freshness"]


@dataclass(frozen=True)
class Freshness:
    fresh: bool
    as_of: date | None
    cadence_days: int
    age_days: int | None
    due: date | None

    def describe(self) -> str:
        if self.as_of is None:
            return "never updated"
        state = "fresh" if self.fresh else "stale"
        return f"{state}: as of {self.as_of.isoformat()}, {self.age_days} days old, cadence {self.cadence_days} days"


def freshness(doc: Document, today: date) -> Freshness:
    """Fresh while the age is below the cadence (``update_every_days`` or legacy ``freshness``)."""
    m = doc.manifest
    if m.as_of is None:
        return Freshness(False, None, m.cadence_days, None, None)
    age = (today - m.as_of).days
    return Freshness(
        age < m.cadence_days, m.as_of, m.cadence_days, age, m.as_of + timedelta(days=m.cadence_days)
    )
