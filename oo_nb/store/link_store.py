"""Link-check results, one row per URL, in their own SQLite file: ``DIR/.oo-cache/links.sqlite``
(kept apart from the library cache so either can be deleted alone). Rows are reused for a TTL;
readers (the sources frame, the audit, the update prompt) only read, and a missing or damaged
file reads as "nothing checked yet"."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import astuple, dataclass, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path

__all__ = ["LINKS_FILE", "LinkRow", "links_path", "read_links", "write_links"]

LINKS_FILE = "links.sqlite"
_SCHEMA = """CREATE TABLE IF NOT EXISTS links (
    url TEXT PRIMARY KEY,
    status INTEGER,
    final_url TEXT,
    dead INTEGER NOT NULL,
    link_status TEXT NOT NULL,
    permanent INTEGER NOT NULL,
    error TEXT,
    checked_at TEXT NOT NULL
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


def links_path(folder: str | Path) -> Path:
    return Path(folder) / ".oo-cache" / LINKS_FILE


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30)
    db.execute(_SCHEMA)
    return db


def read_links(
    folder: str | Path, *, max_age: timedelta | None = None, now: datetime | None = None
) -> dict[str, LinkRow]:
    """The stored rows by URL (only those checked within ``max_age`` when given)."""
    path = links_path(folder)
    if not path.is_file():
        return {}
    cutoff = ((now or datetime.now(UTC)) - max_age).isoformat() if max_age is not None else ""
    names = ", ".join(f.name for f in fields(LinkRow))
    try:
        db = _connect(path)
        try:
            rows = db.execute(
                f"SELECT {names} FROM links WHERE checked_at >= ?", (cutoff,)
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return {}  # a damaged cache is a cache miss: the links get checked again
    return {r[0]: LinkRow(r[0], r[1], r[2], bool(r[3]), r[4], bool(r[5]), r[6], r[7]) for r in rows}


def write_links(folder: str | Path, rows: Iterable[LinkRow]) -> None:
    """Insert or replace rows in one transaction."""
    path = links_path(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = _connect(path)
    except sqlite3.DatabaseError:  # not a database (damaged): results are only a cache
        path.unlink()
        db = _connect(path)
    try:
        with db:
            db.executemany(
                "INSERT OR REPLACE INTO links VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [astuple(r) for r in rows],
            )
    finally:
        db.close()
