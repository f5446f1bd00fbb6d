"""``%oo update`` in a notebook: ``oo_nb.Document.update``, narrated, returning its ``Proposal``.

The run is the API's: freshness gate, research, candidate, the proposal saved as pending. The
notebook part prints what happens as it happens; the Proposal it returns shows as the review
widget while there is something to review, else as its status lines (fresh, dry run, written).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError

from oo_nb.skin import verb_prefix

__all__ = ["narration", "run_update"]


def _agent_label(name: str) -> str:
    return "replay (recorded)" if name == "replay" else name


def _step(line: str) -> None:
    print(f"  {line}", flush=True)


def narration(subject: str) -> dict[str, Callable[[str], None]]:
    """The update's ``progress`` and ``on_start``: research steps print as they happen, and the
    agent is named when research begins (never before a gate's answer)."""

    def researching(agent: str) -> None:
        print(f"Researching {subject} with the {_agent_label(agent)} agent…", flush=True)

    return {"progress": _step, "on_start": researching}


def _readable(path: Path) -> None:
    """A ``UsageError`` naming the file when it cannot be opened (missing, a folder, a link to
    nothing, not a regular file, unreadable), with the documents of its folder whose names are
    close. A named pipe is refused from its ``stat``: opening it would wait for a writer."""
    import stat

    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise UsageError(f"{verb_prefix('update')}: {path} is not a regular file")
        with path.open("rb"):
            pass
    except OSError as exc:
        from oo_nb.cli.main import describe_os_error

        if isinstance(exc, FileNotFoundError) and path.is_symlink():
            raise UsageError(
                f"{verb_prefix('update')}: {path} is a symbolic link to {os.readlink(path)}, which does not exist"
            ) from exc
        hint = ""
        if isinstance(exc, FileNotFoundError) and path.parent.is_dir():
            import difflib

            from oo_nb.format.names import DOC_SUFFIX

            names = [p.name for p in path.parent.glob(f"*{DOC_SUFFIX}")]
            close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.5)
            if close:
                hint = f"; did you mean {', '.join(close)}?"
        raise UsageError(f"{verb_prefix('update')}: {describe_os_error(exc)}{hint}") from exc


def run_update(ns: argparse.Namespace) -> Any:
    """``%oo update``: the API's ``Document.update``, narrated; returns its ``Proposal`` (which
    shows as the review widget while there is something to review)."""
    from oo_nb.api.document import Document

    if getattr(ns, "review", False):
        raise UsageError(
            "%oo update: in a notebook the review is the widget this returns; leave out --review"
        )
    path = Path(ns.doc)
    _readable(path)  # a typo fails here, not after "Researching…"

    proposal = Document.read(path).update(
        force=ns.force,
        model=ns.model,
        budget=ns.budget,
        agent=ns.agent,
        timeout=getattr(ns, "timeout", None),
        dry_run=ns.dry_run,
        yes=ns.yes,
        auto=bool(getattr(ns, "auto", False)),
        **narration(path.name),
        **_recording(ns),
    )
    if proposal.status == "awaiting" and proposal.reviewable:
        print(
            f"{path.name}: the proposal made {proposal.made} awaits your review below; not "
            f"researched again (`%oo update {path} --force` researches anyway, setting it aside)."
        )
    elif proposal.reviewable:  # its display is the widget: the run's lines come first
        print(proposal.text())
    return proposal


def _recording(ns: argparse.Namespace) -> dict[str, Any]:
    """The CLI's options the API takes as plain agent options (base URL, cassette, streaming)."""
    names = {"base_url": "base_url", "cassette": "cassette", "stream": "stream", "record": "record"}
    return {key: getattr(ns, attr) for key, attr in names.items() if getattr(ns, attr, None)}
