"""The one-line summary of a diff: cost, sources, paragraphs, unverified sources, images."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.format.vocab import strip_unsafe, truncate
from oo_nb.redaction import scrub, secrets_now
from oo_nb.review.hunks import Hunk

__all__ = ["DiffSummary", "run_notices", "summarise"]


@dataclass(frozen=True)
class DiffSummary:
    cost_usd: float | None
    version_before: int
    version_after: int
    paragraphs_added: int
    paragraphs_removed: int
    paragraphs_changed: int
    sources_added: tuple[str, ...]
    sources_dropped: tuple[str, ...]
    sources_changed: tuple[str, ...]
    unverified_sources: tuple[str, ...]
    facts_added: int
    facts_removed: int
    images_added: int
    images_removed: int
    other_changes: int  # manifest, contract, other cache fields
    sections_removed: tuple[str, ...] = ()  # ids of sections removed whole (issue 12)

    @property
    def paragraphs_total(self) -> int:
        return self.paragraphs_added + self.paragraphs_removed + self.paragraphs_changed

    def text(self) -> str:
        cost = "cost n/a" if self.cost_usd is None else f"cost ${self.cost_usd:.4f}"
        parts = [
            cost,
            f"v{self.version_before} → v{self.version_after}",
            f"{self.paragraphs_total:,} paragraph{'s' if self.paragraphs_total != 1 else ''} "
            f"changed (+{self.paragraphs_added:,} −{self.paragraphs_removed:,} "
            f"~{self.paragraphs_changed:,})",
            f"sources +{len(self.sources_added):,} −{len(self.sources_dropped):,} "
            f"~{len(self.sources_changed):,}",
        ]
        n = len(self.unverified_sources)
        parts.append(
            f"{n:,} unverified source{'s' if n != 1 else ''}" + _named(self.unverified_sources)
        )
        if self.sections_removed:
            parts.append("sections removed: " + ", ".join(self.sections_removed))
        if self.facts_added or self.facts_removed:
            parts.append(f"facts +{self.facts_added} −{self.facts_removed}")
        if self.images_added or self.images_removed:
            parts.append(f"images +{self.images_added} −{self.images_removed}")
        if self.other_changes:
            parts.append(
                f"{self.other_changes} other field change{'s' if self.other_changes != 1 else ''}"
            )
        return " · ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["text"] = self.text()
        return out


_NAMED = 10  # ids named in the one line; the rest counted (the line is saved in notebooks)
_ID_CHARS = 24


def _named(ids: Sequence[str]) -> str:
    """`` (s3, s4, … and 12 more)``: the first ids, each cut short, or nothing."""
    if not ids:
        return ""
    shown = [truncate(i, _ID_CHARS) for i in ids[:_NAMED]]
    more = f", … and {len(ids) - _NAMED:,} more" if len(ids) > _NAMED else ""
    return f" ({', '.join(shown)}{more})"


def _count(hunks: Sequence[Hunk], area: str, kind: str) -> int:
    return sum(1 for h in hunks if h.area == area and h.kind == kind and not h.derived)


def summarise(
    original: Document,
    candidate: Document,
    hunks: Sequence[Hunk],
    images_added: int,
    images_removed: int,
    cost_usd: float | None,
) -> DiffSummary:
    def ids(kind: str) -> tuple[str, ...]:
        return tuple(h.key or "" for h in hunks if h.area == "sources" and h.kind == kind)

    return DiffSummary(
        cost_usd=cost_usd,
        version_before=_version(original),
        version_after=_version(candidate),
        paragraphs_added=_count(hunks, "article", "added"),
        paragraphs_removed=_count(hunks, "article", "removed"),
        paragraphs_changed=_count(hunks, "article", "changed"),
        sources_added=ids("added"),
        sources_dropped=ids("removed"),
        sources_changed=ids("changed"),
        unverified_sources=tuple(h.key or "" for h in hunks if h.unverified),
        facts_added=_count(hunks, "facts", "added"),
        facts_removed=_count(hunks, "facts", "removed"),
        images_added=images_added,
        images_removed=images_removed,
        other_changes=sum(
            1 for h in hunks if h.area in ("manifest", "contract", "source-cache") and not h.derived
        ),
        sections_removed=tuple(h.key or h.section for h in hunks if h.whole_section),
    )


def _version(doc: Document) -> int:
    try:
        return doc.manifest.version
    except OOError:  # a document without a readable manifest (the index): no version
        return 0


_MAX_NOTICES = 40
_MAX_CHARS = 600


def run_notices(run: Mapping[str, Any] | None) -> tuple[str, ...]:
    """What the run that made a proposal warned about, for whoever reviews it later: a
    replayed (recorded) run, a run over its budget, then the run's own warnings as saved with
    the proposal (rejected or unverified sources, skipped images, a sentinel reported as
    occurred...). Plain text with secrets and control characters removed; callers escape it
    for HTML."""
    if not run:
        return ()
    warnings = [w for w in run.get("warnings") or () if isinstance(w, str) and w.strip()]
    out: list[str] = []
    if run.get("recorded") is True and not any("RECORDED" in w for w in warnings):
        out.append("RECORDED run (replayed from a cassette): not live research")
    if run.get("overspent") is True:
        cost, budget = run.get("cost_usd"), run.get("budget_usd")
        spent = (
            f" (spent ${cost:.4f} of ${budget:.2f})"
            if isinstance(cost, (int, float)) and isinstance(budget, (int, float))
            else ""
        )
        out.append(f"kept for review: budget exceeded{spent}; it was not written automatically")
    out += warnings
    # a warning may quote what the agent or the API said, key included: the notices are shown
    # in the widget and its text repr, which notebooks save
    secrets = secrets_now()
    clean = [strip_unsafe(scrub(w, secrets=secrets)[0]).strip() for w in dict.fromkeys(out)]
    clean = [truncate(w, _MAX_CHARS) for w in clean]
    if len(clean) > _MAX_NOTICES:
        clean = [*clean[:_MAX_NOTICES], f"… and {len(clean) - _MAX_NOTICES} more warning(s)"]
    return tuple(clean)
