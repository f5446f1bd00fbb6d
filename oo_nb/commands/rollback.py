"""``oo rollback DOC --to VERSION``: restore a kept version byte for byte (itself recorded)."""

from __future__ import annotations

import argparse

from ..store import rollback
from . import TextResult

HELP = "restore a kept version byte for byte; the replaced file stays in history"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc")
    p.add_argument("--to", type=int, required=True, metavar="VERSION", help="manifest version to restore")


def run(ns: argparse.Namespace) -> TextResult:
    path = rollback(ns.doc, ns.to)
    return TextResult(f"{path}: restored version {ns.to} (the previous file is kept in history)", value=path)
