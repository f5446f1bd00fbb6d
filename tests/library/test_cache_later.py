"""A warm scan leaves each digest's text in the library's cache (``ScanCache.load(defer=...)``)
and reads it only when a digest is needed: the frames are right, a row replaced in between
sends the scan back to the file, and a row whose hash is dropped keeps its text."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path

from oo_nb.library.library import Library
from oo_nb.store import scan_cache
from tests.library.test_cache import TODAY, db_of, folder, rows, same_frames

__all__ = ["folder"]  # the fixture


def test_a_warm_library_holds_no_digest_text_until_a_digest_is_needed(folder: Path) -> None:
    Library(folder, today=TODAY, workers=1)
    warm = Library(folder, today=TODAY, workers=1)
    kept = [k for k in warm._known.values() if k.is_digest]
    assert kept and all(isinstance(k.payload, scan_cache.Later) for k in kept)
    same_frames(Library(folder, today=TODAY, workers=1, cache=False), warm)
    assert not any(isinstance(k.payload, scan_cache.Later) for k in kept)


def test_a_row_replaced_before_it_is_read_sends_the_scan_back_to_the_file(folder: Path) -> None:
    Library(folder, today=TODAY, workers=1)
    warm = Library(folder, today=TODAY, workers=1)
    rel = "agi-declared.o-o.html"
    with contextlib.closing(sqlite3.connect(db_of(folder))) as db:  # another process's row
        db.execute("UPDATE files SET mtime_ns = mtime_ns + 1, payload = 'x' WHERE rel = ?", (rel,))
        db.commit()
    same_frames(Library(folder, today=TODAY, workers=1, cache=False), warm)
    assert warm._known[str(folder / rel)].stamp is None  # read again, not trusted as cached


def test_a_row_whose_hash_is_dropped_keeps_its_text(folder: Path) -> None:
    Library(folder, today=TODAY, workers=1)
    before = rows(folder)
    assert any(digest is not None for _, digest, _ in before.values())  # recorded while recent
    time.sleep(scan_cache.RECENT_NS / 1e9 + 0.2)
    Library(folder, today=TODAY, workers=1)
    after = rows(folder)
    assert {rel: payload for rel, (_, _, payload) in after.items()} == {
        rel: payload for rel, (_, _, payload) in before.items()
    }
    assert all(digest is None for _, digest, _ in after.values())
