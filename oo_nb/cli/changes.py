"""``oo changes DIR [--since DATE]``: what changed across a library's history, one row per change
to a fact, a source, a section or a sentinel's status (``library.changes`` lists the columns)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from oo_nb.api.library import CHANGE_KINDS
from oo_nb.cli.library import parse_day, render

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HELP", "ChangesResult", "add_arguments", "run"]

HELP = "what changed in a library's documents (facts, sources, sections, sentinel status), from their history"

KINDS = CHANGE_KINDS  # the API's list


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="folder of NAME.o-o.html documents (or one document)")
    p.add_argument(
        "--since",
        type=parse_day,
        default=None,
        metavar="YYYY-MM-DD",
        help="only changes dated on or after this day (default: all)",
    )
    p.add_argument("--kind", choices=KINDS, action="append", help="only these kinds (repeatable)")
    p.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format"
    )


class ChangesResult:
    """The changes frame (``value``); the CLI prints it as a table, CSV or JSON."""

    def __init__(self, frame: pd.DataFrame, fmt: str) -> None:
        self.value = frame
        self.format = fmt
        self.exit_code = 0

    def to_text(self) -> str:
        frame = self.value
        if self.format == "table":  # the name says which document; the folder is noise here
            frame = frame.drop(columns=["path", "evidence"])
            if frame.empty:
                return "no changes in the history kept"
        return render(frame, self.format)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": repr(self.value), "text/html": self.value.to_html(escape=True)}


def run(ns: argparse.Namespace) -> ChangesResult:
    from oo_nb.api.library import Library

    return ChangesResult(Library(ns.dir).changes(since=ns.since, kind=ns.kind), ns.format)
