"""``oo diff DOC --from V1 | --from-seq N [--to V2 | --to-seq M]``: the review diff between two
kept states of a document."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from oo_nb.format.display import no_typesetting
from oo_nb.format.document import Document
from oo_nb.store.store import Pick, pick_entry

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
    exit_code = 0

    def __init__(
        self, diff: Any, *, color: bool = False, as_json: bool = False, label: str = ""
    ) -> None:
        self.value = diff
        self.color = color
        self.as_json = as_json
        self.label = label

    def to_text(self) -> str:
        if self.as_json:
            return json.dumps(self.value.to_dict(), ensure_ascii=False, indent=2)
        from oo_nb.review.terminal import render_diff

        return f"{self.label}\n{render_diff(self.value, color=self.color)}"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from oo_nb.review.render_html import diff_html

        return {"text/plain": self.to_text(), "text/html": no_typesetting(diff_html(self.value))}

    def __repr__(self) -> str:
        return self.to_text()


def run(ns: argparse.Namespace) -> DiffResult:
    from oo_nb.review.diff import diff_documents

    path = Path(ns.doc)
    v_from, seq_from, v_to, seq_to = ns.v_from, ns.seq_from, ns.v_to, ns.seq_to
    if v_to is None and seq_to is None:
        newer: Pick | None = None
        new_data = path.read_bytes()
    else:
        newer = pick_entry(path, version=v_to, seq=seq_to)
        new_data = newer.data
    # A version shared by several states (contract edits and `oo sync` keep the number) means
    # the newest of them that differs from the newer side, so the diff is not empty by accident.
    older = pick_entry(path, version=v_from, seq=seq_from, avoid=new_data)
    old = Document.parse(older.data, path=path)
    new = Document.parse(new_data, path=path)
    by_seq = (
        seq_from is not None
        or seq_to is not None
        or bool(older.others)
        or bool(newer and newer.others)
    )
    return DiffResult(
        diff_documents(old, new),
        color=ns.color,
        as_json=ns.json,
        label=_label(path, older, newer, new, by_seq),
    )


def _version(v: int | None) -> str:
    return "-" if v is None else str(v)


def _label(path: Path, older: Pick, newer: Pick | None, new: Document, by_seq: bool) -> str:
    to = (
        f"v{_version(newer.entry.version)}"
        if newer
        else f"the current file (v{_version(_doc_version(new))})"
    )
    label = f"{path}: v{_version(older.entry.version)} → {to}"
    if by_seq:  # the version numbers alone do not say which states these are
        label += f" (seq {older.entry.seq} → {f'seq {newer.entry.seq}' if newer else 'current'})"
    for pick in (older, newer):
        if pick is not None and pick.others:
            held = ", ".join(map(str, pick.same_version))
            label += (
                f"\nnote: seq {held} all carry version {_version(pick.entry.version)}, not all with the same"
                f" contents; compared seq {pick.entry.seq}. `--from-seq`/`--to-seq` pick another (`oo history` lists them)."
            )
    return label


def _doc_version(doc: Document) -> int | None:
    return doc.manifest.version if doc.kind == "document" else None
