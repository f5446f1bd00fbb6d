"""``Library.changes`` and ``oo changes``: rows built from the history the store keeps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

from oo_nb.cli.main import main
from oo_nb.library.changes import COLUMNS
from oo_nb.library.library import Library
from oo_nb.store.history import read_history
from tests.support.magic_helpers import oo
from tests.support.watched import watched_library

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell


@pytest.fixture
def lib_dir(tmp_path: Path) -> Path:
    watched_library(tmp_path / "lib")
    return tmp_path / "lib"


def test_columns_and_dtypes_are_the_documented_ones(lib_dir: Path) -> None:
    frame = Library(lib_dir).changes()
    assert list(frame.columns) == list(COLUMNS)
    assert {c: str(t) for c, t in frame.dtypes.items()} == COLUMNS


def test_sentinel_flip_fact_source_and_section_each_a_row(lib_dir: Path) -> None:
    frame = Library(lib_dir).changes()
    v2 = frame[frame.version == 2]
    got = set(zip(v2.kind, v2.change, v2.item, strict=True))
    assert got == {
        ("sentinel", "changed", "status"),
        ("fact", "changed", "lamp"),
        ("source", "added", "https://example.org/2"),
        ("section", "changed", "status"),
    }
    flip = v2[v2.kind == "sentinel"].iloc[0]
    assert (flip.before, flip.after) == ("not_occurred", "occurred")
    assert flip.evidence == "Relit on 1 December [s2]."
    assert flip.sources == "https://example.org/2"  # the evidence's [s2], resolved
    assert flip.date == pd.Timestamp("2026-12-02")
    fact = v2[v2.kind == "fact"].iloc[0]
    assert (fact.before, fact.after) == ("lamp: broken", "lamp: repaired")
    # the first update added what the stub did not have
    v1 = frame[frame.version == 1]
    assert ("fact", "added", "lamp") in set(zip(v1.kind, v1.change, v1.item, strict=True))


def test_since_keeps_later_rows_only(lib_dir: Path) -> None:
    lib = Library(lib_dir)
    assert set(lib.changes(since="2026-12-01").version) == {2}
    assert len(lib.changes(since="2026-12-03")) == 0
    assert len(lib.changes()) > len(lib.changes(since="2026-12-01"))


def test_a_damaged_snapshot_is_stepped_over_not_invented(lib_dir: Path) -> None:
    path = lib_dir / "lighthouse.o-o.html"
    entries = read_history(path)
    v1 = next(e for e in entries if e.version == 1)
    assert v1.snapshot is not None
    v1.snapshot.write_bytes(b"damaged")
    frame = Library(lib_dir).changes()
    # v0 is compared with v2 directly: the sentinel flip is still seen, once
    assert (frame.kind == "sentinel").sum() == 1
    assert set(frame.version) == {2}


def test_no_history_means_no_rows(tmp_path: Path) -> None:
    frame = Library(tmp_path).changes()
    assert frame.empty and list(frame.columns) == list(COLUMNS)


def test_cli_table_json_and_kind(lib_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["changes", str(lib_dir), "--since", "2026-12-01", "--kind", "sentinel"]) == 0
    out = capsys.readouterr().out
    assert "occurred" in out and "lamp" not in out
    assert main(["changes", str(lib_dir), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["kind"] for r in rows} == {"fact", "source", "section", "sentinel"}


def test_cli_bad_date_is_a_usage_error(lib_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["changes", str(lib_dir), "--since", "yesterday"])
    assert "not a date" in capsys.readouterr().err


def test_magic_returns_the_frame(lib_dir: Path, shell: InteractiveShell) -> None:
    frame = oo(shell, f'changes "{lib_dir}" --since 2026-12-01 --kind sentinel')
    assert isinstance(frame, pd.DataFrame) and list(frame["after"]) == ["occurred"]


def test_an_original_sentinel_reported_occurred_is_a_change_and_an_alert(tmp_path: Path) -> None:
    """o-o's own sentinels keep the status in the changelog's reports (the contract holds free
    text): an accepted "occurred" must reach the changes and the alerts as it reaches `oo show`
    (the outside attack of round four: `oo show` said occurred, `oo changes` nothing)."""
    from oo_nb.alerts.events import sentinel_events
    from oo_nb.format.document import Document
    from oo_nb.store.store import write_document

    corpus = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
    path = tmp_path / "agi.o-o.html"
    write_document(
        Document.parse((corpus / "agi-declared.o-o.html").read_bytes()),
        expected=None,
        path=path,
        action="new",
    )
    doc = Document.read(path)
    report = {"status": "occurred", "evidence": "Lab X declared AGI [s3]."}
    entry = {"version": 3, "timestamp": "2026-12-02", "summary": "Declared.", "sentinel": report}

    def add_entry(log: dict[str, object]) -> None:
        entries = log["entries"]
        assert isinstance(entries, list)
        entries.append(entry)

    write_document(doc.edit_block("oo-changelog", add_entry), expected=path.read_bytes(), path=path)
    rows = Library(tmp_path).changes(since="2026-01-01")
    flips = rows[rows.kind == "sentinel"]
    assert list(zip(flips.before, flips.after, strict=True)) == [("not_occurred", "occurred")]
    assert flips.iloc[0].evidence == "Lab X declared AGI [s3]."
    events = sentinel_events([(path, "agi.o-o.html")])
    assert [e.kind for e in events] == ["sentinel"]
