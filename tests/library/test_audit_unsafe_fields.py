"""Control and bidi characters in the JSON blocks' strings (issue 26, left from the s34 attack):
the audit reports them as ``oo check`` does, naming the block and the field, from a cold scan
and from the cache; ``oo check`` covers the source cache too (source titles, facts)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from oo_nb.format.check import check_path
from oo_nb.library.library import Library
from tests.support.tiny_docs import page, source

# (block, field, the character written there): one of each kind of string a reader meets
PLANTED = [
    ("oo-manifest", "title", "\u202e"),
    ("oo-source-cache", "sources[1].title", "\u2066"),
    ("oo-source-cache", "facts[0]", "\x1b"),
    ("oo-changelog", "entries[0].summary", "\u200b"),
]


def _planted(folder: Path) -> Path:
    titled = source(2, title="Report \u2066two")
    doc = page(
        [("00000001", "One [s1] [s2].")],
        [source(1), titled],
        facts=["Tides rose \x1b[2J [s1]"],
        entry={"summary": "First\u200b look."},
    )
    doc = doc.edit_block("oo-manifest", lambda m: m.update(title="Tides \u202ereport"))
    path = folder / "tides.o-o.html"
    path.write_text(doc.text, "utf-8")
    clean = page([("00000001", "One [s1].")], [source(1)])
    (folder / "clean.o-o.html").write_text(clean.text, "utf-8")
    return path


def _rows(folder: Path) -> pd.DataFrame:
    found = Library(folder, today=date(2026, 1, 2), workers=1).audit(all=True)
    return found[found["code"] == "unsafe-text"]


def _expected(block: str, field: str, char: str) -> str:
    return f"{block} {field}: control or bidi character(s) \\u{ord(char):04x}"


@pytest.mark.parametrize("cached", [False, True])
def test_the_audit_names_the_block_and_field_of_each(tmp_path: Path, cached: bool) -> None:
    _planted(tmp_path)
    if cached:
        _rows(tmp_path)  # (the first scan writes the cache the second reads)
    rows = _rows(tmp_path)
    assert set(rows["doc"]) == {"tides"}
    rows = rows[rows["where"] != "article"]  # (the References entry shows the title too)
    got = sorted(zip(rows["where"], rows["message"], strict=True))
    assert [where for where, _ in got] == sorted(block for block, _, _ in PLANTED)
    for block, field, char in PLANTED:
        assert any(m.startswith(_expected(block, field, char)) for _, m in got), (block, field)


def test_check_reports_the_same_fields(tmp_path: Path) -> None:
    path = _planted(tmp_path)
    checked = sorted(f.message for f in check_path(path) if f.code == "unsafe-text")
    audited = sorted(_rows(tmp_path)["message"])
    assert checked == audited and len(checked) == len(PLANTED) + 1  # (+ the References line)


def test_an_escape_in_the_json_text_is_the_character_it_stands_for(tmp_path: Path) -> None:
    doc = page([("00000001", "One.")])
    path = tmp_path / "tides.o-o.html"
    text = doc.text.replace('"title": "Tides"', '"title": "Tides \\u202e"', 1)
    assert text != doc.text
    path.write_text(text, "utf-8")
    rows = _rows(tmp_path)
    assert list(rows["where"]) == ["oo-manifest"]
    assert rows["message"].iloc[0].startswith(_expected("oo-manifest", "title", "\u202e"))
