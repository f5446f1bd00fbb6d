"""Reading and appending the history log (``.oo-history/<name>/log.jsonl``): a damaged row is a
clear error naming the log, the line and the field (never a traceback, never a path out of the
history folder); a row cut off by a killed writer is dropped or completed; rows written by an
older version (fewer fields) still read; times are UTC; a missing or damaged snapshot names its
seq and its file."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from oo_nb.errors import FormatError, NotFound, OOError
from oo_nb.format.document import Document
from oo_nb.store import history, store

DOC = "yc-w26-batch.o-o.html"


def _bump(p: Path, version: int, summary: str = "s") -> bytes:
    doc = Document.read(p).edit_block("oo-manifest", lambda m: m.update(version=version))
    doc = doc.edit_block(
        "oo-changelog",
        lambda c: c["entries"].append(
            {"version": version, "timestamp": "2026-11-29", "summary": summary}
        ),
    )
    store.write_document(doc, expected=p.read_bytes(), action=f"v{version}")
    return p.read_bytes()


def _log(p: Path) -> Path:
    return store.history_dir(p) / "log.jsonl"


def _rows(p: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _log(p).read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def doc(corpus_copy: Path) -> Path:
    """A document with one history row (its version 1, replaced by version 2)."""
    p = corpus_copy / DOC
    _bump(p, 2)
    return p


GOOD = {"seq": 1, "file": "00001-v1.snap", "sha256": "0" * 64}


@pytest.mark.parametrize(
    ("row", "field"),
    [
        (["a", "list"], "not an object"),
        ({**GOOD, "file": ""}, "'file'"),
        ({**GOOD, "file": ".."}, "'file'"),
        ({**GOOD, "file": "../../secret.txt"}, "'file'"),
        ({**GOOD, "file": "/etc/passwd"}, "'file'"),
        ({**GOOD, "file": 7}, "'file'"),
        ({**GOOD, "seq": "1"}, "'seq'"),
        ({**GOOD, "seq": True}, "'seq'"),
        ({k: v for k, v in GOOD.items() if k != "sha256"}, "'sha256'"),
        ({**GOOD, "version": "2"}, "'version'"),
        ({**GOOD, "version": True}, "'version'"),
        ({**GOOD, "version": 1.5}, "'version'"),
        ({**GOOD, "cost_usd": "0.10"}, "'cost_usd'"),
        ({**GOOD, "cost_usd": False}, "'cost_usd'"),
        ({**GOOD, "summary": 5}, "as_of, summary, saved_at, action must be strings"),
        ({**GOOD, "action": None}, "as_of, summary, saved_at, action must be strings"),
    ],
)
def test_a_damaged_log_row_names_the_log_the_line_and_the_field(
    doc: Path, row: Any, field: str
) -> None:
    log = _log(doc)
    with open(log, "a", encoding="utf-8") as fh:
        fh.write("\n" + json.dumps(row) + "\n")  # line 3: a blank line 2 is skipped
    with pytest.raises(FormatError, match="history log line is damaged") as info:
        store.read_history(doc)
    assert (info.value.file, info.value.line) == (str(log), 3)
    assert field in info.value.message
    with pytest.raises(FormatError):  # and nothing is written on top of a damaged log
        _bump(doc, 3)


def test_a_log_line_that_is_not_json_or_not_utf8_is_named(doc: Path) -> None:
    log = _log(doc)
    with open(log, "ab") as fh:
        fh.write(b"{oops\n")
    with pytest.raises(FormatError, match="not JSON") as info:
        store.read_history(doc)
    assert (info.value.file, info.value.line) == (str(log), 2)
    log.write_bytes(b"\xff\n")
    with pytest.raises(FormatError, match="not valid UTF-8") as info:
        store.read_history(doc)
    assert info.value.file == str(log)


def test_a_complete_last_row_without_its_newline_is_kept_and_completed(doc: Path) -> None:
    """A writer killed between the row and its newline: the row counts, and the next write
    appends after it instead of gluing two rows into one line."""
    log = _log(doc)
    v2 = doc.read_bytes()
    row = {**_rows(doc)[0], "seq": 2, "file": "00002-v2.snap", "sha256": history.sha256_hex(v2)}
    snapshots = store.history_dir(doc) / "snapshots"
    (snapshots / "00002-v2.snap").write_bytes(v2)
    with open(log, "ab") as fh:
        fh.write(json.dumps(row).encode())
    assert [e.seq for e in store.read_history(doc)] == [1, 2, 3]
    _bump(doc, 3)
    assert [r["seq"] for r in _rows(doc)] == [1, 2, 3]
    assert log.read_bytes().endswith(b"\n")
    assert store.seq_bytes(doc, 2) == v2


def test_a_torn_row_that_is_not_a_valid_row_is_dropped(doc: Path) -> None:
    for torn in (b'{"seq": 2, "file": "../x", "sha256": "a"}', b"[1, 2]"):
        log = _log(doc)
        body = log.read_bytes()
        log.write_bytes(body + torn)
        assert [e.seq for e in store.read_history(doc)] == [1, 2]
        log.write_bytes(body)


SUMMARY = "Z\u00fcrich \u2014 na\u00efve \u6771\u4eac"

LOCALE_WRITER = f"""
import sys
from pathlib import Path
from oo_nb.format.document import Document
from oo_nb.store import store
p = Path(sys.argv[1])
for v in (3, 4):
    doc = Document.read(p).edit_block("oo-manifest", lambda m: m.update(version=v))
    doc = doc.edit_block("oo-changelog", lambda c: c["entries"].append(
        {{"version": v, "timestamp": "2026-11-29", "summary": {SUMMARY!a}}}))
    store.write_document(doc, expected=p.read_bytes(), action="locale test")
print([e.summary for e in store.read_history(p)][1:3] == [{SUMMARY!a}] * 2)
"""


def test_the_log_is_utf8_whatever_the_locale(corpus_copy: Path) -> None:
    """The reader requires UTF-8; a writer in an ASCII (or Latin-1) locale must not write the
    log in its own encoding (or fail on a non-ASCII summary)."""
    p = corpus_copy / DOC
    _bump(p, 2, SUMMARY)  # this process (a UTF-8 locale) writes first
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    out = subprocess.run(
        [sys.executable, "-c", LOCALE_WRITER, str(p)],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "True"
    assert [e.summary for e in store.read_history(p)][1:4] == [SUMMARY] * 3


def test_rows_of_an_older_version_with_only_the_required_fields_still_read(doc: Path) -> None:
    snap = store.read_history(doc)[0].snapshot
    assert snap is not None
    minimal = {"seq": 1, "file": snap.name, "sha256": history.sha256_hex(snap.read_bytes())}
    _log(doc).write_text(json.dumps(minimal) + "\n", encoding="utf-8")
    first = store.read_history(doc)[0]
    assert (first.version, first.as_of, first.summary, first.cost_usd) == (None, "", "", None)
    assert (first.saved_at, first.action) == ("", "")
    assert first.sha256 == minimal["sha256"] and first.snapshot == snap
    assert store.seq_bytes(doc, 1) == snap.read_bytes()


def test_history_entries_carry_what_the_log_recorded(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    v1 = p.read_bytes()
    _bump(p, 2)
    row = _rows(p)[0]
    row.update(cost_usd=0.5, as_of="2026-01-02", summary="first")
    _log(p).write_text(json.dumps(row) + "\n", encoding="utf-8")
    first, current = store.read_history(p)
    assert (first.seq, first.version, first.cost_usd) == (1, 1, 0.5)
    assert (first.as_of, first.summary, first.action) == ("2026-01-02", "first", "v2")
    assert first.sha256 == history.sha256_hex(v1)
    assert current.as_of == Document.read(p).manifest.as_of.isoformat()  # type: ignore[union-attr]


def test_times_in_history_are_utc(doc: Path) -> None:
    now = datetime.now(UTC)
    first, current = store.read_history(doc)
    saved = datetime.fromisoformat(first.saved_at)
    assert saved.utcoffset() == timedelta(0) and abs(now - saved) < timedelta(minutes=5)
    mtime = datetime.fromisoformat(current.saved_at)
    assert mtime.utcoffset() == timedelta(0)
    assert abs(mtime.timestamp() - os.stat(doc).st_mtime) < 1


def test_the_first_snapshot_creates_the_history_folder(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    data = p.read_bytes()
    history.record_snapshot(p, data, "manual")
    (entry, _) = store.read_history(p)
    assert (entry.seq, entry.version, entry.action) == (1, 1, "manual")
    assert entry.snapshot is not None and entry.snapshot.read_bytes() == data
    assert stat.S_IMODE(p.stat().st_mode) == 0o755
    assert stat.S_IMODE(entry.snapshot.stat().st_mode) == 0o644  # a kept copy, not a script to run


def test_a_missing_snapshot_names_its_seq_and_file(doc: Path) -> None:
    snap = store.read_history(doc)[0].snapshot
    assert snap is not None
    snap.unlink()
    with pytest.raises(FormatError, match=r"seq 1 \(version 1\) is missing") as info:
        store.seq_bytes(doc, 1)
    assert info.value.file == str(snap)


def test_a_damaged_snapshot_of_an_index_page_names_it_without_a_version(
    corpus_copy: Path,
) -> None:
    p = corpus_copy / "index.o-o.html"
    before = p.read_bytes()
    page = Document.parse(before.replace(b"2026-02-17 00:05", b"2026-03-01 09:30"), path=p)
    store.write_document(page, expected=before, action="oo index")
    snap = store.read_history(p)[0].snapshot
    assert snap is not None
    snap.write_bytes(b"tampered")
    with pytest.raises(FormatError, match=r"seq 1 \(version -\) is damaged") as info:
        store.rollback(p, seq=1)
    assert info.value.file == str(snap)
    with pytest.raises(NotFound, match=r"no version 1 in history \(known: none\)") as nf:
        store.rollback(p, 1)
    assert nf.value.file == str(p)


def test_a_changed_current_file_is_named_when_its_checksum_fails(doc: Path) -> None:
    entries = store.read_history(doc)
    doc.write_bytes(doc.read_bytes() + b"\n")  # changed after the history was read
    with pytest.raises(FormatError, match=r"seq 2 \(version 2\) is damaged") as info:
        history.pick_from(doc, entries, version=None, seq=2, avoid=None)
    assert info.value.file == str(doc)


def test_seq_errors_name_the_file_and_the_range(doc: Path, tmp_path: Path) -> None:
    _bump(doc, 3)
    with pytest.raises(NotFound, match=r"no seq 7 in history \(seqs 1-3;") as info:
        store.seq_bytes(doc, 7)
    assert info.value.file == str(doc)
    missing = tmp_path / "gone.o-o.html"
    with pytest.raises(NotFound, match=r"no seq 1 in history \(no history;"):
        store.seq_bytes(missing, 1)
    with pytest.raises(OOError, match="exactly one of a version or a seq") as both:
        store.pick_entry(doc, version=1, seq=1)
    assert both.value.file == str(doc)
    assert store.pick_entry(doc, seq=1).others == ()
