"""Where a sentinel document's status stands. A structured ``sentinel`` object in the contract
holds its own (an update writes it there). An original o-o sentinel document, marked only by
``instructions.sentinel``, is not restructured: an update records the status it found in its
changelog entry (``{"sentinel": {"status", "evidence"}}``), and the newest such report is the
document's status. ``oo show``, the library and the index badge read it here: they said "not
occurred" after an accepted "occurred"."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from oo_nb.format.blocks import Changelog, Sentinel

__all__ = ["SENTINEL_STATUSES", "current_sentinel", "latest_status"]

SENTINEL_STATUSES = ("not_occurred", "occurred", "unknown")


def latest_status(reported: Iterable[object]) -> int | None:
    """The index of the newest valid status in ``reported`` (the changelog's reports, oldest
    first; anything else is no report), or None."""
    found = None
    for i, status in enumerate(reported):
        if isinstance(status, str) and status in SENTINEL_STATUSES:
            found = i
    return found


def current_sentinel(sentinel: Sentinel | None, changelog: Changelog) -> Sentinel | None:
    """``sentinel`` (the contract's) with the status an accepted update reported, when the
    contract cannot hold one itself."""
    if sentinel is None or sentinel.structured:
        return sentinel
    reports = [e.extra.get("sentinel") for e in changelog.entries]
    found = latest_status(r.get("status") if isinstance(r, dict) else None for r in reports)
    if found is None:
        return sentinel
    report, entry = reports[found], changelog.entries[found]
    assert isinstance(report, dict)
    evidence = report.get("evidence")
    return replace(
        sentinel,
        status=report["status"],
        evidence=evidence if isinstance(evidence, str) else "",
        last_checked=entry.date,
    )
