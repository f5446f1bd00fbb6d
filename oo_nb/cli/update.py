"""``oo update DOC``: research what changed and propose an update.

Without ``--yes`` the candidate is saved as the pending proposal (review it with ``--review`` now
or the review tools later) and the document's bytes do not change. With ``--yes`` it is written
through the store (history kept) — unless the run went over its budget: then it is only kept for
review. ``--auto`` (or the contract's ``review: "auto"``) writes it only when it is clean.
``--review`` opens the terminal review and writes what you accept. A document whose earlier
proposal still awaits review is not researched again unless ``--force``.
"""

from __future__ import annotations

import argparse
import html
import math
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.agent.deadline import DEFAULT_DEADLINE_S
from oo_nb.agent.run import AGENTS
from oo_nb.api.document import Document
from oo_nb.api.update import propose_update
from oo_nb.errors import AgentError, ConflictError, LockedError, ValidationError
from oo_nb.format.budget_rule import parse_budget
from oo_nb.format.display import no_typesetting
from oo_nb.format.vocab import terminal_safe

if TYPE_CHECKING:
    from oo_nb.api.proposal import Proposal

HELP = "research what changed and propose an update (saved for review; --yes writes it)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc", help="the .o-o.html document")
    p.add_argument(
        "--force", action="store_true", help="update even if the document is still fresh"
    )
    p.add_argument(
        "--model",
        help="model id or family (sonnet, opus, haiku, fable); default: the contract's model, else $OO_MODEL, else claude-sonnet-5-5",
    )
    p.add_argument(
        "--budget",
        type=positive_usd,
        metavar="USD",
        help="spend at most this much (default: the contract's budget)",
    )
    p.add_argument(
        "--agent",
        choices=AGENTS,
        help="research backend (default: anthropic when ANTHROPIC_API_KEY is set, else replay of the "
        "document's recorded run, else claude-code when `claude` is on PATH)",
    )
    p.add_argument(
        "--base-url",
        metavar="URL",
        help="any Anthropic-compatible endpoint (default: ANTHROPIC_BASE_URL or the API)",
    )
    p.add_argument("--cassette", type=Path, metavar="FILE", help="recorded run for --agent replay")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="show what would be sent and the budget plan; call nothing, write nothing",
    )
    p.add_argument("--stream", action="store_true", help="stream API responses (SSE)")
    add_timeout_argument(p)
    p.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write this run's API exchanges to a cassette for --agent replay (no key is written)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--yes", action="store_true", help="write the update without review (history kept)"
    )
    mode.add_argument(
        "--auto",
        action="store_true",
        help="write the update when it is clean (every new source verified, no warning, within "
        "budget, no section removed, no unsupported quote), else keep it for review saying why; "
        'the contract\'s `review: "auto"` makes this the default',
    )
    mode.add_argument(
        "--review",
        action="store_true",
        help="review the proposal in the terminal, then write what you accept",
    )


def seconds(text: str) -> float:
    """``--timeout``: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text!r}")
    return value


def positive_usd(text: str) -> float:
    """``--budget``: the contract's budget rule (``format.budget_rule``): 0 would let nothing be
    spent and 1e308 is no bound, for every document alike: a mistake in the command, said
    before anything is read."""
    try:
        return parse_budget(text)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def add_timeout_argument(p: argparse.ArgumentParser, *, per: str = "the research") -> None:
    p.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help=f"give up when {per} has not finished after SECONDS, every API request and retry "
        f"included (default {DEFAULT_DEADLINE_S:.0f}; claude-code: 3600); nothing is written then",
    )


def print_progress(line: str) -> None:
    """A research step or a "still waiting" line, on stderr as it happens (stdout keeps the
    result, for scripts)."""
    print(terminal_safe(f"  {line}"), file=sys.stderr, flush=True)  # (an agent's search words)


class UpdateOutcome:
    """What ``oo update`` did: the API's ``Proposal``, its text and exit code (0 done, 1 kept
    back)."""

    # said of a written update; `oo new` says its own (a new document had no previous version)
    written_note = "the previous version is kept in history"

    def __init__(self, proposal: Proposal, exit_code: int = 0, note: str = "") -> None:
        self.proposal = proposal
        self.value = proposal
        self.exit_code = exit_code
        self.note = note

    def lines(self) -> list[str]:
        p = self.proposal
        out = [p.message]
        out += [f"  warning: {w}" for w in p.warnings]
        if p.status == "planned" and p.plan:
            out.append("  first request plan: " + ", ".join(f"{k} {v}" for k, v in p.plan.items()))
        if p.written_to:
            out.append(f"  written: {p.written_to} ({self.written_note})")
        elif p.saved_to:
            if p.kept_because:
                out.append(
                    "  not written automatically, kept for review: " + "; ".join(p.kept_because)
                )
            out.append(f"  proposal saved for review: {p.saved_to}; the document is unchanged")
        elif p.not_saved:
            out.append(f"  proposal NOT saved: {p.not_saved}; the document is unchanged")
        if self.note:
            out.append(f"  {self.note}")
        return out

    def to_text(self) -> str:
        return "\n".join(self.lines())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        items = "".join(f"<li>{html.escape(line.strip())}</li>" for line in self.lines()[1:])
        body = f"<p><b>{html.escape(self.proposal.message)}</b></p>" + (
            f"<ul>{items}</ul>" if items else ""
        )
        markup = no_typesetting(f'<div class="oo-update">{body}</div>')
        return {"text/plain": self.to_text(), "text/html": markup}

    def __repr__(self) -> str:
        return self.to_text()


def options(ns: argparse.Namespace) -> dict[str, Any]:
    """``propose_update``'s keywords from the verb's arguments."""
    return {
        "force": ns.force,
        "model": ns.model,
        "budget": ns.budget,
        "agent": ns.agent,
        "base_url": ns.base_url,
        "cassette": ns.cassette,
        "dry_run": ns.dry_run,
        "stream": getattr(ns, "stream", False),
        "record": getattr(ns, "record", None),
        # the %oo magic sets its own; the CLI prints steps and waits on stderr
        "progress": getattr(ns, "progress", None) or print_progress,
        "on_start": getattr(ns, "on_start", None),
        "timeout": getattr(ns, "timeout", None),
    }


def _review(proposal: Proposal) -> UpdateOutcome:
    """The terminal review of the proposal just saved, then what was accepted written."""
    if not proposal.reviewable:  # another run set it aside as soon as it was saved
        return UpdateOutcome(
            proposal,
            1,
            f"another update set the proposal aside: `oo review {shlex.quote(str(proposal.path))} "
            "--list` shows it",
        )
    if not proposal.review_in_terminal():
        return UpdateOutcome(proposal, 1, "review ended without accepting: nothing written")
    try:
        proposal.write(action="update (reviewed)")
    except (ConflictError, LockedError) as exc:
        # The research is paid for: the saved proposal stays, to be reviewed again.
        again = f"`oo review {shlex.quote(str(proposal.path))}`"
        said = exc.message
        if isinstance(exc, ConflictError):  # the saved proposal is now older than the file
            # (said in the command's words: the error's own advice is the Python API's)
            said = "the document changed on disk since this proposal was made"
            again = (
                again[:-1]
                + " --force` (its diff is against the current file: where you accept, it undoes the other edit)"
            )
        return UpdateOutcome(
            proposal,
            1,
            f"not written: {said}; your decisions are not kept, the proposal is: review "
            f"it again with {again}",
        )
    if proposal.written_to is None:  # everything rejected: no new version, no history entry
        return UpdateOutcome(proposal, 0, "nothing accepted: the document is unchanged")
    return UpdateOutcome(proposal)


def run(ns: argparse.Namespace) -> UpdateOutcome:
    # --review decides here, whatever the contract says; else --auto, else the contract's
    # `review` (the %oo magic's namespace may lack the flag)
    auto = False if ns.review else (True if getattr(ns, "auto", False) else None)
    try:
        proposal = propose_update(Path(ns.doc), Document.read, yes=ns.yes, auto=auto, **options(ns))
    except AgentError as exc:
        raise nothing_written(exc) from None
    if ns.review and proposal.status == "proposed":
        return _review(proposal)
    return outcome(proposal, yes=ns.yes)


def nothing_written(exc: AgentError) -> AgentError:
    """The agent's error, saying that the document was not written."""
    return type(exc)(f"{exc.message}; nothing was written", cost_usd=exc.cost_usd, file=exc.file)


def outcome(proposal: Proposal, *, yes: bool) -> UpdateOutcome:
    """What an update that was not reviewed in the terminal did, with its exit code (``oo new``
    prints its first update with it too)."""
    if proposal.status == "not saved":
        return UpdateOutcome(proposal, 1, "the research of this run is lost: run the update again")
    if proposal.status != "proposed":  # fresh, awaiting, busy, a dry run, or written
        return UpdateOutcome(proposal)
    if yes:
        return UpdateOutcome(
            proposal,
            1,
            f"not written automatically (see the warnings): review the saved proposal with `oo review {proposal.path.name}`",
        )
    return UpdateOutcome(proposal)
