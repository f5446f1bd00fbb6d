"""``oo history DOC``: every kept state, numbered by seq, with version, date, summary and cost."""

from __future__ import annotations

import argparse

from oo_nb.api.history import read_entries
from oo_nb.cli.verbs import TextResult
from oo_nb.store.history import CHANGED_OUTSIDE, snapshot_state
from oo_nb.store.store import HistoryEntry

HELP = "list a document's kept versions (version, date, action, summary, cost)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("doc")


def format_history(entries: list[HistoryEntry], doc: str = "DOC") -> str:
    if not entries:
        return "no such document"
    # sha256 (its start) tells apart states that share a version number, and shows repeats
    rows = [("seq", "version", "sha256", "as of", "saved", "how it ended", "cost", "summary")]
    lost: list[str] = []
    for e in entries:
        state = snapshot_state(e)
        ended = "(current)" if e.snapshot is None else f"replaced by {e.action}"
        if e.former:
            ended += " [former document]"
        if state in ("missing", "damaged"):
            ended += f" [snapshot {state}]"
            lost.append(
                f"seq {e.seq}: snapshot {state} ({e.snapshot}): this version cannot be restored or compared"
            )
        rows.append(
            (
                str(e.seq),
                "-" if e.version is None else str(e.version),
                e.sha256[:8],
                e.as_of or "-",
                e.saved_at[:16].replace("T", " "),
                ended,
                "-" if e.cost_usd is None else f"${e.cost_usd:.4f}",
                e.summary[:70],
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(7)]
    table = [
        "  ".join(c.ljust(w) for c, w in zip(r[:7], widths, strict=True)) + "  " + r[7]
        for r in rows
    ]
    return "\n".join(
        table + lost + _former(entries, doc) + _outside(entries, doc) + _hints(entries, doc)
    )


def _former(entries: list[HistoryEntry], doc: str) -> list[str]:
    """Say which states are a former document's: one deleted, whose name a new one took."""
    spans: dict[int, list[int]] = {}
    for e in entries:
        if e.former:
            spans.setdefault(e.document, []).append(e.seq)
    if not spans:
        return []
    seqs = ", ".join(f"{s[0]}-{s[-1]}" if len(s) > 1 else str(s[0]) for s in spans.values())
    return [
        f"seq {seqs}: a former document at this name (deleted, then `oo new` made this one); "
        f"`--to` never picks them, `oo rollback {doc} --seq N` restores one."
    ]


def _outside(entries: list[HistoryEntry], doc: str) -> list[str]:
    """Say so where the file was changed outside oo: what oo wrote before is kept, and how to
    get it back."""
    return [
        f"seq {e.seq} is what oo last wrote before the file was changed outside oo (an editor, a "
        f"checkout, a sync tool): `oo rollback {doc} --seq {e.seq}` gives it back."
        for e in entries
        if e.action == CHANGED_OUTSIDE and not e.former  # (a former one's: said by `_former`)
    ]


def _hints(entries: list[HistoryEntry], doc: str) -> list[str]:
    """How to reach a row: by its seq, which is unique, unlike the version number."""
    lines = [
        f"seq numbers every kept state (the last is the current file): `oo rollback {doc} --seq N` restores one,"
        f" `oo diff {doc} --from-seq N` compares it with the current file."
    ]
    shared: dict[int, list[HistoryEntry]] = {}
    for e in entries:
        if e.version is not None and not e.former:  # what `--to` chooses among
            shared.setdefault(e.version, []).append(e)
    for version, same in shared.items():
        if len({e.sha256 for e in same}) > 1:
            seqs = ", ".join(str(e.seq) for e in same)
            lines.append(
                f"version {version} is carried by seq {seqs}, not all with the same contents (edits that keep the number):"
                f" `--to {version}` picks the newest that differs from the current file; `--seq` picks any."
            )
    return lines


def run(ns: argparse.Namespace) -> TextResult:
    entries = read_entries(ns.doc)
    return TextResult(format_history(entries, ns.doc), exit_code=0 if entries else 1, value=entries)
