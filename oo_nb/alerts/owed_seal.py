"""This machine's seal on an owed event of the record of alerts (``.oo/alerts-sent.jsonl``): a row
that keeps an event's text for the next run to send carries a seal (``store.seal``, keyed outside
every library) over all it holds, made when oo writes it.

The record lives in the library, so a library from elsewhere (a clone, a tarball) can bring rows
of its author's: their text would go to the user's own channels as if oo had raised it (a
"run this command" in the user's Slack). Only a row this machine sealed, unchanged since, is
sent again; any other (planted, edited, or written before rows were sealed) is set aside, and
``oo alerts DIR --show`` says how many and why."""

from __future__ import annotations

from typing import Any

from oo_nb.store.seal import SEAL_FIELD, is_sealed, seal

__all__ = ["NO_SEAL", "WRONG_SEAL", "sealed", "unvouched"]

# why an owed row's text is not sent, in words for the user (``--show``)
NO_SEAL = "without a seal (written before oo sealed them, or not by oo)"
WRONG_SEAL = "whose seal this machine did not make over that text (changed, or from elsewhere)"


def sealed(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with this machine's seal over what it holds; as it is when no seal key can be
    had (the next run then cannot vouch for it: its text is not sent, which is safe)."""
    mark = seal(row)
    return row if mark is None else {**row, SEAL_FIELD: mark}


def unvouched(row: dict[str, Any]) -> str | None:
    """None when ``row`` carries this machine's seal over exactly what it holds; otherwise why
    not (``NO_SEAL``, ``WRONG_SEAL``)."""
    if SEAL_FIELD not in row:
        return NO_SEAL
    return None if is_sealed(row) else WRONG_SEAL
