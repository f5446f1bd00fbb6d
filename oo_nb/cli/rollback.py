"""``oo rollback DOC --to VERSION | --seq N``: restore a kept state byte for byte (itself recorded)."""

from __future__ import annotations

import argparse

from oo_nb.api.history import roll_back
from oo_nb.cli.verbs import TextResult

HELP = "restore a kept version byte for byte; the replaced file stays in history"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--to",
        type=int,
        metavar="VERSION",
        help="manifest version to restore (the newest state of it that differs from the file now)",
    )
    which.add_argument(
        "--seq",
        type=int,
        metavar="N",
        help="history entry to restore, as `oo history` numbers them (reaches every state, also "
        "those that share a version number, e.g. before a contract edit)",
    )
    p.add_argument(
        "--allow-unknown-code",
        action="store_true",
        help="restore a state whose page code (shell, markup, scripts, styles) oo_nb does not "
        "know; without it such a rollback is refused, naming the regions",
    )


def run(ns: argparse.Namespace) -> TextResult:
    done = roll_back(ns.doc, ns.to, seq=ns.seq, allow_unknown_code=ns.allow_unknown_code)
    return TextResult(done.message, value=done.path)
