"""``oo contract DOC``: show or edit a document's contract (``--set``, ``--add``, ``--remove``);
on a library index, the defaults of the folder's new documents."""

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
    if Document.read(ns.doc).kind == "index":
        return _library_defaults(ns, edits)
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


def _library_defaults(ns: argparse.Namespace, edits: list[Edit]) -> ContractEditResult | TextResult:
    """On a library index: the defaults for the folder's new documents (o-o edits the
    template in its index there)."""
    from pathlib import Path

    from oo_nb.edit.new_defaults import edit_defaults, read_defaults, show_defaults

    folder = Path(ns.doc).parent
    if edits:
        return edit_defaults(folder, edits, dry_run=ns.dry_run)
    if ns.json:
        found = read_defaults(folder)
        value = {"fields": found.fields, "lists": {k: list(v) for k, v in found.lists.items()}}
        return TextResult(json.dumps(value, indent=2, ensure_ascii=False), value=value)
    return TextResult(show_defaults(folder), value=read_defaults(folder))
