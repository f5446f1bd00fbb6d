"""``oo show DOC [--json]``: a readable summary, or the normalised views as one JSON object
(``oo_nb.Document.summary()`` and ``.to_dict()``)."""

from __future__ import annotations

import argparse
import json

from oo_nb.api.document import Document, NotADocument
from oo_nb.cli.verbs import TextResult
from oo_nb.errors import ValidationError

HELP = "show a document's manifest, contract, sources and article summary"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc", help="path to a NAME.o-o.html document")
    p.add_argument(
        "--json", action="store_true", help="print one JSON object with the normalised views"
    )


def run(ns: argparse.Namespace) -> TextResult:
    try:
        doc = Document.read(ns.doc)
    except NotADocument as exc:  # the fix as typed on the command line
        raise ValidationError(
            "this is a library index page, not a document: it has no manifest or contract "
            "(use oo index DIR to rebuild it, oo library DIR to see its documents)",
            file=exc.file,
        ) from None
    if ns.json:
        data = doc.to_dict()
        return TextResult(json.dumps(data, ensure_ascii=False, indent=2), value=data)
    return TextResult(doc.summary(), value=doc)
