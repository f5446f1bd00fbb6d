"""Which stored link rows are read (``store/link_store``): a results file reached through a link
or sharing its bytes with another file is not opened; a row is read only with a status of 100
to 599, 0/1 flags, and each row not as ``oo links`` writes it counted in the warning."""

from __future__ import annotations

import os
import sqlite3
import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest

from oo_nb.store import clock
from oo_nb.store.link_store import LinkRow, links_path, read_links, write_links
from oo_nb.store.scan_cache import CacheWarning

URL = "https://a.example/1"


def _row(url: str = URL, status: int | None = 404) -> LinkRow:
    return LinkRow(url, status, url, True, "dead", False, None, clock.now().isoformat())


def test_a_results_file_reached_through_a_link_is_not_read(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    write_links(real, [_row()])
    lib = tmp_path / "lib"
    links_path(lib).parent.mkdir(parents=True)
    os.symlink(links_path(real), links_path(lib))
    with pytest.warns(CacheWarning, match="link results not read"):
        assert read_links(lib) == {}
    os.unlink(links_path(lib))
    os.link(links_path(real), links_path(lib))  # a hard link: same bytes, two names
    with pytest.warns(CacheWarning, match="link results not read"):
        assert read_links(lib) == {}


def _planted(folder: Path, rows: Sequence[tuple[object, ...]]) -> None:
    db = sqlite3.connect(links_path(folder))
    with db:
        for row in rows:
            db.execute("INSERT INTO links VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)", row)
    db.close()


def test_only_rows_as_oo_links_writes_them_are_read(tmp_path: Path) -> None:
    write_links(tmp_path, [_row("https://a.example/0")])
    now = clock.now().isoformat()
    good = [(f"https://ok.example/{s}", s, None, 1, "dead", 0, None, now) for s in (100, 599)]
    bad = [
        ("https://bad.example/99", 99, None, 1, "dead", 0, None, now),
        ("https://bad.example/600", 600, None, 1, "dead", 0, None, now),
        ("https://bad.example/flag", 404, None, 2, "dead", 0, None, now),
        ("https://bad.example/text", 404, None, 1, "dead", "yes", None, now),
    ]
    _planted(tmp_path, [*good, *bad])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = read_links(tmp_path)
    assert set(rows) == {"https://a.example/0", "https://ok.example/100", "https://ok.example/599"}
    assert rows["https://ok.example/100"].dead is True
    assert rows["https://ok.example/100"].permanent is False
    assert [str(w.message) for w in caught if issubclass(w.category, CacheWarning)] == [
        f"link results {links_path(tmp_path)}: 4 row(s) not as oo links writes them were "
        "ignored (checked again)"
    ]
