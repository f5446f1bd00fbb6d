"""A document's kept states as data: the history frame, the diff between two states, and what
a rollback did. The CLI prints these; the notebook shows them; neither reads the other's text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.format.display import no_typesetting
from oo_nb.format.document import Document as _Codec
from oo_nb.format.vocab import terminal_safe
from oo_nb.skin import history_advice, option_said
from oo_nb.store.history import Pick, pick_entry, snapshot_state
from oo_nb.store.store import HistoryEntry, Restored, read_history, restore

if TYPE_CHECKING:
    import pandas as pd

    from oo_nb.review.diff import DocumentDiff

__all__ = ["HISTORY_COLUMNS", "Diff", "Rollback", "diff_states", "history_frame", "roll_back"]

HISTORY_COLUMNS = ("version", "as_of", "saved_at", "state", "cost_usd", "summary")


def history_frame(entries: list[HistoryEntry]) -> pd.DataFrame:
    """One row per kept state, oldest first, indexed by ``seq``; the current file is the last.

    Columns: version (Int64), as_of (datetime64), saved_at (datetime64, UTC), state (object:
    ``current`` or ``replaced by ACTION``, with ``(former document)`` for a deleted document's
    state whose name this one took), cost_usd (Float64), summary (object)."""
    import pandas as pd

    def state(e: HistoryEntry) -> str:
        if e.snapshot is None:
            return "current"
        kept = snapshot_state(e)
        former = " (former document)" if e.former else ""
        return f"replaced by {e.action}{former}" + ("" if kept == "ok" else f" (snapshot {kept})")

    rows = [
        {
            "seq": e.seq,
            "version": e.version,
            "as_of": e.as_of or None,
            "saved_at": e.saved_at,
            "state": state(e),
            "cost_usd": e.cost_usd,
            "summary": e.summary,
        }
        for e in entries
    ]
    frame = pd.DataFrame(rows, columns=["seq", *HISTORY_COLUMNS])
    frame["version"] = frame["version"].astype("Int64")
    frame["as_of"] = pd.to_datetime(frame["as_of"])
    frame["saved_at"] = pd.to_datetime(frame["saved_at"], utc=True, format="ISO8601")
    frame["cost_usd"] = frame["cost_usd"].astype("Float64")
    return frame.set_index("seq")


def _version(v: int | None) -> str:
    return "-" if v is None else str(v)


class Diff:
    """What changed between two kept states of a document: the review's diff as data.

    Attributes
    ----------
    changes : oo_nb.review.diff.DocumentDiff
        The diff itself: ``changes.hunks`` holds one record per changed paragraph, source,
        fact or block (``to_dict()`` gives them as JSON data).
    label : str
        Which states were compared, e.g. ``doc.o-o.html: v1 → v2``, with a note when a
        version number names several states.
    """

    __module__ = "oo_nb"

    def __init__(self, changes: DocumentDiff, label: str) -> None:
        self.changes = changes
        self.label = label

    def text(self, *, color: bool = False) -> str:
        """The diff as the terminal shows it.

        Parameters
        ----------
        color : bool, default False
            With ANSI colours.

        Returns
        -------
        str
            The label, then each change.
        """
        from oo_nb.review.terminal import render_diff

        # (the label names the file, whose name may hold any character)
        return f"{terminal_safe(self.label)}\n{render_diff(self.changes, color=color)}"

    def to_dict(self) -> dict[str, Any]:
        """The diff as JSON data.

        Returns
        -------
        dict
            What ``oo diff --json`` prints.
        """
        data: dict[str, Any] = self.changes.to_dict()
        return data

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from oo_nb.review.render_html import diff_html

        return {"text/plain": self.text(), "text/html": no_typesetting(diff_html(self.changes))}

    def __repr__(self) -> str:
        return self.text()


def diff_states(
    path: str | Path,
    older: int | None = None,
    newer: int | None = None,
    *,
    from_seq: int | None = None,
    to_seq: int | None = None,
) -> Diff:
    """The diff between two kept states (``newer`` and ``to_seq`` left out: the current file).

    A version shared by several states (contract edits and sync keep the number) means the
    newest of them that differs from the newer side, so the diff is not empty by accident."""
    from oo_nb.review.diff import diff_documents

    p = Path(path)
    if older is None and from_seq is None:
        raise ValueError("give the older state: a version (older=V) or a seq (from_seq=N)")
    picked_new: Pick | None = None
    if newer is None and to_seq is None:
        new_data = p.read_bytes()
    else:
        picked_new = pick_entry(p, version=newer, seq=to_seq)
        new_data = picked_new.data
    picked_old = pick_entry(p, version=older, seq=from_seq, avoid=new_data)
    old = _Codec.parse(picked_old.data, path=p)
    new = _Codec.parse(new_data, path=p)
    by_seq = (
        from_seq is not None
        or to_seq is not None
        or bool(picked_old.others)
        or bool(picked_new and picked_new.others)
    )
    return Diff(diff_documents(old, new), _label(p, picked_old, picked_new, new, by_seq))


def _label(path: Path, older: Pick, newer: Pick | None, new: _Codec, by_seq: bool) -> str:
    now = new.manifest.version if new.kind == "document" else None
    to = f"v{_version(newer.entry.version)}" if newer else f"the current file (v{_version(now)})"
    label = f"{path}: v{_version(older.entry.version)} → {to}"
    if by_seq:  # the version numbers alone do not say which states these are
        label += f" (seq {older.entry.seq} → {f'seq {newer.entry.seq}' if newer else 'current'})"
    for pick in (older, newer):
        if pick is not None and pick.others:
            held = ", ".join(map(str, pick.same_version))
            label += (
                f"\nnote: seq {held} all carry version {_version(pick.entry.version)}, not all "
                f"with the same contents; compared seq {pick.entry.seq}. "
                f"`{option_said('from-seq')}`/`{option_said('to-seq')}` pick another "
                f"(`{history_advice(path)}` lists them)."
            )
    return label


@dataclass(frozen=True)
class Rollback:
    """What a rollback did.

    Attributes
    ----------
    path : pathlib.Path
        The document.
    seq : int
        The history entry now in place.
    version : int or None
        Its manifest version.
    written : bool
        False when the file already held those bytes (nothing was written).
    previous_seq : int or None
        The seq the replaced file keeps in history; None when there was no file (a deleted
        document came back).
    message : str
        What happened, in one or two lines (what ``oo rollback`` prints).
    """

    __module__ = "oo_nb"

    path: Path
    seq: int
    version: int | None
    written: bool
    previous_seq: int | None
    message: str

    def __repr__(self) -> str:
        return self.message


def roll_back(
    path: str | Path,
    to: int | None = None,
    *,
    seq: int | None = None,
    allow_unknown_code: bool = False,
) -> Rollback:
    """Restore version ``to`` (or history entry ``seq``) byte for byte; see ``store.restore``."""
    if (to is None) == (seq is None):
        raise ValueError("give exactly one of to=VERSION or seq=N")
    done = restore(path, to, seq=seq, allow_unknown_code=allow_unknown_code)
    entry = done.pick.entry
    return Rollback(
        done.path,
        entry.seq,
        entry.version,
        done.written,
        done.current_seq if done.replaced else None,
        _describe(done, by_seq=seq is not None),
    )


def _describe(done: Restored, *, by_seq: bool) -> str:
    """Which state is in place now and whether anything was written."""
    entry = done.pick.entry
    version = _version(entry.version)
    if not done.written:
        same = (
            ""
            if entry.seq == done.current_seq
            else f", the same bytes as the current file (seq {done.current_seq})"
        )
        return f"{done.path}: already at version {version} (seq {entry.seq}{same}); nothing written"
    # a deleted document that comes back replaced no file: nothing was kept of one
    kept = (
        f"the previous file is kept in history as seq {done.current_seq}"
        if done.replaced
        else "there was no file to replace"
    )
    if by_seq:
        return f"{done.path}: restored seq {entry.seq} (version {version}; {kept})"
    if not done.pick.others:  # the version number alone named one state
        said = "the previous file is kept in history" if done.replaced else kept
        return f"{done.path}: restored version {version} ({said})"
    held = ", ".join(map(str, done.pick.same_version))
    return (
        f"{done.path}: restored version {version} from seq {entry.seq} ({kept})\n"
        f"note: seq {held} all carry version {version}, not all with the same contents; seq "
        f"{entry.seq} is the newest that differs from the file you had. `{option_said('seq', 'N')}` "
        f"restores another (`{history_advice(done.path)}` lists them)."
    )


def read_entries(path: str | Path) -> list[HistoryEntry]:
    """Every kept state of ``path``, the current file last ([] when there is neither)."""
    return read_history(path)
