"""``%oo update`` in a notebook: the shared ``update`` verb, narrated, ending in the review widget.

The run is the CLI's (``oo_nb.cli.update.run``): freshness gate, research, candidate, the
proposal saved as pending. The notebook part prints what happens as it happens and then returns
what the user acts on: the review widget for a proposal, a preview when ``--yes`` wrote it, the
text when nothing was proposed (fresh document, dry run).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError

__all__ = ["run_update"]


def _agent_label(name: str) -> str:
    return "replay (recorded)" if name == "replay" else name


def _step(line: str) -> None:
    print(f"  {line}", flush=True)


def _readable(path: Path) -> None:
    """A ``UsageError`` naming the file when it cannot be opened (missing, a folder, a link to
    nothing, not a regular file, unreadable), with the documents of its folder whose names are
    close. A named pipe is refused from its ``stat``: opening it would wait for a writer."""
    import stat

    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise UsageError(f"oo update: {path} is not a regular file")
        with path.open("rb"):
            pass
    except OSError as exc:
        from oo_nb.cli.main import describe_os_error

        if isinstance(exc, FileNotFoundError) and path.is_symlink():
            raise UsageError(
                f"oo update: {path} is a symbolic link to {os.readlink(path)}, which does not exist"
            ) from exc
        hint = ""
        if isinstance(exc, FileNotFoundError) and path.parent.is_dir():
            import difflib

            from oo_nb.format.names import DOC_SUFFIX

            names = [p.name for p in path.parent.glob(f"*{DOC_SUFFIX}")]
            close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.5)
            if close:
                hint = f"; did you mean {', '.join(close)}?"
        raise UsageError(f"oo update: {describe_os_error(exc)}{hint}") from exc


def run_update(ns: argparse.Namespace) -> Any:
    from oo_nb.cli import update

    if getattr(ns, "review", False):
        raise UsageError(
            "%oo update: in a notebook the review is the widget this returns; leave out --review"
        )
    path = Path(ns.doc)
    _readable(path)  # a typo fails here, not after "Researching…"

    def researching(agent: str) -> None:
        print(f"Researching {path.name} with the {_agent_label(agent)} agent…", flush=True)

    ns.on_start = researching  # said when research begins, never before a gate's answer
    ns.progress = _step  # research steps print as they happen (the agent's on_progress)
    outcome = update.run(ns)
    result = outcome.result
    if result.status == "awaiting":
        waiting = _awaiting_widget(path)
        if waiting is not None:
            return waiting
    for line in outcome.lines():
        print(line)
    if result.status != "proposed":
        return None  # skipped (fresh) or dry run: the lines above say why
    if result.written is not None:
        from oo_nb.format.document import Document
        from oo_nb.notebook.preview import ArticlePreview

        return ArticlePreview(Document.read(path))
    from oo_nb.notebook.review_widget import ReviewWidget

    return ReviewWidget.from_pending(path)


def _awaiting_widget(path: Path) -> Any:
    """The review widget of the proposal that stopped this update (an earlier run's, not yet
    reviewed), with one line saying so; None when it cannot be reviewed as it is (damaged, or
    made before the document changed), where the update's own message says what to do."""
    from oo_nb.notebook.review_widget import ReviewWidget
    from oo_nb.store.proposals import awaiting_review

    waiting = awaiting_review(path)
    if waiting is None or waiting.damaged or waiting.stale:
        return None
    widget = ReviewWidget.from_pending(path)
    print(
        f"{path.name}: the proposal made {waiting.made} awaits your review below; not researched "
        f"again (`%oo update {path} --force` researches anyway, setting it aside)."
    )
    return widget
