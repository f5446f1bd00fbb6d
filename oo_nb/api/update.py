"""One update of one document, by its path: research, then the proposal saved for review or
written. ``Document.update`` calls it, and so does ``oo update`` (which reads no ``Document``
first: the update's own checks name a missing or unreadable file).

The ``Proposal`` it returns carries everything the update did (message, warnings, a dry run's
plan, where it was saved or written, why it was kept back or lost), so the CLI and the magic
print from its fields, never from each other's text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.errors import OOError

if TYPE_CHECKING:
    from oo_nb.agent.run import UpdateOptions, UpdateResult
    from oo_nb.api.document import Document
    from oo_nb.api.proposal import Proposal

Reopen = Callable[[Path], "Document"]  # reads the document after a write: Document.read

__all__ = ["propose_update", "update_options"]


def propose_update(
    path: str | Path,
    reopen: Reopen,
    *,
    yes: bool = False,
    auto: bool | None = None,
    **options: Any,
) -> Proposal:
    """Research ``path`` and propose an update (``Document.update`` documents the options).

    Parameters
    ----------
    path : str or pathlib.Path
        The document.
    reopen : callable
        Reads the document after a write (``Document.read``; passed in, as the document module
        calls this one).
    yes : bool, default False
        Write it without review.
    auto : bool, optional
        True: write it only when it is clean; False: keep it for review; None: as the
        contract's ``review`` says.
    **options
        ``update_options``'s keywords (force, model, budget, agent, timeout, dry_run, progress,
        on_start) and further agent options (base_url, cassette, stream, record).

    Returns
    -------
    Proposal
    """
    from oo_nb.agent.run import prepare_update, write_result
    from oo_nb.api.proposal import Proposal

    result = prepare_update(Path(path), update_options(**options))
    if result.status == "awaiting":
        return _awaiting(result, reopen)
    if result.status != "proposed":
        status = "fresh" if result.status == "skipped" else str(result.status)
        done = Proposal(result.path, status, result.message, warnings=result.warnings)
        done.plan = dict(result.plan)  # a dry run: what the first request would be
        return done
    write_result(result, yes=yes, auto=auto)
    return _after_write(result, reopen)


def update_options(
    *,
    force: bool = False,
    model: str | None = None,
    budget: float | str | None = None,
    agent: str | None = None,
    timeout: float | None = None,
    dry_run: bool = False,
    progress: Callable[[str], None] | None = None,
    on_start: Callable[[str], None] | None = None,
    **more: Any,
) -> UpdateOptions:
    """The agent's options from the API's keyword names (``more``: any other field). A
    ``budget`` is held to the one budget rule (``format.budget_rule``), as ``--budget`` is."""
    from oo_nb.agent.run import UpdateOptions
    from oo_nb.format.budget_rule import parse_budget

    return UpdateOptions(
        force=force,
        model=model,
        budget_usd=None if budget is None else parse_budget(budget),
        agent=agent,
        dry_run=dry_run,
        progress=progress,
        on_start=on_start,
        timeout_s=timeout,
        **more,
    )


def _awaiting(result: UpdateResult, reopen: Reopen) -> Proposal:
    """The earlier proposal the gate found, to review; the gate's message says why it was not
    researched again."""
    from oo_nb.api.proposal import Proposal

    try:
        waiting = Proposal.saved(result.path, reopen)
    except OOError:  # damaged or stale: the gate's message says what to do
        return Proposal(result.path, "awaiting", result.message, warnings=result.warnings)
    waiting.message = result.message
    waiting.warnings = list(result.warnings)  # this call's (the saved run's show in its review)
    return waiting


def _after_write(result: UpdateResult, reopen: Reopen) -> Proposal:
    """The proposal after ``write_result``: written, saved for review, or lost."""
    from oo_nb.api.proposal import Proposal

    if result.written is not None or result.pending is None:
        status = "written" if result.written is not None else "not saved"
        done = Proposal(
            result.path, status, result.message, warnings=result.warnings, cost_usd=result.cost_usd
        )
    else:
        try:
            done = Proposal.saved(result.path, reopen, status="proposed")
        except OOError:  # another run set it aside (or replaced it) meanwhile: saved all the same
            done = Proposal(result.path, "proposed", result.message)
        done.message = result.message
        done.warnings = list(result.warnings)
        done.cost_usd = result.cost_usd
    done.kept_because = list(result.kept_because)
    done.not_saved = result.not_saved
    done.saved_to = result.pending
    done.written_to = result.written
    return done
