"""``oo history DOC``: every kept version with date, summary and cost."""

from __future__ import annotations

import argparse

from ..store import HistoryEntry, read_history
from . import TextResult

HELP = "list a document's kept versions (version, date, action, summary, cost)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc")


def format_history(entries: list[HistoryEntry]) -> str:
    if not entries:
        return "no such document"
    rows = [("seq", "version", "as of", "saved", "how it ended", "cost", "summary")]
    for e in entries:
        rows.append(
            (
                str(e.seq),
                "-" if e.version is None else str(e.version),
                e.as_of or "-",
                e.saved_at[:16].replace("T", " "),
                "(current)" if e.snapshot is None else f"replaced by {e.action}",
                "-" if e.cost_usd is None else f"${e.cost_usd:.4f}",
                e.summary[:70],
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(6)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:6], widths, strict=True)) + "  " + r[6] for r in rows)


def run(ns: argparse.Namespace) -> TextResult:
    entries = read_history(ns.doc)
    return TextResult(format_history(entries), exit_code=0 if entries else 1, value=entries)
