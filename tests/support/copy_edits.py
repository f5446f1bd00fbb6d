"""Edits of the demo's heat-pumps document as Claude Code leaves them in its scratch copy, judged
for ``--auto`` as an update judges them: the copy made a proposal (``proposal_from_copy``), the
proposal a candidate (``build_candidate``), the candidate's reasons (``unclean_reasons``). No
process, no network: what the Claude Code backend does after its run, for one edited text.

``NEW_URL`` is a page the run saw, cached as ``NEW_SOURCE`` by ``with_new_source``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path
from typing import Any

from oo_nb.format.document import Document

__all__ = [
    "DOC",
    "NEW_SOURCE",
    "NEW_URL",
    "auto_reasons",
    "built",
    "replaced",
    "with_new_source",
]

DOC = (
    Path(__file__).resolve().parents[2] / "oo_nb/demo/data/documents/heat-pumps-in-europe.o-o.html"
)
NEW_URL = "https://news.example.com/heat-pumps/2026-sales"
NEW_SOURCE = "s6"

Edit = Callable[[str], str]


def replaced(old: str, new: str) -> Edit:
    """An edit of the copy's text: ``old`` (which must be there) made ``new``, once."""

    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return edit


def with_new_source(text: str) -> str:
    """The copy with ``NEW_SOURCE`` (at ``NEW_URL``) added to its source cache."""
    doc = Document.parse(text.encode())

    def add(cache: dict[str, Any]) -> None:
        cache["sources"].append(
            {"id": NEW_SOURCE, "url": NEW_URL, "title": "Sales in 2026", "tier": "news",
             "accessed": "2026-12-01"}
        )  # fmt: skip

    return doc.edit_block("oo-source-cache", add).text


def built(
    *edits: Edit,
    seen: Iterable[str] = (NEW_URL,),
    hits: Iterable[str] = (),
    base: Iterable[Edit] = (),
) -> Any:
    """The update result (``run.UpdateResult``) of a copy with ``edits`` made, in order;
    ``seen``: the pages the run read (fetched); ``hits``: URLs its searches only listed;
    ``base``: edits made to the document before the run (the user's own version)."""
    from oo_nb.agent.backends.claude_code import proposal_from_copy
    from oo_nb.agent.candidate import build_candidate
    from oo_nb.agent.proposal import validate_proposal
    from oo_nb.agent.run import UpdateResult
    from oo_nb.agent.types import RunInfo

    original = Document.read(DOC)
    for edit in base:
        original = Document.parse(edit(original.text).encode())
    text = original.text
    for edit in edits:
        text = edit(text)
    proposal = validate_proposal(proposal_from_copy(original, Document.parse(text.encode())))
    run = RunInfo("claude-code", "claude-sonnet-5-5", cost_usd=0.01, budget_usd=0.5)
    run.seen_urls = {*seen, *hits}
    run.read_urls = set(seen)
    candidate = build_candidate(original, proposal, run, today=date(2026, 12, 1), pid_seed="t")
    return UpdateResult(
        DOC, "proposed", "", original.to_bytes(), "claude-code", "claude-sonnet-5-5", 0.5,
        run=run, candidate=candidate, warnings=list(candidate.warnings),
    )  # fmt: skip


def auto_reasons(
    *edits: Edit,
    seen: Iterable[str] = (NEW_URL,),
    hits: Iterable[str] = (),
    base: Iterable[Edit] = (),
) -> list[str]:
    """Why ``--auto`` would keep the copy's edits for review ([]: it would write them)."""
    from oo_nb.agent.clean import unclean_reasons

    return unclean_reasons(built(*edits, seen=seen, hits=hits, base=base))
