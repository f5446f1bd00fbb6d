"""Safe writing: one advisory lock per document, a history snapshot before every replace,
atomic replace (temp file in the same folder, fsync, rename), rollback, and pending proposals.

History lives next to the document in ``.oo-history/<file name>/``: ``snapshots/`` holds the
exact bytes of every replaced version, ``log.jsonl`` one line per write, ``pending.json`` the
proposal waiting for review."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import hashlib
import json
import os
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .document import Document
from .errors import ConflictError, FormatError, LockedError, NotFound, OOError

__all__ = [
    "HISTORY_DIR",
    "HistoryEntry",
    "Pending",
    "Pick",
    "Restored",
    "atomic_write_bytes",
    "discard_pending",
    "document_lock",
    "history_dir",
    "load_pending",
    "pick_entry",
    "read_history",
    "restore",
    "rollback",
    "save_pending",
    "seq_bytes",
    "version_bytes",
    "write_document",
]

HISTORY_DIR = ".oo-history"
LOCK_TIMEOUT_S = 10.0


def history_dir(path: Path) -> Path:
    if path.is_symlink():  # history belongs to the file, whichever link names it
        path = path.resolve()
    return path.parent / HISTORY_DIR / path.name


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --------------------------------------------------------------------------- locking
@contextlib.contextmanager
def document_lock(path: Path, action: str, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Exclusive advisory lock for one document. A second writer waits up to ``timeout``
    seconds, then fails naming the holder."""
    folder = history_dir(path)
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another process"
                    raise LockedError(
                        f"locked by {holder}; waited {timeout:g} s. Try again when it has finished.",
                        file=str(path),
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} ({action}) since {_now()}".encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- atomic replace
def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None, exclusive: bool = False) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a mix.
    ``exclusive`` refuses to replace an existing file (new documents never overwrite)."""
    if exclusive and path.exists():
        raise OOError("already exists; not overwritten", file=str(path))
    if mode is None:
        mode = _mode_of(path)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if exclusive:
            os.link(tmp, path)  # fails if the name appeared meanwhile
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except FileExistsError:
        tmp.unlink(missing_ok=True)
        raise OOError("already exists; not overwritten", file=str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _mode_of(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o644


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- history
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
    log = _log_path(path)
    if not log.exists():
        return []
    data = log.read_bytes()
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


def _append_log_row(path: Path, row: dict[str, Any]) -> None:
    log = _log_path(path)
    if log.exists():
        body, torn = _split_torn_tail(log.read_bytes())
        if torn:  # we hold the lock: end a complete last row, drop a torn one
            if _torn_row(torn) is not None:
                with open(log, "ab") as fh:
                    fh.write(b"\n")
            else:
                os.truncate(log, len(body))
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


_ROW_TEXT = ("as_of", "summary", "saved_at", "action")


def _row_problem(row: Any) -> str | None:
    """What makes a log row unusable (every reader indexes and compares these fields)."""
    if not isinstance(row, dict):
        return "not an object"
    name = row.get("file")
    if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
        return "'file' must be a snapshot file name"  # never a path out of the history folder
    if not isinstance(row.get("seq"), int) or isinstance(row["seq"], bool) or not isinstance(row.get("sha256"), str):
        return "'seq' must be a number and 'sha256' a string"
    version, cost = row.get("version"), row.get("cost_usd")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        return "'version' must be a number or null"
    if cost is not None and (not isinstance(cost, (int, float)) or isinstance(cost, bool)):
        return "'cost_usd' must be a number or null"
    if any(not isinstance(row.get(k, ""), str) for k in _ROW_TEXT):
        return f"{', '.join(_ROW_TEXT)} must be strings"
    return None


def _snapshot(path: Path, data: bytes, action: str) -> None:
    folder = history_dir(path) / "snapshots"
    folder.mkdir(parents=True, exist_ok=True)
    rows = _read_log(path)
    seq = (rows[-1]["seq"] + 1) if rows else 1
    info = _describe(data)
    snap = folder / f"{seq:05d}-v{info['version'] if info['version'] is not None else 'x'}.snap"
    atomic_write_bytes(snap, data, mode=0o644)
    row = {"seq": seq, "file": snap.name, "sha256": _sha(data), "saved_at": _now(), "action": action, **info}
    _append_log_row(path, row)


def read_history(path: str | Path) -> list[HistoryEntry]:
    """Every kept version, oldest first, then the current file."""
    p = Path(path)
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
        )
        for row in _read_log(p)
    ]
    if p.exists():
        data = p.read_bytes()
        info = _describe(data)
        mtime = datetime.fromtimestamp(p.stat().st_mtime, UTC).isoformat(timespec="seconds")
        entries.append(
            HistoryEntry(
                seq=(entries[-1].seq + 1) if entries else 1,
                version=info["version"],
                as_of=info["as_of"],
                summary=info["summary"],
                cost_usd=info["cost_usd"],
                saved_at=mtime,
                action="current",
                sha256=_sha(data),
                snapshot=None,
            )
        )
    return entries


def _entry_bytes(p: Path, entry: HistoryEntry) -> bytes:
    """The bytes of one history entry, checked against the sha256 the log recorded."""
    what = f"seq {entry.seq} (version {'-' if entry.version is None else entry.version})"
    try:
        data = entry.snapshot.read_bytes() if entry.snapshot else p.read_bytes()
    except FileNotFoundError:
        raise FormatError(f"history snapshot of {what} is missing", file=str(entry.snapshot or p)) from None
    if _sha(data) != entry.sha256:
        raise FormatError(f"history snapshot of {what} is damaged (checksum)", file=str(entry.snapshot or p))
    return data


@dataclass(frozen=True)
class Pick:
    """One history entry chosen by seq or by version, with its checked bytes."""

    entry: HistoryEntry
    data: bytes
    # Other seqs carrying the same version with different bytes (only when chosen by version):
    # non-empty means the version number alone did not name one state of the file.
    others: tuple[int, ...]
    same_version: tuple[int, ...] = ()  # every seq that carries the version asked for


def pick_entry(path: str | Path, *, version: int | None = None, seq: int | None = None, avoid: bytes | None = None) -> Pick:
    """The history entry (the current file included) named by ``seq``, or by ``version``.

    Writes that keep the version number (contract edits, ``oo sync``) leave several entries
    with one version. By version, the newest entry whose bytes differ from ``avoid`` wins (the
    newest of all when none differs), so "go back to version V" reaches the older state."""
    p = Path(path)
    return _pick(p, read_history(p), version=version, seq=seq, avoid=avoid)


def _pick(p: Path, entries: list[HistoryEntry], *, version: int | None, seq: int | None, avoid: bytes | None) -> Pick:
    if (version is None) == (seq is None):
        raise OOError("name exactly one of a version or a seq to restore", file=str(p))
    if seq is not None:
        for entry in entries:
            if entry.seq == seq:
                return Pick(entry, _entry_bytes(p, entry), ())
        span = f"seqs {entries[0].seq}-{entries[-1].seq}" if entries else "no history"
        raise NotFound(f"no seq {seq} in history ({span}; `oo history {p}` lists them)", file=str(p))
    same = [e for e in entries if e.version == version]
    if not same:
        known = sorted({e.version for e in entries if e.version is not None})
        raise NotFound(f"no version {version} in history (known: {', '.join(map(str, known)) or 'none'})", file=str(p))
    avoid_sha = _sha(avoid) if avoid is not None else None
    differing = [e for e in same if e.sha256 != avoid_sha]
    chosen = (differing or same)[-1]
    others = tuple(e.seq for e in same if e.sha256 != chosen.sha256)
    return Pick(chosen, _entry_bytes(p, chosen), others, tuple(e.seq for e in same))


def seq_bytes(path: str | Path, seq: int) -> bytes:
    """The bytes of history entry ``seq`` (as ``oo history`` numbers them; the current file included)."""
    return pick_entry(path, seq=seq).data


def version_bytes(path: str | Path, version: int) -> bytes:
    """The bytes of the newest kept version ``version`` (the current file included)."""
    return pick_entry(path, version=version).data


# --------------------------------------------------------------------------- writing
def write_document(
    doc: Document,
    *,
    expected: bytes | None,
    action: str = "update",
    path: Path | None = None,
    timeout: float = LOCK_TIMEOUT_S,
) -> Path:
    """Validate ``doc``, then under the lock: check the file still holds ``expected`` (no lost
    update), snapshot it into history and replace it atomically. ``expected=None`` creates a
    new file and refuses to overwrite."""
    target = path or doc.path
    if target is None:
        raise OOError("document has no path to write to")
    if target.is_symlink():  # replace the file the link points to, and keep the link
        target = target.resolve()
    data = doc.to_bytes()
    _validate(data, target)
    try:
        with document_lock(target, action, timeout):
            _sweep_dead_temps(target)
            try:
                current: bytes | None = target.read_bytes()
            except FileNotFoundError:
                current = None
            if expected is None:
                atomic_write_bytes(target, data, mode=0o755, exclusive=True)
            else:
                if current != expected:
                    raise ConflictError(
                        "changed on disk since it was read (another update?); nothing written. Read it again and retry.",
                        file=str(target),
                    )
                if current == data:
                    return target
                _snapshot(target, current, action)
                atomic_write_bytes(target, data)
    except OSError as exc:  # disk full, permissions...: an OOError that says what state the file is in
        raise _io_error(exc, target, data) from exc
    return target


def _sweep_dead_temps(target: Path) -> None:
    """A writer killed mid-write leaves its ``.NAME.PID.NS.tmp`` (a full copy) behind. Under the
    lock, remove those whose process is gone so they do not pile up in the user's folder."""
    prefix = f".{target.name}."
    for tmp in target.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid_text = tmp.name[len(prefix) :].split(".", 1)[0]
        if pid_text.isdigit() and int(pid_text) != os.getpid() and not _alive(int(pid_text)):
            tmp.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _io_error(exc: OSError, target: Path, data: bytes) -> OOError:
    try:
        written = target.read_bytes() == data
    except OSError:
        written = False
    state = "the new version is in place (only syncing it to disk failed)" if written else "the document is unchanged"
    return OOError(f"could not write: {exc.strerror or exc}; {state}", file=str(target))


def _validate(data: bytes, target: Path) -> None:
    doc = Document.parse(data, path=target)
    if doc.kind == "document":
        for name in doc.blocks:
            doc.block_json(name)
        _ = doc.manifest, doc.contract, doc.source_cache, doc.changelog


@dataclass(frozen=True)
class Restored:
    """What a rollback did: ``written`` is False when the file already held the target bytes."""

    path: Path
    pick: Pick
    written: bool
    current_seq: int  # the seq the file had before the rollback (it keeps it in history)


def restore(
    path: str | Path, version: int | None = None, *, seq: int | None = None, timeout: float = LOCK_TIMEOUT_S
) -> Restored:
    """Restore history entry ``seq``, or version ``version`` (the newest state of it that differs
    from the file now), byte for byte. The replaced file goes to history, so a rollback can itself
    be undone. When the file already holds those bytes, nothing is written."""
    p = Path(path)
    current = p.read_bytes() if p.exists() else None  # a deleted document can come back from history
    entries = read_history(p)
    pick = _pick(p, entries, version=version, seq=seq, avoid=current)
    current_seq = entries[-1].seq if current is not None else (entries[-1].seq + 1 if entries else 1)
    if current == pick.data:
        return Restored(p, pick, False, current_seq)
    target = pick.entry
    label = "-" if target.version is None else str(target.version)
    # The seq is named when the version alone would not say which state came back.
    action = f"rollback to v{label}" + (f" (seq {target.seq})" if seq is not None or pick.others else "")
    written = write_document(Document.parse(pick.data, path=p), expected=current, action=action, timeout=timeout)
    return Restored(written, pick, True, current_seq)


def rollback(path: str | Path, version: int | None = None, *, seq: int | None = None, timeout: float = LOCK_TIMEOUT_S) -> Path:
    """Restore history entry ``seq`` or version ``version`` byte for byte (see ``restore``)."""
    return restore(path, version, seq=seq, timeout=timeout).path


# --------------------------------------------------------------------------- pending proposals
@dataclass(frozen=True)
class Pending:
    candidate: Document
    run: dict[str, Any]
    base_sha256: str
    created: str
    stale: bool  # the document changed since the proposal was made


def save_pending(path: Path, candidate: Document, run: dict[str, Any], base: bytes) -> Path:
    target = history_dir(path) / "pending.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    record = {"base_sha256": _sha(base), "created": _now(), "run": run, "candidate": candidate.text}
    atomic_write_bytes(target, json.dumps(record, ensure_ascii=False).encode("utf-8"), mode=0o644)
    return target


def load_pending(path: str | Path) -> Pending:
    p = Path(path)
    source = history_dir(p) / "pending.json"
    if not source.exists():
        raise NotFound("no saved proposal to review (run `oo update` first)", file=str(p))
    try:
        record = json.loads(source.read_bytes().decode("utf-8"))  # ValueError when not UTF-8 / JSON
        if not isinstance(record, dict) or not all(isinstance(record.get(k), str) for k in ("candidate", "base_sha256")):
            raise ValueError("'candidate' and 'base_sha256' must be strings")
        candidate = Document(record["candidate"], path=p)
    except (ValueError, OOError) as exc:
        reason = exc.message if isinstance(exc, OOError) else str(exc)
        raise FormatError(f"saved proposal is damaged: {reason}", file=str(source)) from None
    run, created = record.get("run"), record.get("created")
    run = run if isinstance(run, dict) else {}
    created = created if isinstance(created, str) else ""
    current = p.read_bytes() if p.exists() else b""
    return Pending(candidate, run, record["base_sha256"], created, _sha(current) != record["base_sha256"])


def discard_pending(path: str | Path) -> None:
    (history_dir(Path(path)) / "pending.json").unlink(missing_ok=True)
