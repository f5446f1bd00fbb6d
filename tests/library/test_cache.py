"""The library's scan cache (DIR/.oo-cache/library.sqlite): shared between runs and processes,
and never wrong. Real files, real sqlite, real subprocesses."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from oo_nb.format.document import Document
from oo_nb.library import digest_codec
from oo_nb.library import scan as scan_module
from oo_nb.library.digest import Digest, digest_file, relative_slug
from oo_nb.library.library import FRAMES, Library, discover
from oo_nb.store import scan_cache
from oo_nb.store.discover import walk
from oo_nb.store.store import write_document
from tests.conftest import CORPUS
from tests.library.test_library import FIXTURES, load_synth
from tests.support.scan_reads import count_reads

TODAY = date(2026, 3, 1)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for path in [*CORPUS.glob("*.o-o.html"), *FIXTURES.glob("*.o-o.html")]:
        shutil.copy(path, root / path.name)
    (root / "sub").mkdir()
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", root / "sub" / "yc-copy.o-o.html")
    return root


def db_of(root: Path) -> Path:
    return root / ".oo-cache" / "library.sqlite"


def rows(root: Path) -> dict[str, tuple[int, str | None, str]]:
    with contextlib.closing(sqlite3.connect(db_of(root))) as db:
        found = db.execute("SELECT rel, mtime_ns, hash, payload FROM files").fetchall()
    return {rel: (mtime, digest, payload) for rel, mtime, digest, payload in found}


def same_frames(a: Library, b: Library) -> None:
    for name in FRAMES:
        pd.testing.assert_frame_equal(a.frame(name), b.frame(name))
    pd.testing.assert_frame_equal(a.audit(), b.audit())


counting = count_reads


def age(root: Path) -> None:
    """Make every file look long unchanged (the cache then stores no hashes)."""
    for p in root.rglob("*.o-o.html"):
        os.utime(p, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))


# --------------------------------------------------------------------------- the codec
def test_codec_round_trips_every_digest(folder: Path, tmp_path: Path) -> None:
    synth = load_synth()
    made = synth.make_library(tmp_path / "synth", 20, seed=3, corrupt_rate=0.3)
    paths = [*folder.rglob("*.o-o.html"), *made]
    kinds = set()
    for p in paths:
        result = digest_file(str(p), p.stem)
        kinds.add(type(result).__name__)
        back = digest_codec.decode(digest_codec.encode(result), str(p), p.stem)
        assert back == result, p
    assert kinds == {"Digest", "Failure", "NoneType"}  # documents, unreadable files, index pages


def test_codec_round_trips_quotes_and_paragraph_leads() -> None:
    d = digest_file(str(CORPUS / "agi-declared.o-o.html"), "agi-declared")
    assert isinstance(d, Digest)
    d.quotes = [("f1", "a quote found", True), ("f2", "not found", False), ("f3", "old", None)]
    d.pid_leads = {"bad pid": "First words of it"}
    d.unpidded_leads = {"overview": "A paragraph without"}
    back = digest_codec.decode(digest_codec.encode(d), d.path, d.slug)
    assert back == d
    raw = json.loads(digest_codec.encode(d))
    raw["quotes"][2][0] = "maybe"  # quote_found: a bool or null
    with pytest.raises(ValueError):
        digest_codec.decode(json.dumps(raw), "x", "x")


def test_codec_round_trips_an_unsafe_text_finding(tmp_path: Path) -> None:
    """The audit's unsafe-text finding (a bidi override in the article) comes back from the
    cache: the codec refused every markup code but the two it knew, and the cache was dropped."""
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    path = tmp_path / "a.o-o.html"
    path.write_bytes(doc.with_article(doc.article_html + "<p>x\u202ey</p>\n").to_bytes())
    d = digest_file(str(path), "a")
    assert isinstance(d, Digest) and [code for code, _ in d.markup] == ["unsafe-text"]
    assert digest_codec.decode(digest_codec.encode(d), d.path, d.slug) == d


def test_codec_covers_every_digest_field() -> None:
    assert {f.name for f in dataclasses.fields(Digest)} == digest_codec.ENCODED_FIELDS


@pytest.mark.parametrize(
    "planted",
    [
        '{"kind":"digest","nbytes":"12"}',
        "not json",
        '{"kind":"pickle","data":"gASV"}',
        '{"kind":"failure","row":[1,2,3,4,5]}',
    ],
)
def test_codec_refuses_what_encode_never_wrote(planted: str) -> None:
    with pytest.raises(ValueError):
        digest_codec.decode(planted, "x.o-o.html", "x")


def test_a_digest_with_a_wrong_column_type_is_refused() -> None:
    d = digest_file(str(CORPUS / "agi-declared.o-o.html"), "agi-declared")
    raw = json.loads(digest_codec.encode(d))
    raw["sources"][7][0] = "yes"  # verified: must be a bool or null
    with pytest.raises(ValueError):
        digest_codec.decode(json.dumps(raw), "x", "x")


# --------------------------------------------------------------------------- reuse
def test_a_second_library_reads_only_what_changed(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    age(folder)
    first = Library(folder, today=TODAY, workers=1)
    assert db_of(folder).is_file() and len(rows(folder)) == len(first) + len(first.failures)
    read = counting(monkeypatch)
    second = Library(folder, today=TODAY, workers=1)
    assert read == []
    same_frames(first, second)
    same_frames(second, Library(folder, today=TODAY, workers=1, cache=False))
    path = folder / "yc-w26-batch.o-o.html"
    path.write_text(path.read_text().replace('"version": 1,', '"version": 7,', 1))
    (folder / "stub.o-o.html").unlink()
    read.clear()
    third = Library(folder, today=TODAY, workers=1)
    assert read == ["yc-w26-batch"]
    docs = third.documents.set_index("slug")
    assert docs.loc["yc-w26-batch", "version"] == 7 and "stub" not in docs.index
    assert "stub.o-o.html" not in rows(folder)  # deleted files drop out


def test_a_new_cache_has_large_pages_and_an_old_one_keeps_its_own(folder: Path) -> None:
    age(folder)
    first = Library(folder, today=TODAY, workers=1)
    with contextlib.closing(sqlite3.connect(db_of(folder))) as db:
        assert db.execute("PRAGMA page_size").fetchone()[0] == scan_cache.PAGE_BYTES == 65536
    shutil.rmtree(folder / ".oo-cache")
    (folder / ".oo-cache").mkdir()
    with contextlib.closing(sqlite3.connect(db_of(folder))) as db:
        db.execute("PRAGMA page_size = 4096")
        db.execute("CREATE TABLE t (x)")  # a cache an earlier version made
    Library(folder, today=TODAY, workers=1)
    with contextlib.closing(sqlite3.connect(db_of(folder))) as db:
        assert db.execute("PRAGMA page_size").fetchone()[0] == 4096
    same_frames(first, Library(folder, today=TODAY, workers=1))
    assert len(rows(folder)) == len(first) + len(first.failures)


def test_a_library_of_the_top_folder_only_keeps_the_rows_below(folder: Path) -> None:
    Library(folder, today=TODAY, workers=1)
    Library(folder, recursive=False, today=TODAY, workers=1)
    assert "sub/yc-copy.o-o.html" in rows(folder)


def test_the_cache_key_does_not_depend_on_how_the_folder_is_named(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    age(folder)
    Library(folder, today=TODAY, workers=1)
    read = counting(monkeypatch)
    monkeypatch.chdir(folder)
    here = Library(".", today=TODAY, workers=1)
    assert read == [] and "sub/yc-copy" in here
    assert Path(here.documents.set_index("slug").loc["sub/yc-copy", "path"]) == Path(
        "sub/yc-copy.o-o.html"
    )


def test_the_walk_skips_the_cache_folder(folder: Path) -> None:
    Library(folder, today=TODAY, workers=1)
    shutil.copy(CORPUS / "agi-declared.o-o.html", folder / ".oo-cache" / "planted.o-o.html")
    (folder / ".oo-cache" / "links.sqlite").write_bytes(b"another cache")
    assert not [p for p in walk(folder) if ".oo-cache" in p.parts]
    assert "planted" not in Library(folder, today=TODAY, workers=1)


# --------------------------------------------------------------------------- never wrong
def test_a_write_through_the_store_drops_the_row(folder: Path) -> None:
    age(folder)
    Library(folder, today=TODAY, workers=1)
    path = folder / "sub" / "yc-copy.o-o.html"
    assert "sub/yc-copy.o-o.html" in rows(folder)
    doc = Document.read(path)
    changed = doc.edit_block("oo-manifest", lambda m: m.update(title="Written through the store"))
    write_document(changed, expected=doc.to_bytes(), path=path)
    assert "sub/yc-copy.o-o.html" not in rows(folder)
    lib = Library(folder, today=TODAY, workers=1)
    assert lib.documents.set_index("slug").loc["sub/yc-copy", "title"] == (
        "Written through the store"
    )


def test_an_edit_that_keeps_the_stamp_is_caught_by_the_hash(folder: Path) -> None:
    """A filesystem with coarse timestamps can leave size, mtime and ctime as they were after a
    second edit: simulated by giving the cached row the edited file's stamp."""
    path = folder / "yc-w26-batch.o-o.html"
    Library(folder, today=TODAY, workers=1)  # just copied: recent, so recorded with a hash
    rel = "yc-w26-batch.o-o.html"
    assert rows(folder)[rel][1] is not None
    text = path.read_text()
    path.write_text(text.replace('"version": 1,', '"version": 8,', 1))  # same size
    stamp = scan_cache.Stamp.of(path)
    assert stamp is not None

    def restamp(hash_: str | None) -> None:
        with contextlib.closing(sqlite3.connect(db_of(folder))) as db, db:
            db.execute(
                "UPDATE files SET ino = ?, size = ?, mtime_ns = ?, ctime_ns = ?, hash = "
                "coalesce(?, hash) WHERE rel = ?",
                (stamp.ino, stamp.size, stamp.mtime_ns, stamp.ctime_ns, hash_, rel),
            )

    restamp(None)
    lib = Library(folder, today=TODAY, workers=1)
    assert lib.documents.set_index("slug").loc["yc-w26-batch", "version"] == 8
    # the control: the same row without its hash would have been trusted
    path.write_text(text)
    stamp = scan_cache.Stamp.of(path)
    assert stamp is not None
    Library(folder, today=TODAY, workers=1)  # records version 1 (with a hash)
    path.write_text(text.replace('"version": 1,', '"version": 8,', 1))
    stamp = scan_cache.Stamp.of(path)
    assert stamp is not None
    with contextlib.closing(sqlite3.connect(db_of(folder))) as db, db:
        db.execute(
            "UPDATE files SET ino = ?, size = ?, mtime_ns = ?, ctime_ns = ?, hash = NULL "
            "WHERE rel = ?",
            (stamp.ino, stamp.size, stamp.mtime_ns, stamp.ctime_ns, rel),
        )
    stale = Library(folder, today=TODAY, workers=1)
    assert stale.documents.set_index("slug").loc["yc-w26-batch", "version"] == 1


def test_an_old_file_is_no_longer_hashed(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Library(folder, today=TODAY, workers=1)
    assert all(digest is not None for _, digest, _ in rows(folder).values())
    monkeypatch.setattr(scan_cache, "RECENT_NS", 0)
    Library(folder, today=TODAY, workers=1)
    assert all(digest is None for _, digest, _ in rows(folder).values())


def test_a_planted_row_is_never_trusted(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    age(folder)
    plain = Library(folder, today=TODAY, workers=1, cache=False)
    Library(folder, today=TODAY, workers=1)
    with contextlib.closing(sqlite3.connect(db_of(folder))) as db, db:
        db.execute(
            "UPDATE files SET payload = ? WHERE rel = 'agi-declared.o-o.html'",
            ('{"kind":"digest","nbytes":"pwned"}',),
        )
        db.execute(
            "UPDATE files SET payload = ? WHERE rel = 'stub.o-o.html'",
            ('{"kind":"failure","row":[1]}',),
        )
    read = counting(monkeypatch)
    lib = Library(folder, today=TODAY, workers=1)
    same_frames(plain, lib)
    assert sorted(read) == ["agi-declared", "stub"]


def test_a_damaged_cache_is_rebuilt_with_a_warning(folder: Path) -> None:
    plain = Library(folder, today=TODAY, workers=1, cache=False)
    Library(folder, today=TODAY, workers=1)
    db_of(folder).write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    for leftover in ("-wal", "-shm"):
        Path(f"{db_of(folder)}{leftover}").unlink(missing_ok=True)
    with pytest.warns(scan_cache.CacheWarning, match="unreadable"):
        lib = Library(folder, today=TODAY, workers=1)
    same_frames(plain, lib)
    assert len(rows(folder)) == len(lib) + len(lib.failures)  # a working cache again


def test_a_cache_of_another_version_is_dropped(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    age(folder)
    Library(folder, today=TODAY, workers=1)
    with contextlib.closing(sqlite3.connect(db_of(folder))) as db, db:
        db.execute("UPDATE views SET version = 'from another oo_nb'")
        db.execute('UPDATE files SET payload = \'{"kind":"index"}\'')  # would hide everything
    read = counting(monkeypatch)
    lib = Library(folder, today=TODAY, workers=1)
    assert len(read) == len(lib) + len(lib.failures) and len(lib) > 10


def test_a_locked_cache_is_bypassed_with_a_warning(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Library(folder, today=TODAY, workers=1)
    path = folder / "stub.o-o.html"
    path.write_text(path.read_text() + "\n")  # something to write back
    plain = Library(folder, today=TODAY, workers=1, cache=False)
    monkeypatch.setattr(scan_cache, "BUSY_MS", 100)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time; db = sqlite3.connect(sys.argv[1], isolation_level=None);"
            " db.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(30)",
            str(db_of(folder)),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.warns(scan_cache.CacheWarning, match="cannot be written"):
            lib = Library(folder, today=TODAY, workers=1)
    finally:
        holder.kill()
        holder.wait()
    pd.testing.assert_frame_equal(plain.documents, lib.documents)


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` made unwritable, even for root (chattr +i), else skip."""
    if os.geteuid() == 0:
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
        if done.returncode != 0:
            pytest.skip("cannot make a file immutable here")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)


def test_a_read_only_library_folder_still_works(folder: Path) -> None:
    plain = Library(folder, today=TODAY, workers=1, cache=False)
    with read_only(folder), pytest.warns(scan_cache.CacheWarning, match="cannot be used"):
        lib = Library(folder, today=TODAY, workers=1)
    same_frames(plain, lib)
    assert not (folder / ".oo-cache").exists()


def test_a_read_only_cache_is_bypassed_not_trusted(folder: Path) -> None:
    age(folder)
    Library(folder, today=TODAY, workers=1)
    path = folder / "yc-w26-batch.o-o.html"
    path.write_text(path.read_text().replace('"version": 1,', '"version": 5,', 1))
    with read_only(db_of(folder)), pytest.warns(scan_cache.CacheWarning):
        lib = Library(folder, today=TODAY, workers=1)
    assert lib.documents.set_index("slug").loc["yc-w26-batch", "version"] == 5


def test_a_cache_folder_that_is_a_file_is_bypassed(folder: Path) -> None:
    (folder / ".oo-cache").write_text("not a folder")
    with pytest.warns(scan_cache.CacheWarning):
        lib = Library(folder, today=TODAY, workers=1)
    assert len(lib) > 10


SCAN = """
import hashlib, sys, warnings
warnings.simplefilter("error")  # any cache warning fails the run
from datetime import date
from oo_nb.library.library import FRAMES, Library
lib = Library(sys.argv[1], today=date(2026, 3, 1), workers=1)
text = "".join(lib.frame(n).to_json(date_format="iso") for n in (*FRAMES, "audit"))
print(len(lib), hashlib.sha256(text.encode()).hexdigest())
"""


def test_processes_scanning_at_once_all_finish_right(tmp_path: Path) -> None:
    synth = load_synth()
    root = tmp_path / "lib"
    synth.make_library(root, 60, seed=7, corrupt_rate=0.1)
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def start() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-c", SCAN, str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )

    for _ in range(2):  # cold, then warm: both times together
        procs = [start() for _ in range(3)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            plain = Library(root, today=TODAY, workers=1, cache=False)
        text = "".join(plain.frame(n).to_json(date_format="iso") for n in (*FRAMES, "audit"))
        import hashlib

        expected = f"{len(plain)} {hashlib.sha256(text.encode()).hexdigest()}"
        assert [out.strip() for out, _ in outs] == [expected] * 3
    assert len(rows(root)) >= 60


def test_a_large_save_runs_behind_and_is_finished_before_the_process_exits(
    tmp_path: Path,
) -> None:
    synth = load_synth()
    root = tmp_path / "lib"
    synth.make_library(root, scan_module.PRESTART_AT + 8, seed=8)
    age(root)
    code = (
        "import sys, threading, time; from oo_nb.store import scan_cache\n"
        "close = scan_cache._close\n"
        "scan_cache._close = lambda db: (time.sleep(0.5), close(db))  # a slow disk\n"
        "from oo_nb.library.library import Library\n"
        "lib = Library(sys.argv[1], workers=1)\n"
        "print([t.name for t in threading.enumerate() if t.name == 'oo-cache-save'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=300,
        check=True,
    )
    assert done.stdout.strip() == "['oo-cache-save']"  # still saving when the scan returned
    # ... and done before the interpreter exited: every row in, the log copied and removed
    assert not Path(f"{db_of(root)}-wal").exists()
    plain = Library(root, today=TODAY, workers=1, cache=False)
    assert len(rows(root)) == len(plain) + len(plain.failures)


def test_a_scan_in_the_same_process_waits_for_the_save_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synth = load_synth()
    root = tmp_path / "lib"
    synth.make_library(root, scan_module.PRESTART_AT + 8, seed=9)
    age(root)
    write = scan_cache._write
    started = threading.Event()

    def slow_write(*args: Any) -> None:
        started.set()
        time.sleep(0.5)  # a slow disk: the next scan starts while this one still writes
        write(*args)

    monkeypatch.setattr(scan_cache, "_write", slow_write)
    first = Library(root, today=TODAY, workers=1)
    assert started.wait(5)
    read = counting(monkeypatch)
    again = Library(root, today=TODAY, workers=1)  # waited: every row is there
    assert read == []
    same_frames(first, again)
    # and a write through the store waits for it too: the row it drops does not come back
    monkeypatch.setattr(scan_cache, "_write", slow_write)
    started.clear()
    shutil.rmtree(root / ".oo-cache")
    Library(root, today=TODAY, workers=1)
    assert started.wait(5)
    path = next(iter(sorted(root.glob("*.o-o.html"))))
    scan_cache.forget(path)
    scan_cache.ScanCache(root, "digest", digest_codec.VERSION).close()  # (waits for the save)
    assert path.name not in rows(root)
    assert len(rows(root)) == len(first) + len(first.failures) - 1


# --------------------------------------------------------------------------- oo index
def test_the_index_scan_shares_the_cache(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from oo_nb.library import index_data

    age(folder)
    first = index_data.scan(folder, workers=1)
    assert first.entries and first.errors
    read: list[Path] = []
    real = index_data._entry_or_error

    def counting_entry(job: tuple[Path, Path], data: bytes | None = None) -> object:
        read.append(job[0])
        return real(job, data)

    monkeypatch.setattr(index_data, "_entry_or_error", counting_entry)
    again = index_data.scan(folder, workers=1)
    assert read == [] and again == first
    path = folder / "yc-w26-batch.o-o.html"
    path.write_text(path.read_text().replace('"version": 1,', '"version": 3,', 1))
    changed = index_data.scan(folder, workers=1)
    assert read == [path]
    assert changed == index_data.scan(folder, workers=1, cache=False)
    assert {e.rel: e.version for e in changed.entries}["yc-w26-batch.o-o.html"] == 3
    Library(folder, today=TODAY, workers=1)
    assert views(folder) == {"index-entry", "digest"}  # one database, two tables of rows


def views(root: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(db_of(root))) as db:
        return {v for (v,) in db.execute("SELECT DISTINCT view FROM files")}


def test_a_planted_index_row_is_never_trusted(folder: Path) -> None:
    from oo_nb.library import index_data

    age(folder)
    plain = index_data.scan(folder, workers=1, cache=False)
    index_data.scan(folder, workers=1)
    with contextlib.closing(sqlite3.connect(db_of(folder))) as db, db:
        db.execute('UPDATE files SET payload = \'{"kind":"entry","title":7}\'')
    assert index_data.scan(folder, workers=1) == plain


# --------------------------------------------------------------------------- the cold path
def test_cold_scan_digests_are_what_a_full_read_gives(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold scan keeps each digest as packed cache text (made in worker processes for a large
    library) and decodes it later: the digests, frames and audit are those of reading every
    file directly, on the corpus, the fixtures and a synthetic library with corrupt files."""
    made = load_synth().make_library(folder / "synth", 40, seed=11, corrupt_rate=0.3)
    assert made
    monkeypatch.setattr(scan_cache, "RECENT_NS", 0)  # files just made go to workers too
    direct = {}
    for p in discover(folder):
        rel = relative_slug(p, folder)
        direct[rel] = digest_file(str(p), rel)
    in_memory = Library(folder, today=TODAY, workers=1, cache=False)  # text kept as it is
    monkeypatch.setattr(scan_module, "PACK_FROM", 1)  # as for a large library: text packed
    packed = Library(folder, today=TODAY, workers=1, cache=False)
    pooled = Library(folder, today=TODAY, workers=2)  # cold: the cache is written
    warm = Library(folder, today=TODAY, workers=2)
    assert any(isinstance(k.payload, bytes) for k in pooled._known.values())
    for lib in (in_memory, packed, pooled, warm):
        assert {d.slug: d for d in lib.digests} == {
            slug: d for slug, d in direct.items() if isinstance(d, Digest)
        }
        assert sorted((f.slug, f.message) for f in lib.failures) == sorted(
            (slug, f.message)
            for slug, f in direct.items()
            if f is not None and not isinstance(f, Digest)
        )
    same_frames(in_memory, packed)
    same_frames(in_memory, pooled)
    same_frames(pooled, warm)


def test_packed_rows_round_trip(folder: Path) -> None:
    for p in sorted(folder.glob("*.o-o.html")):
        result = digest_file(str(p), p.stem)
        packed = digest_codec.pack_result(result)
        assert isinstance(packed, bytes) == isinstance(result, Digest)
        assert len(packed) < len(digest_codec.encode(result)) or not isinstance(result, Digest)
        assert digest_codec.decode(digest_codec.unpack(packed), str(p), p.stem) == result
