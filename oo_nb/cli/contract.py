"""``oo contract DOC``: show or edit a document's contract (``--set``, ``--add``, ``--remove``)."""

from __future__ import annotations

import argparse
import json

from oo_nb.cli.verbs import TextResult
from oo_nb.edit.contract import (
    LIST_KEYS,
    SET_KEYS,
    ContractEditResult,
    Edit,
    apply_edits,
    canonical_key,
    summary,
)
from oo_nb.format.document import Document
from oo_nb.format.names import CONTRACT_BLOCK, MANIFEST_BLOCK

__all__ = ["HELP", "add_arguments", "run"]

HELP = "show or edit a document's contract: --set KEY VALUE, --add LIST VALUE, --remove LIST VALUE"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("doc", help="the document (.o-o.html)")
    parser.add_argument(
        "--show", action="store_true", help="print the manifest and contract (the default)"
    )
    parser.add_argument(
        "--json", action="store_true", help="with --show: the raw JSON of both blocks"
    )
    parser.add_argument(
        "--set",
        nargs=2,
        action="append",
        default=[],
        metavar=("KEY", "VALUE"),
        help=f"set a field: {', '.join(SET_KEYS)}",
    )
    parser.add_argument(
        "--add",
        nargs=2,
        action="append",
        default=[],
        metavar=("LIST", "VALUE"),
        help=f"add to a list: {', '.join(LIST_KEYS)}",
    )
    parser.add_argument(
        "--remove",
        nargs=2,
        action="append",
        default=[],
        metavar=("LIST", "VALUE"),
        help=f"remove from a list: {', '.join(LIST_KEYS)}",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="say what would change; write nothing"
    )


def _edits(ns: argparse.Namespace) -> list[Edit]:
    edits = [Edit("set", canonical_key(k, lists=False), v) for k, v in ns.set]
    edits += [Edit("add", canonical_key(k, lists=True), v) for k, v in ns.add]
    edits += [Edit("remove", canonical_key(k, lists=True), v) for k, v in ns.remove]
    return edits


def run(ns: argparse.Namespace) -> ContractEditResult | TextResult:
    edits = _edits(ns)
    if edits:
        return apply_edits(ns.doc, edits, dry_run=ns.dry_run)
    doc = Document.read(ns.doc)
    if ns.json:
        summary(doc)  # refuses an index with a clear message
        blocks = {
            "manifest": doc.block_json(MANIFEST_BLOCK),
            "contract": doc.block_json(CONTRACT_BLOCK),
        }
        return TextResult(json.dumps(blocks, indent=2, ensure_ascii=False), value=blocks)
    return TextResult(summary(doc), value=doc.contract)
