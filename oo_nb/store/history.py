"""Document history: ``.oo-history/<file name>/`` next to the document holds ``snapshots/`` (the
exact bytes of every replaced version) and ``log.jsonl`` (one row per write). Reading it, picking
an entry by version or seq, and recording a snapshot before a replace.

``snapshots/last-written.snap`` holds the bytes oo last wrote to the document. A snapshot taken
before each write alone never keeps the state a write produces: once the file was changed
outside oo (an editor, ``git checkout``, a backup restored, a sync tool) that state, a paid
update, was gone. Now, while the file differs from it, it is listed as the state before the
file (replaced by ``CHANGED_OUTSIDE``) and can be rolled back to; the next write records it as
a row of its own. One copy per document: the store grows by one file's size, not one per write.

A document deleted, then a new one made under its name (``oo new`` with the same title): the
history of the name goes on, but its earlier states are a former document's (``former.json``
holds the last seq of each). They are listed as such, never picked by version (``--to 1`` of
the new document once restored the deleted one), and still restored by their seq (``former``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import operator
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, SupportsIndex

from oo_nb.errors import FormatError, NotFound, OOError, ValidationError
from oo_nb.format.document import Document
from oo_nb.format.names import HISTORY_DIR
from oo_nb.skin import history_advice
from oo_nb.store.atomic import atomic_write_bytes
from oo_nb.store.former import FormerMark, document_of, former_ends, mark_former
from oo_nb.store.history_place import history_folder, open_plain_file, read_kept_file

__all__ = [
    "CHANGED_OUTSIDE",
    "HISTORY_DIR",
    "HistoryEntry",
    "Pick",
    "Recorded",
    "entry_bytes",
    "history_dir",
    "keep_written",
    "pick_entry",
    "pick_from",
    "read_history",
    "record_outside_change",
    "record_snapshot",
    "seq_bytes",
    "sha256_hex",
    "snapshot_state",
    "start_new_document",
    "utc_now",
    "version_bytes",
]


# the bytes oo last wrote to the document, and how a listing names what replaced them
WRITTEN_FILE = "last-written.snap"
CHANGED_OUTSIDE = "a change made outside oo"


def history_dir(path: Path) -> Path:
    if path.is_symlink():  # history belongs to the file, whichever link names it
        path = path.resolve()
    return path.parent / HISTORY_DIR / path.name


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class HistoryEntry:
    seq: int
    version: int | None
    as_of: str
    summary: str
    cost_usd: float | None
    saved_at: str
    action: str  # the write that replaced this version ("current" for the file itself)
    sha256: str
    snapshot: Path | None  # None for the current file
    # which document at this name the state belongs to (1, then 2 once a deleted document's
    # name was taken by a new one); former: not the current document's, never picked by version
    document: int = 1
    former: bool = False


def _describe(data: bytes) -> dict[str, Any]:
    """Version, as-of date, last summary and cost of a document's bytes (best effort)."""
    try:
        doc = Document.parse(data)
        if doc.kind != "document":
            return {"version": None, "as_of": "", "summary": "index page", "cost_usd": None}
        m = doc.manifest
        latest = doc.changelog.latest
        cost = latest.extra.get("cost_usd") if latest else None
        return {
            "version": m.version,
            "as_of": m.as_of.isoformat() if m.as_of else "",
            "summary": latest.summary if latest else "",
            "cost_usd": float(cost) if isinstance(cost, (int, float)) else None,
        }
    except OOError:
        return {"version": None, "as_of": "", "summary": "(unreadable)", "cost_usd": None}


def _log_path(path: Path) -> Path:
    return history_dir(path) / "log.jsonl"


def _read_log(path: Path) -> list[dict[str, Any]]:
    """The log's rows. Read as a snapshot is (``read_kept_file``): a link at the log or at a
    folder above it is refused, naming it, not followed to a log elsewhere."""
    log = _log_path(path)
    try:
        data = read_kept_file(log, depth=3)
    except FileNotFoundError:
        return []
    except OOError as exc:
        raise FormatError(f"history log is refused: {exc.message}", file=str(log)) from None
    body, torn = _split_torn_tail(data)
    rows = []
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError("history log is not valid UTF-8", file=str(log)) from None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise FormatError("history log line is not JSON", file=str(log), line=n) from None
        problem = _row_problem(row)
        if problem:
            raise FormatError(f"history log line is damaged: {problem}", file=str(log), line=n)
        rows.append(row)
    last = _torn_row(torn) if torn else None
    if last is not None:  # complete but for its newline; otherwise a writer died mid-append
        rows.append(last)
    return rows


def _torn_row(tail: bytes) -> dict[str, Any] | None:
    try:
        row = json.loads(tail.decode("utf-8"))
    except ValueError:
        return None
    return row if _row_problem(row) is None else None


def _split_torn_tail(data: bytes) -> tuple[bytes, bytes]:
    """Every row ends with a newline; bytes after the last one are a torn append."""
    cut = data.rfind(b"\n") + 1
    return data[:cut], data[cut:]


def _append_log_row(path: Path, row: dict[str, Any]) -> int:
    """Append ``row``; returns the log's size before it (where ``Recorded.undo`` cuts). A row
    that could not be written whole (disk full) is cut off again: no half row stays behind.
    The log is opened without following a link (``history_place``): never appended to, or cut,
    elsewhere."""
    fd = open_plain_file(_log_path(path), os.O_RDWR | os.O_CREAT)
    try:
        data = _read_fd(fd)
        body, torn = _split_torn_tail(data)
        if torn:  # we hold the lock: end a complete last row, drop a torn one
            if _torn_row(torn) is not None:
                _write_at(fd, b"\n", len(data))
                body = data + b"\n"
            else:
                os.ftruncate(fd, len(body))
        size = len(body)
        try:
            _write_at(fd, (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8"), size)
            os.fsync(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)
    return size


def _read_fd(fd: int) -> bytes:
    data = bytearray()
    while chunk := os.pread(fd, 1 << 20, len(data)):
        data += chunk
    return bytes(data)


def _write_at(fd: int, data: bytes, offset: int) -> None:
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        view, offset = view[n:], offset + n


def _cut_log(path: Path, size: int) -> None:
    fd = open_plain_file(_log_path(path), os.O_WRONLY)
    try:
        os.ftruncate(fd, size)
    finally:
        os.close(fd)


_ROW_TEXT = ("as_of", "summary", "saved_at", "action")


def _row_problem(row: Any) -> str | None:
    """What makes a log row unusable (every reader indexes and compares these fields)."""
    if not isinstance(row, dict):
        return "not an object"
    name = row.get("file")
    if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
        return "'file' must be a snapshot file name"  # never a path out of the history folder
    if (
        not isinstance(row.get("seq"), int)
        or isinstance(row["seq"], bool)
        or not isinstance(row.get("sha256"), str)
    ):
        return "'seq' must be a number and 'sha256' a string"
    version, cost = row.get("version"), row.get("cost_usd")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        return "'version' must be a number or null"
    if cost is not None and (not isinstance(cost, (int, float)) or isinstance(cost, bool)):
        return "'cost_usd' must be a number or null"
    if any(not isinstance(row.get(k, ""), str) for k in _ROW_TEXT):
        return f"{', '.join(_ROW_TEXT)} must be strings"
    return None


@dataclass(frozen=True)
class Recorded:
    """One history row written ahead of a replace (snapshot first, then the row, then the
    replace). ``undo`` takes the row and its snapshot back when the replace did not happen: the
    log never says a version was "replaced by" a write that failed."""

    path: Path
    snapshot: Path
    log_size: int  # the log's size before the row

    def undo(self) -> None:
        # best effort: the write's own error is what the caller reports
        with contextlib.suppress(OSError, OOError):
            _cut_log(self.path, self.log_size)
        with contextlib.suppress(OSError):
            self.snapshot.unlink(missing_ok=True)


def record_snapshot(path: Path, data: bytes, action: str) -> Recorded:
    """Keep ``data`` (the bytes about to be replaced) as the next history entry of ``path``.
    Either both the snapshot and its row are there afterwards, or neither (an error, e.g. a
    full disk, removes the snapshot again and cuts a half-written row)."""
    folder = history_folder(path, "snapshots")  # never a link: snapshots stay in the library
    rows = _read_log(path)
    seq = (rows[-1]["seq"] + 1) if rows else 1
    info = _describe(data)
    snap = folder / f"{seq:05d}-v{info['version'] if info['version'] is not None else 'x'}.snap"
    row = {
        "seq": seq,
        "file": snap.name,
        "sha256": sha256_hex(data),
        "saved_at": utc_now(),
        "action": action,
        **info,
    }
    try:
        atomic_write_bytes(snap, data, mode=0o644)
        size = _append_log_row(path, row)
    except BaseException:
        with contextlib.suppress(OSError):
            snap.unlink(missing_ok=True)
        raise
    return Recorded(path, snap, size)


def _written_file(path: Path) -> Path:
    return history_dir(path) / "snapshots" / WRITTEN_FILE


def _read_written(path: Path) -> bytes | None:
    """The bytes oo last wrote to ``path``; None when there are none (a history from before this
    was kept) or they cannot be read as a plain file (never through a link)."""
    try:
        fd = open_plain_file(_written_file(path), os.O_RDONLY)
    except (OSError, OOError):
        return None
    try:
        return _read_fd(fd)
    except OSError:
        return None
    finally:
        os.close(fd)


def _unrecorded_written(
    path: Path, rows: list[dict[str, Any]], current: bytes | None
) -> bytes | None:
    """The state oo last wrote when it is neither the file now nor in any row: the file was
    changed (or deleted) outside oo since. (A write killed before it kept its bytes leaves an
    earlier state there, which a row holds; bytes a row holds are kept already.)"""
    written = _read_written(path)
    if written is None or written == current:
        return None
    sha = sha256_hex(written)
    if any(row["sha256"] == sha for row in rows):
        return None
    return written


def record_outside_change(path: Path, current: bytes | None) -> Recorded | None:
    """Before a write (under the document's lock): when the file (``current``, None when
    missing) is not what oo last wrote, keep what oo wrote as a row of its own, replaced by
    ``CHANGED_OUTSIDE``, so no written state is lost."""
    written = _unrecorded_written(path, _read_log(path), current)
    if written is None:
        return None
    return record_snapshot(path, written, CHANGED_OUTSIDE)


def keep_written(path: Path, data: bytes) -> None:
    """After a write: ``data`` is what oo last wrote to ``path`` (``last-written.snap``)."""
    folder = history_folder(path, "snapshots")
    atomic_write_bytes(folder / WRITTEN_FILE, data, mode=0o644)


def start_new_document(path: Path) -> FormerMark | None:
    """Before a new document takes the name of a deleted one (``oo new``), under the lock and
    after ``record_outside_change``: every state kept so far is a former document's. None when
    there is nothing kept, or nothing since the last such mark."""
    rows = _read_log(path)
    return mark_former(path, history_dir(path), rows[-1]["seq"]) if rows else None


def read_history(path: str | Path) -> list[HistoryEntry]:
    """Every kept version, oldest first, then the current file. The state oo last wrote is
    among them when the file was changed outside oo since (``CHANGED_OUTSIDE``); those of a
    former document at this name are marked ``former``."""
    p = Path(path)
    rows = _read_log(p)
    ends = former_ends(history_dir(p), rows[-1]["seq"]) if rows else []
    current = len(ends) + 1
    entries = [
        HistoryEntry(
            seq=row["seq"],
            version=row.get("version"),
            as_of=row.get("as_of", ""),
            summary=row.get("summary", ""),
            cost_usd=row.get("cost_usd"),
            saved_at=row.get("saved_at", ""),
            action=row.get("action", ""),
            sha256=row.get("sha256", ""),
            snapshot=history_dir(p) / "snapshots" / row["file"],
            document=document_of(row["seq"], ends),
            former=document_of(row["seq"], ends) < current,
        )
        for row in rows
    ]
    data = p.read_bytes() if p.exists() else None
    written = _unrecorded_written(p, rows, data)
    if written is not None:
        file = _written_file(p)
        entries.append(_entry_of(written, entries, _stamp(file), CHANGED_OUTSIDE, file, current))
    if data is not None:
        entries.append(_entry_of(data, entries, _stamp(p), "current", None, current))
    return entries


def _stamp(file: Path) -> str:
    return datetime.fromtimestamp(file.stat().st_mtime, UTC).isoformat(timespec="seconds")


def _entry_of(
    data: bytes,
    before: list[HistoryEntry],
    saved_at: str,
    action: str,
    snapshot: Path | None,
    document: int,
) -> HistoryEntry:
    """The entry after ``before`` for bytes no log row holds (the file now, or the state oo
    last wrote before a change made outside oo): the current document's, as a former one's
    states are all in rows (``start_new_document`` comes after ``record_outside_change``)."""
    info = _describe(data)
    return HistoryEntry(
        document=document,
        seq=(before[-1].seq + 1) if before else 1,
        version=info["version"],
        as_of=info["as_of"],
        summary=info["summary"],
        cost_usd=info["cost_usd"],
        saved_at=saved_at,
        action=action,
        sha256=sha256_hex(data),
        snapshot=snapshot,
    )


def entry_bytes(p: Path, entry: HistoryEntry) -> bytes:
    """The bytes of one history entry, checked against the sha256 the log recorded. A snapshot
    is never read through a link (``read_kept_file``): ``FormatError`` names it."""
    what = f"seq {entry.seq} (version {'-' if entry.version is None else entry.version})"
    try:
        data = read_kept_file(entry.snapshot) if entry.snapshot else p.read_bytes()
    except FileNotFoundError:
        raise FormatError(
            f"history snapshot of {what} is missing", file=str(entry.snapshot or p)
        ) from None
    except OOError as exc:
        raise FormatError(
            f"history snapshot of {what} is refused: {exc.message}", file=str(entry.snapshot)
        ) from None
    if sha256_hex(data) != entry.sha256:
        raise FormatError(
            f"history snapshot of {what} is damaged (checksum)", file=str(entry.snapshot or p)
        )
    return data


def snapshot_state(entry: HistoryEntry) -> str:
    """``ok``, ``missing`` or ``damaged`` (its bytes do not match the sha256 the log recorded)
    for a kept version; ``current`` for the file itself. A version whose snapshot is not ``ok``
    cannot be restored or compared: listings say so instead of showing it as kept."""
    if entry.snapshot is None:
        return "current"
    try:
        data = read_kept_file(entry.snapshot)
    except FileNotFoundError:
        return "missing"
    except (OSError, OOError):  # a link, a folder in its place, no permission...: not read back
        return "damaged"
    return "ok" if sha256_hex(data) == entry.sha256 else "damaged"


@dataclass(frozen=True)
class Pick:
    """One history entry chosen by seq or by version, with its checked bytes."""

    entry: HistoryEntry
    data: bytes
    # Other seqs carrying the same version with different bytes (only when chosen by version):
    # non-empty means the version number alone did not name one state of the file.
    others: tuple[int, ...]
    same_version: tuple[int, ...] = ()  # every seq that carries the version asked for


def pick_entry(
    path: str | Path,
    *,
    version: int | None = None,
    seq: int | None = None,
    avoid: bytes | None = None,
) -> Pick:
    """The history entry (the current file included) named by ``seq``, or by ``version``.

    Writes that keep the version number (contract edits, ``oo sync``) leave several entries
    with one version. By version, the newest entry whose bytes differ from ``avoid`` wins (the
    newest of all when none differs), so "go back to version V" reaches the older state."""
    p = Path(path)
    return pick_from(p, read_history(p), version=version, seq=seq, avoid=avoid)


def _whole(key: str, value: object, p: Path) -> int | None:
    """A version or seq as Python may give it: a whole number (numpy's, from ``history()``,
    too), or its digits as ``history()`` prints them ("2" is 2, not "no version 2 (known: 2)");
    anything else is refused naming it."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value)
    if isinstance(value, SupportsIndex) and not isinstance(value, bool):
        return operator.index(value)
    raise ValidationError(f"must be a whole number, not {value!r}", file=str(p), key=key)


def pick_from(
    p: Path,
    entries: list[HistoryEntry],
    *,
    version: int | None,
    seq: int | None,
    avoid: bytes | None,
) -> Pick:
    version, seq = _whole("version", version, p), _whole("seq", seq, p)
    if (version is None) == (seq is None):
        raise OOError("name exactly one of a version or a seq to restore", file=str(p))
    if seq is not None:
        for entry in entries:
            if entry.seq == seq:
                return Pick(entry, entry_bytes(p, entry), ())
        span = f"seqs {entries[0].seq}-{entries[-1].seq}" if entries else "no history"
        raise NotFound(
            f"no seq {seq} in history ({span}; `{history_advice(p)}` lists them)", file=str(p)
        )
    # a former document's states (a deleted one whose name this one took) only by seq
    same = [e for e in entries if e.version == version and not e.former]
    if not same:
        known = sorted({e.version for e in entries if e.version is not None and not e.former})
        former = [str(e.seq) for e in entries if e.version == version and e.former]
        also = (
            f"; seq {', '.join(former)} of a former document at this name (deleted, then a new "
            "one took its name) carry it: `--seq N` restores one"
            if former
            else ""
        )
        raise NotFound(
            f"no version {version} in history (known: {', '.join(map(str, known)) or 'none'}{also})",
            file=str(p),
        )
    avoid_sha = sha256_hex(avoid) if avoid is not None else None
    differing = [e for e in same if e.sha256 != avoid_sha]
    chosen = (differing or same)[-1]
    others = tuple(e.seq for e in same if e.sha256 != chosen.sha256)
    return Pick(chosen, entry_bytes(p, chosen), others, tuple(e.seq for e in same))


def seq_bytes(path: str | Path, seq: int) -> bytes:
    """The bytes of history entry ``seq`` (as ``oo history`` numbers them; the current file included)."""
    return pick_entry(path, seq=seq).data


def version_bytes(path: str | Path, version: int) -> bytes:
    """The bytes of the newest kept version ``version`` (the current file included)."""
    return pick_entry(path, version=version).data
