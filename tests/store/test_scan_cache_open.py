"""The library cache's own decisions, through ``ScanCache`` and ``forget`` (issue 28: found
wanting by mutation testing): which failures to open rebuild the cache (only a file that is no
database or a corrupt one) and which keep it (a lock, a full disk, an I/O error), and that
``forget`` drops a row from a library's cache whatever the caches between it and the file are."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from oo_nb.store import scan_cache
from oo_nb.store.scan_cache import CacheWarning, Row, ScanCache, Stamp, cache_path, forget

ROW = Row(Stamp(1, 2, 3, 4), None, '{"kind": "digest"}')


def _filled(root: Path) -> Path:
    with ScanCache(root, "digest", "1") as cache:
        cache.save([("a.o-o.html", ROW), ("sub/b.o-o.html", ROW)])
    return cache_path(root)


def _rels(root: Path) -> set[str]:
    with ScanCache(root, "digest", "1") as cache:
        assert cache.usable
        return set(cache.load())


def _failing(monkeypatch: pytest.MonkeyPatch, exc: sqlite3.Error) -> None:
    def connect(*args: object, **kw: object) -> sqlite3.Connection:
        raise exc

    monkeypatch.setattr(sqlite3, "connect", connect)


def test_a_corrupt_cache_is_rebuilt(tmp_path: Path) -> None:
    db = _filled(tmp_path)
    data = bytearray(db.read_bytes())
    page = scan_cache.PAGE_BYTES
    assert len(data) > 2 * page  # the schema page, then the tables' pages
    data[page : 2 * page] = b"\xa5" * page  # a valid header, damaged pages: SQLITE_CORRUPT
    db.write_bytes(bytes(data))
    with pytest.warns(CacheWarning, match="unreadable .*rebuilding"):
        cache = ScanCache(tmp_path, "digest", "1")
    with cache:
        assert cache.usable and cache.load() == {}  # a working, empty cache again


@pytest.mark.parametrize(
    ("exc", "rebuilt"),
    [
        # errors raised without sqlite's error name (older Pythons, or oo_nb's own): by class
        (sqlite3.DatabaseError("file is not a database"), True),
        (sqlite3.OperationalError("disk I/O error"), False),
    ],
)
def test_an_unnamed_error_is_judged_by_its_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: sqlite3.Error, rebuilt: bool
) -> None:
    db = _filled(tmp_path)
    with monkeypatch.context() as patch:
        _failing(patch, exc)
        with pytest.warns(CacheWarning, match="rebuilding" if rebuilt else "cannot be used"):
            ScanCache(tmp_path, "digest", "1").close()
    assert db.exists() is not rebuilt  # a damaged file goes; any other problem keeps it
    assert _rels(tmp_path) == (set() if rebuilt else {"a.o-o.html", "sub/b.o-o.html"})


def test_a_cache_locked_by_another_process_is_kept_and_bypassed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _filled(tmp_path)
    monkeypatch.setattr(scan_cache, "BUSY_MS", 100)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time; db = sqlite3.connect(sys.argv[1], isolation_level=None);"
            " db.execute('PRAGMA locking_mode = EXCLUSIVE'); db.execute('BEGIN EXCLUSIVE');"
            " db.execute('DELETE FROM views WHERE 0'); print('held', flush=True); time.sleep(30)",
            str(db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.warns(CacheWarning, match=r"library.sqlite is locked \(database is locked\)"):
            cache = ScanCache(tmp_path, "digest", "1")
        assert not cache.usable and cache.load() == {}
    finally:
        holder.kill()
        holder.wait()
    assert _rels(tmp_path) == {"a.o-o.html", "sub/b.o-o.html"}


@pytest.mark.parametrize("between", ["linked", "damaged"])
def test_forget_reaches_the_library_above_a_cache_it_cannot_use(
    tmp_path: Path, between: str
) -> None:
    root = tmp_path / "lib"
    (root / "sub").mkdir(parents=True)
    _filled(root)
    inner = root / "sub" / ".oo-cache"
    if between == "linked":  # a cache folder linked elsewhere is never written
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        _filled(elsewhere)
        inner.symlink_to(elsewhere / ".oo-cache")
    else:
        inner.mkdir()
        (inner / "library.sqlite").write_bytes(b"not a database " * 400)
    forget(root / "sub" / "b.o-o.html")
    assert _rels(root) == {"a.o-o.html"}
    if between == "linked":
        assert _rels(tmp_path / "elsewhere") == {"a.o-o.html", "sub/b.o-o.html"}


def test_forget_never_raises_on_a_cache_it_cannot_read(tmp_path: Path) -> None:
    (tmp_path / ".oo-cache").mkdir()
    cache_path(tmp_path).write_bytes(b"not a database " * 400)
    forget(tmp_path / "a.o-o.html")
    assert cache_path(tmp_path).read_bytes() == b"not a database " * 400  # left as it was
