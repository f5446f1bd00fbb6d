"""The freshness gate: a document is fresh while its age is below its cadence
(``update_every_days``, or the legacy ``freshness`` daily/weekly/monthly). ``--force`` skips it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from oo_nb.format.document import Document

__all__ = ["Freshness", "freshness", "freshness_of"]


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
    return freshness_of(m.as_of, m.cadence_days, today)


def freshness_of(as_of: date | None, cadence_days: int, today: date) -> Freshness:
    """``freshness`` from the manifest's two values (as a library scan keeps them)."""
    if as_of is None:
        return Freshness(False, None, cadence_days, None, None)
    age = (today - as_of).days
    return Freshness(
        age < cadence_days, as_of, cadence_days, age, as_of + timedelta(days=cadence_days)
    )
