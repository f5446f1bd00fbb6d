"""``oo rollback DOC --to VERSION | --seq N``: restore a kept state byte for byte (itself recorded)."""

from __future__ import annotations

import argparse

from oo_nb.cli.verbs import TextResult
from oo_nb.store.store import Restored, restore

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


def describe(done: Restored, *, by_seq: bool) -> str:
    """What happened, in words: which state is in place now and whether anything was written."""
    entry = done.pick.entry
    version = "-" if entry.version is None else str(entry.version)
    if not done.written:
        same = (
            ""
            if entry.seq == done.current_seq
            else f", the same bytes as the current file (seq {done.current_seq})"
        )
        return f"{done.path}: already at version {version} (seq {entry.seq}{same}); nothing written"
    kept = f"the previous file is kept in history as seq {done.current_seq}"
    if by_seq:
        return f"{done.path}: restored seq {entry.seq} (version {version}; {kept})"
    if not done.pick.others:  # the version number alone named one state: the message it always had
        return f"{done.path}: restored version {version} (the previous file is kept in history)"
    held = ", ".join(map(str, done.pick.same_version))
    return (
        f"{done.path}: restored version {version} from seq {entry.seq} ({kept})\n"
        f"note: seq {held} all carry version {version}, not all with the same contents; seq {entry.seq} is the"
        " newest that differs from the file you had. `--seq N` restores another (`oo history` lists them)."
    )


def run(ns: argparse.Namespace) -> TextResult:
    done = restore(ns.doc, ns.to, seq=ns.seq, allow_unknown_code=ns.allow_unknown_code)
    return TextResult(describe(done, by_seq=ns.seq is not None), value=done.path)
