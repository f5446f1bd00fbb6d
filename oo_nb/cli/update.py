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
from typing import Any

from oo_nb.agent.deadline import DEFAULT_DEADLINE_S
from oo_nb.agent.run import (
    AGENTS,
    UpdateOptions,
    UpdateResult,
    prepare_update,
    run_dict,
    write_result,
)
from oo_nb.errors import AgentError, ConflictError, LockedError
from oo_nb.format.display import no_typesetting

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
    """``--budget``: a positive, finite number of dollars (0 would let nothing be spent, for
    every document alike: a mistake in the command, said before anything is read)."""
    try:
        value = float(text.strip().lstrip("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of dollars, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be more than $0, got {text!r}")
    return value


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
    print(f"  {line}", file=sys.stderr, flush=True)


class UpdateOutcome:
    """What ``oo update`` did: the result object, its text and exit code (0 done, 1 kept back)."""

    def __init__(self, result: UpdateResult, exit_code: int = 0, note: str = "") -> None:
        self.result = result
        self.value = result
        self.exit_code = exit_code
        self.note = note

    def lines(self) -> list[str]:
        r = self.result
        out = [r.message]
        out += [f"  warning: {w}" for w in r.warnings]
        if r.status == "planned" and r.plan:
            out.append("  first request plan: " + ", ".join(f"{k} {v}" for k, v in r.plan.items()))
        if r.written:
            out.append(f"  written: {r.written} (the previous version is kept in history)")
        elif r.pending:
            if r.kept_because:
                out.append(
                    "  not written automatically, kept for review: " + "; ".join(r.kept_because)
                )
            out.append(f"  proposal saved for review: {r.pending}; the document is unchanged")
        elif r.not_saved:
            out.append(f"  proposal NOT saved: {r.not_saved}; the document is unchanged")
        if self.note:
            out.append(f"  {self.note}")
        return out

    def to_text(self) -> str:
        return "\n".join(self.lines())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        items = "".join(f"<li>{html.escape(line.strip())}</li>" for line in self.lines()[1:])
        body = f"<p><b>{html.escape(self.result.message)}</b></p>" + (
            f"<ul>{items}</ul>" if items else ""
        )
        markup = no_typesetting(f'<div class="oo-update">{body}</div>')
        return {"text/plain": self.to_text(), "text/html": markup}

    def __repr__(self) -> str:
        return self.to_text()


def options(ns: argparse.Namespace) -> UpdateOptions:
    return UpdateOptions(
        force=ns.force,
        model=ns.model,
        budget_usd=ns.budget,
        agent=ns.agent,
        base_url=ns.base_url,
        cassette=ns.cassette,
        dry_run=ns.dry_run,
        stream=getattr(ns, "stream", False),
        record=getattr(ns, "record", None),
        # the %oo magic sets its own; the CLI prints steps and waits on stderr
        progress=getattr(ns, "progress", None) or print_progress,
        on_start=getattr(ns, "on_start", None),
        timeout_s=getattr(ns, "timeout", None),
    )


def _review(result: UpdateResult) -> UpdateOutcome:
    import importlib

    from oo_nb.format.document import Document
    from oo_nb.store.store import write_document

    # the terminal review belongs to the review package; imported only when asked for
    review_in_terminal = importlib.import_module("oo_nb.review.terminal").review_in_terminal

    assert result.candidate is not None
    original = Document.parse(result.original, path=result.path)
    final = review_in_terminal(original, result.candidate.document, run_dict(result))
    if final is None:
        write_result(result, yes=False)
        return UpdateOutcome(result, 1, "review ended without accepting: nothing written")
    if final.to_bytes() == result.original:  # everything rejected: no new version, no history entry
        return UpdateOutcome(result, 0, "nothing accepted: the document is unchanged")
    try:
        result.written = write_document(
            final.with_path(result.path),
            expected=result.original,
            action="update (reviewed)",
            scrub_secrets=True,
        )
    except (ConflictError, LockedError) as exc:
        # The research is paid for: keep the whole proposal so it can be reviewed again.
        write_result(result, yes=False)
        again = f"`oo review {shlex.quote(str(result.path))}`"
        if isinstance(exc, ConflictError):  # the saved proposal is now older than the file
            again = (
                again[:-1]
                + " --force` (its diff is against the current file: where you accept, it undoes the other edit)"
            )
        kept = (
            f"the proposal is: review it again with {again}"
            if result.pending
            else "nor is the proposal (see the warnings)"
        )
        return UpdateOutcome(
            result, 1, f"not written: {exc.message}; your decisions are not kept, {kept}"
        )
    from oo_nb.agent.run import keep_earlier_proposal

    keep_earlier_proposal(
        result.path, result.warnings
    )  # an earlier unreviewed one: set aside, not lost
    return UpdateOutcome(result)


def run(ns: argparse.Namespace) -> UpdateOutcome:
    try:
        result = prepare_update(Path(ns.doc), options(ns))
    except AgentError as exc:
        raise type(exc)(
            f"{exc.message}; nothing was written", cost_usd=exc.cost_usd, file=exc.file
        ) from None
    if result.status != "proposed":
        return UpdateOutcome(result)
    if ns.review:
        try:
            return _review(result)
        finally:
            result.release_claim()
    # --auto, else the contract's `review` decides (the %oo magic's namespace may lack the flag)
    write_result(result, yes=ns.yes, auto=True if getattr(ns, "auto", False) else None)
    if result.not_saved:
        return UpdateOutcome(result, 1, "the research of this run is lost: run the update again")
    if ns.yes and not result.written:
        return UpdateOutcome(
            result,
            1,
            f"not written automatically (see the warnings): review the saved proposal with `oo review {result.path.name}`",
        )
    return UpdateOutcome(result)
