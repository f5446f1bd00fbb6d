"""Former documents at one name: a document deleted, then a new one made under its name (``oo
new`` with the same title). The history of the name goes on (seqs keep counting, nothing is
moved), and ``former.json`` in its history folder holds the last seq of each former document:
``{"former_documents_end_at_seq": [2]}``. A history without it (every one written before) has
one document. ``store.history`` reads it to mark each state with its document."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

from oo_nb.errors import FormatError, OOError
from oo_nb.store.atomic import atomic_write_bytes
from oo_nb.store.history_place import history_folder, read_kept_file

__all__ = ["FORMER_FILE", "FormerMark", "document_of", "former_ends", "mark_former"]

FORMER_FILE = "former.json"
_KEY = "former_documents_end_at_seq"


def former_ends(folder: Path, last_seq: int) -> list[int]:
    """The last seq of each former document whose history is in ``folder`` (``.oo-history/NAME``,
    whose log ends at ``last_seq``), oldest first; [] when there is none. ``FormatError`` names a
    damaged file (an end past the log too: it was never written so, and would make the user's
    later states a former document's); a link is refused as a snapshot's is (``read_kept_file``)."""
    file = folder / FORMER_FILE
    try:
        data = read_kept_file(file, depth=3)
    except FileNotFoundError:
        return []
    try:
        ends = json.loads(data.decode("utf-8"))[_KEY]
        # (a bool is an int to isinstance)
        if not isinstance(ends, list) or not all(type(n) is int and n > 0 for n in ends):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise FormatError(
            f"history file is damaged: it must hold {{{_KEY!r}: [seq, ...]}}", file=str(file)
        ) from None
    if past := [n for n in ends if n > last_seq]:
        raise FormatError(
            f"history file is damaged: {_KEY} names seq {max(past)}, past the log's last "
            f"({last_seq}); remove the file if this document was never replaced",
            file=str(file),
        )
    return sorted(ends)


def document_of(seq: int, ends: list[int]) -> int:
    """Which document at the name (1 for the first) the state ``seq`` belongs to."""
    return 1 + sum(1 for end in ends if end < seq)


def _write(path: Path, ends: list[int]) -> None:
    file = history_folder(path) / FORMER_FILE  # never a link: see history_place
    atomic_write_bytes(file, (json.dumps({_KEY: ends}) + "\n").encode(), mode=0o644)


@dataclass(frozen=True)
class FormerMark:
    """``mark_former``'s mark, taken back (``undo``) when the new file was not written."""

    path: Path
    before: list[int]

    def undo(self) -> None:
        with contextlib.suppress(OSError, OOError):  # the write's own error is what is reported
            if self.before:
                _write(self.path, self.before)
            else:
                (history_folder(self.path) / FORMER_FILE).unlink(missing_ok=True)


def mark_former(path: Path, folder: Path, last_seq: int) -> FormerMark | None:
    """Make every state of the document ``path`` up to ``last_seq`` a former document's (its
    history is in ``folder``); None when they are so already."""
    ends = former_ends(folder, last_seq)
    if ends and ends[-1] >= last_seq:
        return None
    _write(path, [*ends, last_seq])
    return FormerMark(path, ends)
