"""Data passed between the agent's parts: what a run cost and saw, and the proposal it made."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.agent.pricing import UsageFigures
from oo_nb.agent.quotes import MAX_CITATIONS, MAX_CITED_CHARS, MAX_QUOTE, PageTexts

if TYPE_CHECKING:
    from oo_nb.agent.run import UpdateResult
    from oo_nb.store.discover import LeftOut

__all__ = [
    "PROPOSAL_SCHEMA",
    "LibraryUpdate",
    "ResearchInterrupted",
    "RunInfo",
    "UpdateInterrupted",
]


@dataclass
class RunInfo:
    """What one update run used. ``seen_urls`` holds the URLs this run saw: each page a web
    fetch returned and each hit a web search returned (not a URL written inside their text); a
    new source is verified only if its URL is among them. ``read_urls`` holds the pages it read:
    fetched (or quoted by the API's citations), not merely listed by a search; the ``--auto``
    rule takes an edited claim's source, or a new link, as checked only if it is among them."""

    backend: str  # "anthropic" | "replay" | "claude-code"
    model: str
    usage: UsageFigures = field(default_factory=UsageFigures)  # summed over the run's requests
    requests: int = 0
    cost_usd: float = 0.0
    # False for a saved run this machine did not seal (``store.seal``): its cost is unknown
    cost_known: bool = True
    budget_usd: float = 0.0
    recorded: bool = False  # True when replayed from a cassette: say so wherever it shows
    seen_urls: set[str] = field(default_factory=set)
    # In memory only, as ``pages``: the ``--auto`` rule reads it in the run; a saved proposal is
    # never written unattended.
    read_urls: set[str] = field(default_factory=set, compare=False)
    warnings: list[str] = field(default_factory=list)
    # The API reported more usage than the request bounds allowed and the total went over the
    # budget: the proposal may only be kept for review, never written automatically (even --yes).
    overspent: bool = False
    # Replayed from a cassette recorded for another document: its research is that document's,
    # so --yes and --auto keep it for review. Said when it happens; never saved with a proposal.
    foreign_recording: bool = field(default=False, repr=False, compare=False)
    batch: bool = False  # run through the Message Batches API (half-price tokens)
    # Told one line per research step as it happens (searches, reads, the proposal): the
    # notebook shows research as it goes. Not data: left out of comparisons and reprs.
    on_progress: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    # The text pages showed (for quote checks): in memory only, never saved with a proposal.
    pages: PageTexts = field(default_factory=PageTexts, repr=False, compare=False)
    # normalised quote -> the url_keys of the pages it was found in ([] = found nowhere); set
    # when the proposal arrives (``quotes.quote_hits``), saved with the proposal
    quote_hits: dict[str, list[str]] = field(default_factory=dict)
    # (URL, cited text) of the API's citations in the model's text, for the review
    citations: list[tuple[str, str]] = field(default_factory=list)

    def to_record(self) -> dict[str, Any]:
        """The figures a saved proposal needs to rebuild its candidate (``from_record``)."""
        u = self.usage
        return {
            "backend": self.backend,
            "model": self.model,
            "usage": {
                "input_tokens": u.input_tokens,
                "output_tokens": u.output_tokens,
                "cache_creation_tokens": u.cache_creation_tokens,
                "cache_read_tokens": u.cache_read_tokens,
                "web_searches": u.web_searches,
                "web_fetches": u.web_fetches,
            },
            "requests": self.requests,
            "cost_usd": self.cost_usd if self.cost_known else None,
            "budget_usd": self.budget_usd,
            "recorded": self.recorded,
            "overspent": self.overspent,
            "batch": self.batch,
            "seen_urls": sorted(self.seen_urls),
            "quote_hits": self.quote_hits,
            "citations": [list(c) for c in self.citations],
        }

    @classmethod
    def from_record(cls, raw: Any) -> RunInfo:
        """Read ``to_record`` output back, checking every field (a saved proposal is untrusted:
        ``ValueError`` names the field that is wrong)."""
        if not isinstance(raw, dict):
            raise ValueError("run: must be an object")
        usage = raw.get("usage")
        if not isinstance(usage, dict):
            raise ValueError("run.usage: must be an object")
        urls = raw.get("seen_urls")
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            raise ValueError("run.seen_urls: must be a list of strings")
        return cls(
            backend=_text(raw, "backend"),
            model=_text(raw, "model"),
            usage=UsageFigures(**{k: _count(usage, k, "run.usage.") for k in _USAGE_FIELDS}),
            requests=_count(raw, "requests"),
            cost_usd=0.0 if raw.get("cost_usd", 0.0) is None else _amount(raw, "cost_usd"),
            cost_known=raw.get("cost_usd", 0.0) is not None,
            budget_usd=_amount(raw, "budget_usd"),
            recorded=_flag(raw, "recorded"),
            seen_urls=set(urls),
            overspent=_flag(raw, "overspent"),
            batch=_flag(raw, "batch"),
            quote_hits=_quote_hits(raw),
            citations=_citations(raw),
        )

    def changelog_fields(self) -> dict[str, Any]:
        """The run's record for the changelog entry (no secrets, only figures)."""
        u = self.usage
        return {
            "model": self.model,
            "agent": self.backend + (" (recorded)" if self.recorded else ""),
            "tokens": {
                "input": u.input_tokens,
                "output": u.output_tokens,
                "cache_write": u.cache_creation_tokens,
                "cache_read": u.cache_read_tokens,
            },
            "searches": u.web_searches,
            "fetches": u.web_fetches,
            "cost_usd": round(self.cost_usd, 4) if self.cost_known else None,
        }


_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_tokens",
    "cache_read_tokens",
    "web_searches",
    "web_fetches",
)


def _text(raw: dict[str, Any], key: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise ValueError(f"run.{key}: must be a short non-empty string")
    return value


def _count(raw: dict[str, Any], key: str, prefix: str = "run.") -> int:
    value = raw.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**12:
        raise ValueError(f"{prefix}{key}: must be a whole number, 0 or more")
    return value


def _amount(raw: dict[str, Any], key: str) -> float:
    value = raw.get(key, 0.0)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 <= value < 10**6
    ):
        raise ValueError(f"run.{key}: must be an amount in USD, 0 or more")
    return float(value)


def _quote_hits(raw: dict[str, Any]) -> dict[str, list[str]]:
    value = raw.get("quote_hits", {})  # absent in proposals saved before quotes were checked
    problem = "run.quote_hits: must map quotes to lists of page keys"
    if not isinstance(value, dict) or len(value) > 1_000:
        raise ValueError(problem)
    for quote, keys in value.items():
        if (
            len(quote) > 4 * MAX_QUOTE
            or not isinstance(keys, list)
            or len(keys) > 1_000
            or not all(isinstance(k, str) and len(k) < 4_096 for k in keys)
        ):
            raise ValueError(problem)
    return {str(q): list(k) for q, k in value.items()}


def _citations(raw: dict[str, Any]) -> list[tuple[str, str]]:
    value = raw.get("citations", [])
    ok = isinstance(value, list) and len(value) <= MAX_CITATIONS
    pairs = [c for c in value if isinstance(c, list) and len(c) == 2] if ok else []
    if (
        not ok
        or len(pairs) != len(value)
        or not all(
            isinstance(u, str)
            and isinstance(t, str)
            and len(u) < 4_096
            and len(t) <= MAX_CITED_CHARS
            for u, t in pairs
        )
    ):
        raise ValueError("run.citations: must be a list of [url, cited text] pairs")
    return [(u, t) for u, t in pairs]


def _flag(raw: dict[str, Any], key: str) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"run.{key}: must be true or false")
    return value


_STR = {"type": "string"}
PROPOSAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["summary", "sections"],
    "properties": {
        "summary": _STR,
        "sections": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "title", "html"],
                "properties": {"id": _STR, "title": _STR, "html": _STR},
            },
        },
        "sources": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "url", "title"],
                "properties": {
                    "id": _STR,
                    "url": _STR,
                    "title": _STR,
                    "tier": _STR,
                    "accessed": _STR,
                },
            },
        },
        "drop_sources": {"type": "array", "items": _STR},
        "drop_sections": {"type": "array", "items": _STR},
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["text"],
                "properties": {
                    "text": _STR,
                    "source_ids": {"type": "array", "items": _STR},
                    "quote": _STR,
                },
            },
        },
        "images": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["url", "caption"],
                "properties": {
                    "url": _STR,
                    "page_url": _STR,
                    "caption": _STR,
                    "alt": _STR,
                    "layout": {
                        "type": "string",
                        "enum": ["fig-right", "fig-left", "fig-full", "fig-center"],
                    },
                    "section": _STR,
                },
            },
        },
        "sentinel": {
            "type": "object",
            "additionalProperties": False,
            "required": ["status"],
            "properties": {
                "status": {"type": "string", "enum": ["not_occurred", "occurred", "unknown"]},
                "evidence": _STR,
            },
        },
    },
}


@dataclass
class LibraryUpdate:
    """Per-document outcomes of one ``update-all``."""

    results: list[UpdateResult] = field(default_factory=list)
    failures: dict[Path, str] = field(default_factory=dict)
    failure_costs: dict[Path, float] = field(default_factory=dict)
    failure_budgets: dict[Path, float] = field(default_factory=dict)  # what it was allowed
    # named like documents and not updated: a second name for a file updated by its own name
    left_out: list[LeftOut] = field(default_factory=list)
    elapsed_s: float = 0.0
    batch_id: str | None = None
    # the signal that interrupted the run ("SIGTERM", "SIGINT"), and the documents it left unread
    interrupted: str = ""
    not_started: int = 0

    @property
    def cost_usd(self) -> float:
        return sum(r.cost_usd for r in self.results) + sum(self.failure_costs.values())

    def failure_overspent(self, path: Path) -> bool:
        """The failed document spent past its budget before it failed."""
        budget = self.failure_budgets.get(path)
        return budget is not None and self.failure_costs.get(path, 0.0) > budget

    def by_status(self, status: str) -> list[UpdateResult]:
        return [r for r in self.results if r.status == status]

    def __repr__(self) -> str:
        """A line for the run, then one a document (not the dataclass dump: each result holds
        its file's bytes and the proposal's data)."""
        outcomes: dict[str, int] = {}
        for r in self.results:
            outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
        counts = [f"{n} {outcome}" for outcome, n in outcomes.items()]
        counts += [f"{len(self.failures)} failed"] if self.failures else []
        lines = [
            f"update-all of {len(self.results) + len(self.failures)} document(s): "
            f"{', '.join(counts) or 'nothing'}; cost ${self.cost_usd:.4f}, {self.elapsed_s:.1f} s"
        ]
        lines += [f"  {r.summary()}" for r in self.results]
        lines += [f"  {path.name}: failed: {why}" for path, why in self.failures.items()]
        lines += [f"  {x.path.name}: left out: {x.reason}" for x in self.left_out]
        if self.interrupted:
            lines.append(f"  {self.interrupted_line()}")
        return "\n".join(lines)

    def interrupted_line(self) -> str:
        """What an interrupted run says: the signal, nothing written after it, what it left."""
        left = f"; {self.not_started} document(s) not started" if self.not_started else ""
        return (
            f"interrupted by {self.interrupted}: research runs ended, nothing written after "
            f"it{left}; cost so far ${self.cost_usd:.4f}"
        )


class UpdateInterrupted(KeyboardInterrupt):
    """update-all was stopped by SIGTERM or SIGINT (``agent.interrupt``); ``outcome`` holds
    what it did until then. A KeyboardInterrupt: code that handles Ctrl-C handles this too."""

    def __init__(self, outcome: LibraryUpdate, exit_code: int) -> None:
        super().__init__(outcome.interrupted_line())
        self.outcome = outcome
        self.exit_code = exit_code  # as a shell reports the signal: 130, 143


class ResearchInterrupted(KeyboardInterrupt):
    """One document's update (``oo update``, ``%oo update``, ``doc.update()``) was interrupted
    (Ctrl-C, a kernel's Interrupt): its message is the one line update-all gives each document
    it stopped, naming the document, that nothing was written and what the research cost so far.
    A KeyboardInterrupt: code that handles Ctrl-C handles this too."""
