"""``oo show DOC [--json]``: a readable summary, or the normalised views as one JSON object."""

from __future__ import annotations

import argparse
import json

from oo_nb.cli.verbs import TextResult
from oo_nb.errors import ValidationError
from oo_nb.format.document import Document
from oo_nb.format.summary import summary_json, summary_text

HELP = "show a document's manifest, contract, sources and article summary"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc", help="path to a NAME.o-o.html document")
    p.add_argument(
        "--json", action="store_true", help="print one JSON object with the normalised views"
    )


def run(ns: argparse.Namespace) -> TextResult:
    doc = Document.read(ns.doc)
    if doc.kind == "index":
        raise ValidationError(
            "this is a library index page, not a document: it has no manifest or contract "
            "(use oo index DIR to rebuild it, oo library DIR to see its documents)",
            file=doc.file,
        )
    if ns.json:
        data = summary_json(doc)
        return TextResult(json.dumps(data, ensure_ascii=False, indent=2), value=data)
    return TextResult(summary_text(doc), value=doc)
