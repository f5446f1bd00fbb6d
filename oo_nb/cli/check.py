"""``oo check DOC…``: validate documents; exit 1 when any has an error."""

from __future__ import annotations

import argparse

from oo_nb.cli.verbs import TextResult
from oo_nb.format.check import check_path
from oo_nb.store import clock

HELP = "validate documents and list findings (exit 1 on errors; --strict: on warnings too)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("docs", nargs="+", metavar="DOC")
    p.add_argument("--strict", action="store_true", help="warnings also fail the check")


def run(ns: argparse.Namespace) -> TextResult:
    today = clock.today()  # (OO_TODAY honoured, as the audit does)
    findings = [f for doc in ns.docs for f in check_path(doc, today)]
    failing = {"error", "warning"} if ns.strict else {"error"}
    bad = [f for f in findings if f.severity in failing]
    lines = [str(f) for f in findings]
    lines.append(
        f"{len(ns.docs)} checked, {len(bad)} failing finding(s)"
        if findings
        else f"{len(ns.docs)} checked, all valid"
    )
    return TextResult("\n".join(lines), exit_code=1 if bad else 0, value=findings)
