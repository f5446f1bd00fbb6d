"""What a scan read from each file of a library, kept between runs: ``DIR/.oo-cache/library.sqlite``.

One SQLite database per library (stdlib ``sqlite3``, WAL, so readers never wait for a writer).
Each row holds one file's payload (JSON text made by the layer that reads documents, or that
text compressed by it, as a BLOB; this module never interprets it) under the file's path relative to the library and its ``Stamp``:
inode, size, mtime_ns and ctime_ns. An atomic replace changes the inode, an edit in place the
mtime and ctime, and ``touch -d``/``cp -p`` cannot set ctime back; so a row whose stamp still
matches holds what the file holds now. Two cases the stamp cannot tell apart are covered too:

- a file changed within the filesystem's timestamp granularity: a file whose mtime or ctime is
  less than ``RECENT_NS`` older than the scan is recorded with a hash of the bytes that were
  read, and is read again and compared before the row is trusted;
- a write through the store (``store.atomic``) drops the file's row (``forget``).

Each payload kind (``view``) carries a version; rows of another version are dropped (quietly:
after an upgrade that is expected). A cache that cannot be opened, is not a database, is locked
past ``BUSY_MS`` or cannot be written is rebuilt or bypassed with a ``CacheWarning``: the scan
then reads every file, and is still right. Rows are
JSON, never pickle: the file sits in the user's folder and could have been planted.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from oo_nb.format.names import CACHE_DIR, CACHE_FILE
from oo_nb.format.surrogates import encodable
from oo_nb.store.history_place import in_place_problem

__all__ = [
    "BUSY_MS",
    "LATER",
    "RECENT_NS",
    "CacheWarning",
    "Later",
    "Row",
    "ScanCache",
    "Stamp",
    "check_cache_place",
    "content_hash",
    "forget",
    "still_holds",
]

RECENT_NS = 2_000_000_000  # coarser than any timestamp granularity we know (FAT: 2 s)
BUSY_MS = 3000  # how long a writer waits for another process's write before giving up on saving
PAGE_BYTES = 65536  # the largest page sqlite has
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS views (view TEXT PRIMARY KEY, version TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS files ("
    " view TEXT NOT NULL, rel TEXT NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, hash TEXT, payload TEXT NOT NULL,"
    " PRIMARY KEY (view, rel)) WITHOUT ROWID",
)


class CacheWarning(UserWarning):
    """The library cache could not be used as it is; the scan went on without it."""


@dataclass(frozen=True, slots=True)
class Stamp:
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, path: str | Path) -> Stamp | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return cls(st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def recent(self, now_ns: int) -> bool:
        """Changed so shortly before ``now_ns`` that another change may keep the same stamp."""
        return now_ns - max(self.mtime_ns, self.ctime_ns) < RECENT_NS


class Later:
    """A payload left in the database by ``load(defer=...)``, read when needed (``fetch``): a
    warm library whose frames are stored never holds its 10,000 digests' text."""

    def __repr__(self) -> str:
        return "LATER"


LATER = Later()


@dataclass(frozen=True, slots=True)
class Row:
    stamp: Stamp
    hash: str | None  # of the bytes read, when the stamp was recent
    payload: str | bytes | Later


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def still_holds(row: Row, path: str | Path, stamp: Stamp | None) -> bool:
    """Whether ``row`` still says what the file at ``path`` (now stamped ``stamp``) holds: same
    stamp, and for a row recorded while the file was recent, the same bytes."""
    if stamp is None or row.stamp != stamp:
        return False
    if row.hash is None:
        return True
    try:
        return content_hash(Path(path).read_bytes()) == row.hash
    except OSError:
        return False


def cache_path(root: Path) -> Path:
    return root / CACHE_DIR / CACHE_FILE


def _warn(message: str) -> None:
    warnings.warn(message, CacheWarning, stacklevel=3)


class ScanCache:
    """The rows of one ``view`` in the cache of the library at ``root``. When the cache cannot
    be used, ``usable`` is false and every method does nothing (a scan then reads every file)."""

    def __init__(self, root: str | Path, view: str, version: str) -> None:
        self.root = Path(root)
        self.view = view
        self.version = version
        self.path = cache_path(self.root)
        self._db: sqlite3.Connection | None = None
        _wait_for_save(self.path)  # this process's last save of it: its rows, not the ones before
        self._open()

    @property
    def usable(self) -> bool:
        return self._db is not None

    # ----------------------------------------------------------------- opening
    def _open(self) -> None:
        try:
            self._db = self._connect()
        except sqlite3.DatabaseError as exc:  # not a database, or damaged: start again
            self.close()
            if _is_locked(exc):
                _warn(f"library cache {self.path} is locked ({exc}); scanning without it")
                return
            if not _is_damaged(exc):  # a full disk, an I/O error: the file may be fine
                _warn(f"library cache {self.path} cannot be used ({exc}); scanning without it")
                return
            _warn(f"library cache {self.path} is unreadable ({exc}); rebuilding it")
            self._remove()
            try:
                self._db = self._connect()
            except (sqlite3.Error, OSError) as again:
                self.close()
                _warn(f"library cache {self.path} cannot be rebuilt ({again}); scanning without it")
        except (sqlite3.Error, OSError) as exc:  # read-only folder or file, no space...
            self.close()
            _warn(f"library cache {self.path} cannot be used ({exc}); scanning without it")

    def _connect(self) -> sqlite3.Connection:
        check_cache_place(self.path)
        self.path.parent.mkdir(exist_ok=True)
        if not os.access(self.path.parent, os.W_OK) or (
            self.path.exists() and not os.access(self.path, os.W_OK)
        ):
            raise PermissionError(f"not writable: {self.path}")
        db = sqlite3.connect(
            self.path,
            timeout=BUSY_MS / 1000,
            isolation_level=None,
            check_same_thread=False,  # written and closed by another thread (save_behind)
        )
        self._db = db
        db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        # rows are digests of 4-15 KB, all written by a cold scan and all read by every scan:
        # large pages halve a cold scan's save and speed up every load (a no-op on an existing
        # database)
        db.execute(f"PRAGMA page_size = {PAGE_BYTES}")
        if db.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
            raise sqlite3.OperationalError("cannot switch to WAL")
        db.execute("PRAGMA synchronous = NORMAL")  # WAL: a crash loses recent rows, never others
        try:  # the usual case, a read: no write lock taken just to open
            found = db.execute("SELECT version FROM views WHERE view = ?", (self.view,)).fetchone()
            if found is not None and found[0] == self.version:
                return db
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise
        with self._transaction() as tx:
            for statement in _SCHEMA:
                tx.execute(statement)
            found = tx.execute("SELECT version FROM views WHERE view = ?", (self.view,)).fetchone()
            if found is None or found[0] != self.version:
                # rows another version made (any change to how documents are read) are dropped
                # without a warning: after an upgrade that is expected, and nothing to act on
                tx.execute("DELETE FROM files WHERE view = ?", (self.view,))
                tx.execute(
                    "INSERT OR REPLACE INTO views (view, version) VALUES (?, ?)",
                    (self.view, self.version),
                )
        return db

    def _remove(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                Path(f"{self.path}{suffix}").unlink()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        db = self._db
        assert db is not None
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        """Close the database. The last connection to close copies the write-ahead log into
        the database file and syncs it to disk (after a cold scan of 1,000 documents, 0.07 s
        mostly waiting for the disk: ``save_behind`` does it in its thread)."""
        db, self._db = self._db, None
        if db is not None:
            _close(db)

    def __enter__(self) -> ScanCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- reading
    def load(self, defer: str | None = None) -> dict[str, Row]:
        """Every row of this view, by relative path (POSIX). ``defer``: a payload that starts
        with it, or is a BLOB, is left in the database (``LATER``; ``fetch`` reads it)."""
        if self._db is None:
            return {}
        payload = "payload"
        args: tuple[object, ...] = (self.view,)
        if defer is not None:  # the column is NOT NULL: NULL here means "later"
            payload = (
                "CASE WHEN typeof(payload) = 'blob' OR substr(payload, 1, ?) = ?"
                " THEN NULL ELSE payload END"
            )
            args = (len(defer), defer, self.view)
        try:
            cursor = self._db.execute(
                f"SELECT rel, ino, size, mtime_ns, ctime_ns, hash, {payload} FROM files"
                " WHERE view = ?",
                args,
            )
            return {
                rel: Row(Stamp(ino, size, mtime, ctime), digest, LATER if text is None else text)
                for rel, ino, size, mtime, ctime, digest, text in cursor
                if isinstance(text, (str, bytes)) or (text is None and defer is not None)
            }
        except sqlite3.Error as exc:  # damaged pages, or a lock held past the timeout
            self._give_up(f"cannot be read ({exc})")
            return {}

    def fetch(self, wanted: dict[str, Stamp]) -> dict[str, str | bytes]:
        """The payloads of the rows of ``wanted`` (relative path: the stamp it was loaded
        with) whose stamp is still that one; a row gone or replaced since is left out."""
        if self._db is None or not wanted:
            return {}
        try:
            cursor = self._db.execute(
                "SELECT rel, ino, size, mtime_ns, ctime_ns, payload FROM files WHERE view = ?",
                (self.view,),
            )
            return {
                rel: payload
                for rel, ino, size, mtime, ctime, payload in cursor
                if wanted.get(rel) == Stamp(ino, size, mtime, ctime)
                and isinstance(payload, (str, bytes))
            }
        except sqlite3.Error as exc:
            self._give_up(f"cannot be read ({exc})")
            return {}

    # ----------------------------------------------------------------- writing
    def save(self, rows: Iterable[tuple[str, Row]], drop: Iterable[str] = ()) -> None:
        """Store ``rows`` ((relative path, row) pairs, consumed one by one: a cold scan of a large
        library never holds all its encoded rows at once) and remove the rows of ``drop``
        (files gone), in one transaction. Another process's write makes this wait up to
        ``BUSY_MS``, then give up: the rows are simply read again next time."""
        if self._db is None:
            return
        try:
            _write(self._db, self.view, rows, drop)
        except sqlite3.Error as exc:
            self._give_up(f"cannot be written ({exc})")

    def save_behind(self, rows: list[tuple[str, Row]], drop: Iterable[str] = ()) -> None:
        """``save`` then ``close``, in a thread, the caller going on at once: a cold scan of a
        large library returns its digests without waiting for the database to take them (0.03
        s a thousand documents). A ``ScanCache`` of the same library made later in this process
        waits for it (it would read the rows from before, and read every file again), so does
        ``forget``; the interpreter waits for it before it exits."""
        db, self._db = self._db, None
        if db is None:
            return
        path, view, drop = self.path, self.view, list(drop)

        def run() -> None:
            try:
                _write(db, view, rows, drop)
            except sqlite3.Error as exc:
                _warn(f"library cache {path} cannot be written ({exc}); scanning without it")
            finally:
                _close(db)

        thread = threading.Thread(target=run, name="oo-cache-save")
        with _SAVING_LOCK:
            _SAVING[_key(path)] = thread
            thread.start()

    def _give_up(self, why: str) -> None:
        _warn(f"library cache {self.path} {why}; scanning without it")
        self.close()


def _write(
    db: sqlite3.Connection, view: str, rows: Iterable[tuple[str, Row]], drop: Iterable[str]
) -> None:
    drop = [rel for rel in drop if _encodable(rel)]
    rows = [(rel, row) for rel, row in rows if _encodable(rel)]
    kept = [(rel, row) for rel, row in rows if isinstance(row.payload, Later)]
    rows = [(rel, row) for rel, row in rows if _encodable(row.payload)]
    db.execute("BEGIN IMMEDIATE")
    try:
        db.executemany("DELETE FROM files WHERE view = ? AND rel = ?", ((view, r) for r in drop))
        # a payload left in the database keeps it; only the hash changes (the stamp is its own)
        db.executemany(
            "UPDATE files SET hash = ? WHERE view = ? AND rel = ? AND ino = ? AND size = ?"
            " AND mtime_ns = ? AND ctime_ns = ?",
            ((row.hash, view, rel, *_stamp_values(row.stamp)) for rel, row in kept),
        )
        db.executemany(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    view,
                    rel,
                    row.stamp.ino,
                    row.stamp.size,
                    row.stamp.mtime_ns,
                    row.stamp.ctime_ns,
                    row.hash,
                    row.payload,
                )
                for rel, row in rows
            ),
        )
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# Saves running behind (``save_behind``), by database: at most one each, since a new ScanCache
# of a database waits for the one before.
_SAVING: dict[str, threading.Thread] = {}
_SAVING_LOCK = threading.Lock()


def _key(db_path: Path) -> str:
    return os.path.abspath(db_path)


def _wait_for_save(db_path: Path) -> None:
    key = _key(db_path)
    with _SAVING_LOCK:
        thread = _SAVING.get(key)
    if thread is None:
        return
    thread.join()
    with _SAVING_LOCK:
        if _SAVING.get(key) is thread:
            del _SAVING[key]


def _close(db: sqlite3.Connection) -> None:
    with contextlib.suppress(sqlite3.Error):
        db.close()


def _stamp_values(stamp: Stamp) -> tuple[int, int, int, int]:
    return stamp.ino, stamp.size, stamp.mtime_ns, stamp.ctime_ns


def _encodable(text: str | bytes | Later) -> bool:
    """Whether sqlite can store ``text``: a file name that is not UTF-8 (a lone surrogate after
    decoding) cannot; such a file is simply read on every scan. Bytes go in as they are; a
    payload left in the database (``LATER``) is not written."""
    if isinstance(text, Later):
        return False
    return isinstance(text, bytes) or encodable(text)


def check_cache_place(db_path: Path) -> None:
    """Raise ``OSError`` unless the cache would be written inside the library: the cache folder
    must not be a link, nor the database (or its WAL files) a link, a hard link or anything but a
    plain file (``history_place.in_place_problem``).
    A library copied or cloned with ``.oo-cache/library.sqlite`` linked to a file elsewhere had
    that file overwritten with a database (an empty one) or deleted as damaged."""
    folder = db_path.parent
    if folder.is_symlink():
        raise OSError(f"{folder} is a symbolic link; the cache is kept only inside the library")
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{db_path}{suffix}")
        try:
            problem = in_place_problem(part, os.lstat(part))
        except FileNotFoundError:
            continue
        if problem is not None:
            raise OSError(f"{problem}; the cache is kept only inside the library")


def _is_damaged(exc: sqlite3.Error) -> bool:
    """Whether the file itself is bad (not a database, or corrupt), so rebuilding it loses
    nothing. A full disk or an I/O error is not that: a good cache of a large library was deleted
    the moment the disk filled up."""
    name = getattr(exc, "sqlite_errorname", None)
    if name is not None:
        return name in {"SQLITE_NOTADB", "SQLITE_CORRUPT"}
    return not isinstance(exc, sqlite3.OperationalError)


def _is_locked(exc: sqlite3.Error) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def forget(path: str | Path) -> None:
    """Drop ``path``'s rows from the cache of every library above it (a write through the store
    calls this). Never raises: a cache problem must not fail a write."""
    target = Path(os.path.abspath(path))
    for folder in target.parents:
        db_path = cache_path(folder)
        _wait_for_save(db_path)  # else the save could bring the row back
        if not db_path.is_file():
            continue
        try:
            check_cache_place(db_path)
        except OSError:
            continue  # a linked cache is never used, so never written either
        try:
            db = sqlite3.connect(db_path, timeout=0.5, isolation_level=None)
            try:
                db.execute(
                    "DELETE FROM files WHERE rel = ?", (target.relative_to(folder).as_posix(),)
                )
            finally:
                db.close()
        except (sqlite3.Error, OSError, ValueError):
            continue  # the stamp still tells the next scan that the file changed
