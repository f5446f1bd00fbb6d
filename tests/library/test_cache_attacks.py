"""The library cache attacked from outside: planted or damaged rows, a cache that points out of
the library, a full disk. Whatever the cache holds, the frames are those of a scan without it."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest

from oo_nb.library import digest_codec
from oo_nb.library import scan as scan_module
from oo_nb.library.library import Library
from oo_nb.store import scan_cache
from tests.conftest import CORPUS
from tests.library.test_cache import db_of, same_frames

DOC = "agi-declared.o-o.html"


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for name in (DOC, "yc-w26-batch.o-o.html"):
        shutil.copy(CORPUS / name, root / name)
    return root


def plant(root: Path, field: str, value: object) -> None:
    """Change one field of DOC's cached digest, keeping the row's stamp (so it still matches)."""
    with contextlib.closing(sqlite3.connect(db_of(root))) as db:
        (payload,) = db.execute(
            "SELECT payload FROM files WHERE view = 'digest' AND rel = ?", (DOC,)
        ).fetchone()
        raw = json.loads(payload)
        raw[field] = value
        db.execute(
            "UPDATE files SET payload = ? WHERE view = 'digest' AND rel = ?", (json.dumps(raw), DOC)
        )
        db.commit()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", [1, 2]),
        ("version", "x"),
        ("cadence_days", "7"),
        ("budget_usd", "abc"),
        ("is_sentinel", "yes"),
        ("figures", "x"),
        ("n_paragraphs", 1.5),
        ("cite_ids", 7),
        ("cite_ids", ["s1", 2]),
        ("bad_pids", [1]),
        ("crlf_line", True),
    ],
)
def test_a_planted_row_of_the_wrong_type_is_read_again_from_the_file(
    lib: Path, field: str, value: object
) -> None:
    Library(lib)  # fills the cache
    plant(lib, field, value)
    cached, plain = Library(lib), Library(lib, cache=False)
    same_frames(cached, plain)  # crashed (int + str, int("x"), bool-like values) or showed it


def test_every_plain_field_has_a_type() -> None:
    assert set(digest_codec._PLAIN_TYPES) == set(digest_codec._PLAIN)


def test_a_cache_that_cannot_be_opened_for_a_full_disk_is_kept(
    lib: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Library(lib)
    with contextlib.closing(sqlite3.connect(db_of(lib))) as db:
        kept = db.execute("SELECT count(*) FROM files").fetchone()[0]
    assert kept == 2
    real = sqlite3.connect

    def full(*args: object, **kw: object) -> sqlite3.Connection:
        exc = sqlite3.OperationalError("database or disk is full")
        exc.sqlite_errorname = "SQLITE_FULL"  # type: ignore[attr-defined]
        raise exc

    monkeypatch.setattr(sqlite3, "connect", full)
    with pytest.warns(UserWarning, match="cannot be used .*disk is full"):
        same_frames(Library(lib), Library(lib, cache=False))
    monkeypatch.setattr(sqlite3, "connect", real)
    with contextlib.closing(sqlite3.connect(db_of(lib))) as db:  # was deleted: no such table
        assert db.execute("SELECT count(*) FROM files").fetchone()[0] == kept


def test_a_damaged_cache_is_still_rebuilt(lib: Path) -> None:
    db_of(lib).parent.mkdir()
    db_of(lib).write_bytes(b"not a database " * 400)
    with pytest.warns(UserWarning, match="unreadable .*rebuilding"):
        same_frames(Library(lib), Library(lib, cache=False))
    with contextlib.closing(sqlite3.connect(db_of(lib))) as db:
        assert db.execute("SELECT count(*) FROM files").fetchone()[0] == 2


@pytest.mark.parametrize("link", ["database", "folder"])
def test_a_cache_linked_out_of_the_library_is_never_written(
    lib: Path, tmp_path: Path, link: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "library.sqlite"
    victim.write_bytes(b"")  # an empty file: sqlite takes it for an empty database
    if link == "database":
        db_of(lib).parent.mkdir()
        db_of(lib).symlink_to(victim)
    else:
        db_of(lib).parent.symlink_to(outside, target_is_directory=True)
    with pytest.warns(UserWarning, match="symbolic link"):
        same_frames(Library(lib), Library(lib, cache=False))
    assert victim.read_bytes() == b""  # was overwritten with the library's database
    assert sorted(p.name for p in outside.iterdir()) == ["library.sqlite"]


def test_a_cache_that_is_not_a_file_is_bypassed(lib: Path) -> None:
    db_of(lib).mkdir(parents=True)
    with pytest.warns(UserWarning, match="not a regular file"):
        same_frames(Library(lib), Library(lib, cache=False))
    assert db_of(lib).is_dir()


def test_the_codec_version_follows_the_parser_and_the_error_wording(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The article is read by the package's own tokenizer and model: an edit to them (or to the
    error wording failures keep) starts the cache again; the Python version counts too."""
    import oo_nb.errors
    import oo_nb.format.html_tokens

    before = digest_codec.code_version()
    monkeypatch.setattr(digest_codec.sys, "version_info", (3, 99, 0))
    assert digest_codec.code_version() != before
    monkeypatch.undo()
    assert digest_codec.code_version() == before
    real = Path.read_bytes
    for module in (oo_nb.errors, oo_nb.format.html_tokens):
        path = Path(module.__file__ or "")

        def edited(self: Path, path: Path = path) -> bytes:
            data = real(self)
            return data + b"# reworded\n" if self.resolve() == path.resolve() else data

        monkeypatch.setattr(Path, "read_bytes", edited)
        assert digest_codec.code_version() != before, module.__name__
        monkeypatch.undo()


def _packed_planted() -> dict[str, bytes]:
    good = json.dumps({"kind": "digest", "nbytes": "pwned"}).encode()
    bomb = zlib.compressobj(9)
    inflates = bomb.compress(b"\x00" * (digest_codec.UNPACK_LIMIT + 1)) + bomb.flush()
    return {
        "garbage": b"\x00\x01not zlib at all",
        "bad-json": zlib.compress(good),
        "not-utf8": zlib.compress(b"\xff\xfe" + good),
        "cut-short": zlib.compress(good)[:-6],
        "bomb": inflates,
    }


@pytest.mark.parametrize("kind", sorted(_packed_planted()))
def test_a_planted_packed_row_is_read_again_from_the_file(
    lib: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large library stores its digests compressed (BLOB rows): a planted BLOB that is not
    zlib, inflates past the limit, or inflates to something encode never wrote is not trusted."""
    monkeypatch.setattr(scan_module, "PACK_FROM", 1)
    monkeypatch.setattr(scan_cache, "RECENT_NS", 0)  # packed rows come from the worker path
    Library(lib, workers=1)
    with contextlib.closing(sqlite3.connect(db_of(lib))) as db:
        (stored,) = db.execute("SELECT payload FROM files WHERE rel = ?", (DOC,)).fetchone()
        assert isinstance(stored, bytes)  # stored packed, as the scan made it
        db.execute("UPDATE files SET payload = ? WHERE rel = ?", (_packed_planted()[kind], DOC))
        db.commit()
    cached, plain = Library(lib, workers=1), Library(lib, cache=False)
    same_frames(cached, plain)
    assert (
        cached.documents.loc[cached.documents.slug == DOC.removesuffix(".o-o.html")].shape[0] == 1
    )


DEEP = "[" * 100_000 + "]" * 100_000  # JSON nested past the recursion limit


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cadence_days", 10**9),  # its due date overflows every staleness sum
        ("cadence_days", 0),
        ("version", 10**40),  # past what a frame's int64 column holds
        ("nbytes", -(10**30)),
        ("cites", [["intro", None, 10**7]]),  # a few bytes that expand to 10**7 citations
        ("cites", [["intro", None, -3]]),
        ("references", [[10**40], [None], ["https://x"]]),
        ("problems", [["oo-manifest", "BlockError", "m", 10**40, None]]),
    ],
)
def test_a_planted_row_out_of_range_is_read_again_from_the_file(
    lib: Path, field: str, value: object
) -> None:
    """Values of the right type that no document gives crashed the frames (OverflowError, a
    date past 9999) or took 1.4 GB to decode; now they are refused like any other planted row."""
    Library(lib)
    plant(lib, field, value)
    cached, plain = Library(lib), Library(lib, cache=False)
    same_frames(cached, plain)


def test_a_planted_as_of_at_the_end_of_time_is_read_again(lib: Path) -> None:
    Library(lib)
    plant(lib, "as_of", "9999-12-31")
    same_frames(Library(lib), Library(lib, cache=False))


def _set_payload(root: Path, view: str, payload: str | bytes) -> None:
    with contextlib.closing(sqlite3.connect(db_of(root))) as db:
        db.execute("UPDATE files SET payload = ? WHERE view = ? AND rel = ?", (payload, view, DOC))
        db.commit()


@pytest.mark.parametrize(
    "payload",
    [
        DEEP,
        zlib.compress(DEEP.encode()),
        '{"kind":"digest"' + " " * (3 << 20) + "}",  # far longer than the file's digest can be
    ],
    ids=["deep-text", "deep-packed", "too-long"],
)
def test_a_planted_row_the_decoder_cannot_take_is_read_again(
    lib: Path, payload: str | bytes
) -> None:
    """JSON nested past the recursion limit raised RecursionError (not a ValueError) and
    crashed `oo library`, `oo audit` and Library(DIR)."""
    Library(lib)
    _set_payload(lib, "digest", payload)
    same_frames(Library(lib), Library(lib, cache=False))


def test_unpack_stops_at_its_limit_and_refuses_a_cut_payload() -> None:
    """Called directly (a scan would read the file again either way): a payload that inflates
    past the limit is refused without being inflated whole, one cut short is refused, not
    returned as the part that inflated, and text over the limit is refused."""
    bomb = zlib.compressobj(9)
    inflates = bomb.compress(b"x" * (1 << 20)) + bomb.flush()
    with pytest.raises(ValueError, match="too large"):
        digest_codec.unpack(inflates, 1 << 16)
    assert len(digest_codec.unpack(inflates, 1 << 20)) == 1 << 20  # exactly the limit: kept
    cut = zlib.compress(b'{"kind":"index"}' * 50)[:-8]
    with pytest.raises(ValueError, match="cut short"):
        digest_codec.unpack(cut)
    assert digest_codec.unpack("x" * 10, 10) == "x" * 10
    with pytest.raises(ValueError, match="too large"):
        digest_codec.unpack("x" * 11, 10)


def test_problems_without_a_line_and_at_line_zero_round_trip() -> None:
    from oo_nb.library.digest import Digest, Problem

    d = Digest(path="x", slug="x", nbytes=1, layout="early")
    d.problems = [Problem("article", "FormatError", "none", None), Problem("b", "E", "m", 0, 0)]
    assert digest_codec.decode(digest_codec.encode(d), "x", "x") == d
    raw = json.loads(digest_codec.encode(d))
    raw["problems"][1][3] = -1  # a planted line
    with pytest.raises(ValueError):
        digest_codec.decode(json.dumps(raw), "x", "x")


def test_markup_findings_round_trip_and_a_planted_code_is_refused() -> None:
    from oo_nb.library.digest import Digest

    d = Digest(path="x", slug="x", nbytes=1, layout="early")
    d.markup = [
        ("unmodelled-markup", "line 3: <style> inside <svg>: ..."),
        ("unlinked-reference", "line 9"),
    ]
    assert digest_codec.decode(digest_codec.encode(d), "x", "x") == d
    raw = json.loads(digest_codec.encode(d))
    raw["markup"][0][1] = "overdue"  # a code the audit would grade otherwise (or not know)
    with pytest.raises(ValueError):
        digest_codec.decode(json.dumps(raw), "x", "x")


def test_packed_bytes_followed_by_other_bytes_are_refused() -> None:
    packed = zlib.compress(b'{"kind":"index"}')
    assert digest_codec.unpack(packed) == '{"kind":"index"}'
    with pytest.raises(ValueError, match="followed by other bytes"):
        digest_codec.unpack(packed + b"junk")


@pytest.mark.parametrize(
    "change",
    [
        {"cadence_days": 10**9},
        {"cadence_days": -1},
        {"as_of": "9999-12-31"},
        {"version": 10**40},
        {"mtime": 1e400},
        "deep",
    ],
    ids=["cadence-huge", "cadence-negative", "as-of-max", "version-huge", "mtime-inf", "deep"],
)
def test_a_planted_index_row_out_of_range_is_read_again(
    lib: Path, change: dict[str, object] | str
) -> None:
    """`oo index` and update-all (which asks the index rows which documents are fresh) crashed
    on these rows."""
    from oo_nb.library import index_data

    plain = index_data.scan(lib, cache=False)
    index_data.scan(lib)
    with contextlib.closing(sqlite3.connect(db_of(lib))) as db:
        (text,) = db.execute(
            "SELECT payload FROM files WHERE view = 'index-entry' AND rel = ?", (DOC,)
        ).fetchone()
        raw = json.loads(text)
        planted = DEEP if change == "deep" else json.dumps({**raw, **change})  # type: ignore[dict-item]
        db.execute(
            "UPDATE files SET payload = ? WHERE view = 'index-entry' AND rel = ?", (planted, DOC)
        )
        db.commit()
    assert index_data.scan(lib) == plain
