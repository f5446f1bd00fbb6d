"""When the library cache re-reads a file: a stamp is recent by its ctime as much as by its mtime
(``cp -p``, ``rsync -t`` and ``tar x`` set an old mtime on a new file, never an old ctime), and a
row recorded while recent keeps its hash when a scan confirms it while still recent. Either bug
serves stale data after a same-size edit."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

import pytest

from oo_nb.library.library import Library
from oo_nb.store import scan_cache
from oo_nb.store.scan_cache import RECENT_NS, Row, Stamp, content_hash, still_holds
from tests.library.test_cache import TODAY, db_of, folder, rows

__all__ = ["folder"]  # the fixture, shared with the cache tests

NOW = 10**19


@pytest.mark.parametrize(
    ("mtime", "ctime", "recent"),
    [
        (NOW - 1, NOW - 1, True),
        (0, NOW - 1, True),  # cp -p: an old mtime on a file written just now
        (NOW - 1, 0, True),
        (0, 0, False),
        (NOW - RECENT_NS, NOW - RECENT_NS, False),
        (0, NOW - RECENT_NS + 1, True),
    ],
)
def test_recent_by_mtime_or_ctime(mtime: int, ctime: int, recent: bool) -> None:
    assert Stamp(1, 10, mtime, ctime).recent(NOW) is recent


def test_a_hashed_row_holds_only_the_bytes_it_hashed(tmp_path: Path) -> None:
    path = tmp_path / "a.o-o.html"
    path.write_bytes(b"version 1")
    stamp = Stamp.of(path)
    assert stamp is not None
    assert still_holds(Row(stamp, content_hash(b"version 1"), ""), path, stamp)
    assert not still_holds(Row(stamp, content_hash(b"version 8"), ""), path, stamp)
    assert still_holds(Row(stamp, None, ""), path, stamp)
    other = Stamp(stamp.ino, stamp.size, stamp.mtime_ns, stamp.ctime_ns + 1)
    assert not still_holds(Row(stamp, None, ""), path, other)
    assert not still_holds(Row(stamp, None, ""), path, None)
    hashed = Row(stamp, content_hash(b"version 1"), "")
    os.unlink(path)
    assert not still_holds(hashed, path, stamp)  # unreadable: not trusted


def test_a_recent_row_keeps_its_hash_when_a_scan_confirms_it(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan_cache, "RECENT_NS", 10**18)  # every file stays recent
    Library(folder, today=TODAY, workers=1)
    Library(folder, today=TODAY, workers=1)  # confirms every row while still recent
    assert all(digest is not None for _, digest, _ in rows(folder).values())
    # a same-size edit that kept the stamp (a coarse filesystem): the hash catches it
    path, rel = folder / "yc-w26-batch.o-o.html", "yc-w26-batch.o-o.html"
    text = path.read_text()
    path.write_text(text.replace('"version": 1,', '"version": 8,', 1))
    stamp = Stamp.of(path)
    assert stamp is not None
    with contextlib.closing(sqlite3.connect(db_of(folder))) as db, db:
        db.execute(
            "UPDATE files SET ino = ?, size = ?, mtime_ns = ?, ctime_ns = ? WHERE rel = ?",
            (stamp.ino, stamp.size, stamp.mtime_ns, stamp.ctime_ns, rel),
        )
    lib = Library(folder, today=TODAY, workers=1)
    assert lib.documents.set_index("slug").loc["yc-w26-batch", "version"] == 8
