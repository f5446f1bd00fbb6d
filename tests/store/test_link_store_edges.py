"""Link results at their edges (issue 28: found wanting by mutation testing): where the file is,
a file from before rows were sealed, a row dated as far ahead as a clock may differ, a long error
text, and the warning when the results cannot be kept."""

from __future__ import annotations

import os
import sqlite3
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from oo_nb.store.link_store import LinkRow, links_path, read_links, write_links
from oo_nb.store.scan_cache import CacheWarning, cache_path

URL = "https://a.example/1"
NOW = datetime(2100, 1, 1, tzinfo=UTC)  # ahead of the real clock: the test's own is the latest


def _row(checked: datetime = NOW, error: str | None = None) -> LinkRow:
    return LinkRow(URL, 404, URL, True, "dead", False, error, checked.isoformat())


def test_the_results_sit_beside_the_library_cache(tmp_path: Path) -> None:
    write_links(tmp_path, [_row()])
    assert links_path(tmp_path) == cache_path(tmp_path).parent / "links.sqlite"
    assert links_path(tmp_path).is_file()


def test_a_file_from_before_rows_were_sealed_is_read_unsealed_and_written_again(
    tmp_path: Path,
) -> None:
    path = links_path(tmp_path)
    path.parent.mkdir()
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE links (url TEXT PRIMARY KEY, status INTEGER, final_url TEXT,"
            " dead INTEGER NOT NULL, link_status TEXT NOT NULL, permanent INTEGER NOT NULL,"
            " error TEXT, checked_at TEXT NOT NULL)"
        )
        db.execute(
            "INSERT INTO links VALUES (?, 404, ?, 1, 'dead', 0, NULL, ?)",
            (URL, URL, NOW.isoformat()),
        )
    db.close()
    assert read_links(tmp_path, now=NOW) == {URL: _row()}
    assert read_links(tmp_path, now=NOW, own_only=True) == {}  # never sealed: not our own
    write_links(tmp_path, [_row()])
    assert read_links(tmp_path, now=NOW, own_only=True) == {URL: _row()}


def test_a_row_up_to_a_day_ahead_is_read_and_one_beyond_is_not(tmp_path: Path) -> None:
    write_links(tmp_path, [_row(NOW + timedelta(days=1))])
    assert list(read_links(tmp_path, now=NOW)) == [URL]
    write_links(tmp_path, [_row(NOW + timedelta(days=1, seconds=1))])
    with pytest.warns(CacheWarning, match="1 row"):
        assert read_links(tmp_path, now=NOW) == {}


def test_a_long_error_text_is_cut_to_500_characters(tmp_path: Path) -> None:
    error = "connection reset; " * 40
    write_links(tmp_path, [_row(error=error)])
    assert read_links(tmp_path, now=NOW)[URL].error == error[:499] + "…"


def test_results_that_cannot_be_kept_say_so(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "lib").mkdir()
    os.symlink(elsewhere, tmp_path / "lib" / ".oo-cache")
    with pytest.warns(CacheWarning, match="link results not kept: .*symbolic link"):
        write_links(tmp_path / "lib", [_row()])
    assert not (elsewhere / "links.sqlite").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_links(tmp_path, [_row()])  # a plain folder: no warning
