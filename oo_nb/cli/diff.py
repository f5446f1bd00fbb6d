"""``oo diff DOC --from V1 | --from-seq N [--to V2 | --to-seq M]``: the review diff between two
kept states of a document."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from oo_nb.api.history import Diff, diff_states

HELP = "show what changed between two kept versions (the same diff the review uses)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc")
    old = p.add_mutually_exclusive_group(required=True)
    old.add_argument(
        "--from",
        dest="v_from",
        type=int,
        metavar="V1",
        help="older version (when several states share it: the newest that differs from the newer side)",
    )
    old.add_argument(
        "--from-seq",
        dest="seq_from",
        type=int,
        metavar="N",
        help="older state by its `oo history` seq",
    )
    new = p.add_mutually_exclusive_group()
    new.add_argument(
        "--to",
        dest="v_to",
        type=int,
        metavar="V2",
        help="newer version (default: the current file)",
    )
    new.add_argument(
        "--to-seq", dest="seq_to", type=int, metavar="M", help="newer state by its `oo history` seq"
    )
    p.add_argument("--color", action="store_true", help="colour the output")
    p.add_argument("--json", action="store_true", help="print the diff as JSON data")


class DiffResult:
    """The API's ``Diff`` as the CLI prints it (colours, or JSON) and the notebook shows it."""

    exit_code = 0

    def __init__(self, diff: Diff, *, color: bool = False, as_json: bool = False) -> None:
        self.diff = diff
        self.value = diff.changes
        self.color = color
        self.as_json = as_json
        # its own colours in the text (each piece made terminal-safe as it was painted)
        self.painted = color and not as_json

    def to_text(self) -> str:
        if self.as_json:
            return json.dumps(self.diff.to_dict(), ensure_ascii=False, indent=2)
        return self.diff.text(color=self.color)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return self.diff._repr_mimebundle_(include, exclude)

    def __repr__(self) -> str:
        return self.to_text()


def run(ns: argparse.Namespace) -> DiffResult:
    diff = diff_states(Path(ns.doc), ns.v_from, ns.v_to, from_seq=ns.seq_from, to_seq=ns.seq_to)
    return DiffResult(diff, color=ns.color, as_json=ns.json)
