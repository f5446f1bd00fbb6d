"""Link-check results, one row per URL, in their own SQLite file: ``DIR/.oo-cache/links.sqlite``
(kept apart from the library cache so either can be deleted alone). Rows are reused for a TTL;
readers (the sources frame, the audit, the update prompt) only read, and a missing or damaged
file reads as "nothing checked yet".

The file is data from disk, not something this code wrote for sure (planted, edited, damaged):
a row that is not what ``oo links`` writes (a status that is not a number, an unknown verdict, a
new URL that is not a plain http(s) URL, a date that is not one or lies in the future) is
dropped with a ``CacheWarning`` and so checked again; errors are read as plain text."""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Iterable
from dataclasses import astuple, dataclass, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from oo_nb.format.names import CACHE_DIR
from oo_nb.format.sanitize import safe_http_url, sanitize_text
from oo_nb.store import clock
from oo_nb.store.scan_cache import CacheWarning, check_cache_place
from oo_nb.store.seal import SEAL_FIELD, is_sealed, seal

__all__ = ["LINKS_FILE", "MAX_AGE", "LinkRow", "links_path", "read_links", "write_links"]

LINKS_FILE = "links.sqlite"
_SCHEMA = """CREATE TABLE IF NOT EXISTS links (
    url TEXT PRIMARY KEY,
    status INTEGER,
    final_url TEXT,
    dead INTEGER NOT NULL,
    link_status TEXT NOT NULL,
    permanent INTEGER NOT NULL,
    error TEXT,
    checked_at TEXT NOT NULL,
    seal TEXT
)"""


@dataclass(frozen=True)
class LinkRow:
    """One URL's check. ``link_status``: ok, moved (a permanent redirect to a page that
    answers), dead, unknown (401/403/429, 5xx, a timeout...) or skipped (private address,
    not http(s))."""

    url: str
    status: int | None
    final_url: str | None
    dead: bool
    link_status: str
    permanent: bool
    error: str | None
    checked_at: str  # ISO 8601, UTC


MAX_AGE = timedelta(days=7)  # `oo links --max-age`'s default: older rows are not reused
STATUSES = frozenset({"ok", "moved", "dead", "unknown", "skipped"})
_FUTURE = timedelta(days=1)  # clocks differ a little; a row from further ahead never expires


def links_path(folder: str | Path) -> Path:
    return Path(folder) / CACHE_DIR / LINKS_FILE  # beside the library cache


def _in_place(path: Path, outcome: str) -> bool:
    """Whether the file may be opened: never through a link, nor a hard link (SQLite writes
    it in place, so another file sharing its bytes would be changed)."""
    try:
        check_cache_place(path)
    except OSError as exc:
        warnings.warn(f"link results {outcome}: {exc}", CacheWarning, 3)
        return False
    return True


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30)
    db.execute(_SCHEMA)
    columns = {r[1] for r in db.execute("PRAGMA table_info(links)")}
    if "seal" not in columns:  # a file from before rows were sealed: its rows read unsealed
        db.execute("ALTER TABLE links ADD COLUMN seal TEXT")
    return db


def _record(raw: tuple[Any, ...]) -> dict[str, Any]:
    """What a row's seal covers: every field as stored, by name."""
    # as SQLite gives them back: a flag is 0 or 1
    values = (int(v) if isinstance(v, bool) else v for v in raw)
    return dict(zip((f.name for f in fields(LinkRow)), values, strict=True))


def read_links(
    folder: str | Path,
    *,
    max_age: timedelta = MAX_AGE,
    now: datetime | None = None,
    own_only: bool = False,
) -> dict[str, LinkRow]:
    """The stored rows by URL checked within ``max_age`` (a row from 2019 is no news of a page
    today); with ``own_only``, only rows this machine's ``oo links`` wrote and sealed
    (``store.seal``): a planted or edited row never reaches an update prompt."""
    path = links_path(folder)
    if not path.is_file() or not _in_place(path, "not read"):
        return {}
    cutoff = ((now or clock.now()) - max_age).isoformat()
    names = ", ".join(f.name for f in fields(LinkRow)) + ", seal"
    try:
        db = _connect(path)
        try:
            rows = db.execute(
                f"SELECT {names} FROM links WHERE checked_at >= ?", (cutoff,)
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:  # a damaged cache is a cache miss: the links get checked again
        warnings.warn(f"link results {path} are unreadable ({exc}); checked again", CacheWarning, 2)
        return {}
    latest = max(now or clock.now(), datetime.now(UTC)) + _FUTURE  # OO_TODAY may lie behind
    out: dict[str, LinkRow] = {}
    bad = 0
    for *raw, mark in rows:
        if own_only and not is_sealed({**_record(tuple(raw)), SEAL_FIELD: mark}):
            continue
        row = _valid(tuple(raw), latest)
        if row is None:
            bad += 1
        else:
            out[row.url] = row
    if bad:
        warnings.warn(
            f"link results {path}: {bad} row(s) not as oo links writes them were ignored "
            "(checked again)",
            CacheWarning,
            2,
        )
    return out


def _flag(value: Any) -> bool | None:
    return bool(value) if type(value) is int and value in (0, 1) else None


def _valid(raw: tuple[Any, ...], latest: datetime) -> LinkRow | None:
    """The row as a ``LinkRow`` when every field is what ``write_links`` stores, else None."""
    url, status, final, dead, verdict, permanent, error, checked = raw
    if not isinstance(url, str) or verdict not in STATUSES:
        return None
    if status is not None and not (type(status) is int and 100 <= status <= 599):
        return None
    if final is not None and not isinstance(final, str):
        return None  # as the source's own URL, any text: a skipped one may hold anything
    if verdict == "moved" and (final is None or safe_http_url(final) != final):
        return None  # its new URL goes into the update prompt
    if error is not None and not isinstance(error, str):
        return None
    dead_flag, permanent_flag = _flag(dead), _flag(permanent)
    if dead_flag is None or permanent_flag is None or not isinstance(checked, str):
        return None
    try:
        when = datetime.fromisoformat(checked)
    except ValueError:
        return None
    if when.tzinfo is None or when > latest:
        return None
    error = sanitize_text(error, max_len=500) if error is not None else None
    return LinkRow(url, status, final, dead_flag, verdict, permanent_flag, error, checked)


def write_links(folder: str | Path, rows: Iterable[LinkRow]) -> None:
    """Insert or replace rows in one transaction."""
    path = links_path(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not _in_place(path, "not kept"):
        return
    try:
        db = _connect(path)
    except sqlite3.DatabaseError:  # not a database (damaged): results are only a cache
        path.unlink()
        db = _connect(path)
    try:
        with db:
            db.executemany(
                "INSERT OR REPLACE INTO links VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(*astuple(r), seal(_record(astuple(r)))) for r in rows],
            )
    finally:
        db.close()
