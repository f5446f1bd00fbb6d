"""``oo diff DOC --from V1 [--to V2]``: the review diff between two kept versions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..document import Document
from ..store import version_bytes

HELP = "show what changed between two kept versions (the same diff the review uses)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc")
    p.add_argument("--from", dest="v_from", type=int, required=True, metavar="V1", help="older version")
    p.add_argument("--to", dest="v_to", type=int, metavar="V2", help="newer version (default: the current file)")
    p.add_argument("--color", action="store_true", help="colour the output")
    p.add_argument("--json", action="store_true", help="print the diff as JSON data")


class DiffResult:
    exit_code = 0

    def __init__(self, diff: Any, *, color: bool = False, as_json: bool = False, label: str = "") -> None:
        self.value = diff
        self.color = color
        self.as_json = as_json
        self.label = label

    def to_text(self) -> str:
        if self.as_json:
            return json.dumps(self.value.to_dict(), ensure_ascii=False, indent=2)
        from ..review.terminal import render_diff

        return f"{self.label}\n{render_diff(self.value, color=self.color)}"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from ..review.render_html import diff_html

        return {"text/plain": self.to_text(), "text/html": diff_html(self.value)}

    def __repr__(self) -> str:
        return self.to_text()


def run(ns: argparse.Namespace) -> DiffResult:
    from ..review.diff import diff_documents

    path = Path(ns.doc)
    old = Document.parse(version_bytes(path, ns.v_from), path=path)
    new_data = version_bytes(path, ns.v_to) if ns.v_to is not None else path.read_bytes()
    new = Document.parse(new_data, path=path)
    to = f"v{ns.v_to}" if ns.v_to is not None else f"the current file (v{new.manifest.version})"
    return DiffResult(diff_documents(old, new), color=ns.color, as_json=ns.json, label=f"{path}: v{ns.v_from} → {to}")
