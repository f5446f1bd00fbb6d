"""Text no UTF-8 file can hold (lone surrogates): refused where a block is decoded, with its file,
block, line and column, so ``oo check`` and every reader say the same; and the helpers that
show or replace such text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oo_nb.errors import BlockError
from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from oo_nb.format.jsonblock import parse_block, too_deep
from oo_nb.format.surrogates import encodable, escaped, replaced, scrub
from tests.conftest import CORPUS
from tests.support.bad_text import deep_list, plant_lone_surrogate


@pytest.mark.parametrize(
    ("value", "column"),
    [
        ('"\\ud800"', 13),  # a high half alone
        ('"\\udc00"', 13),  # a low half alone
        ('"ab\\uD800\\u0041"', 15),  # a high half followed by something else
        ('"\\ude00\\ud83d"', 13),  # the halves in the wrong order
        ('"ok \\\\\\udbff"', 18),  # after an escaped backslash
    ],
)
def test_a_lone_surrogate_escape_is_refused_with_its_line_and_column(
    value: str, column: int
) -> None:
    text = '{\n  "a": 1,\n  "title": ' + value + "\n}"
    with pytest.raises(BlockError, match="lone surrogate") as err:
        parse_block(text, block="oo-manifest", file="doc.o-o.html", first_line=10)
    assert (err.value.file, err.value.block, err.value.line) == ("doc.o-o.html", "oo-manifest", 12)
    assert err.value.column == column
    assert str(err.value).startswith("doc.o-o.html: block oo-manifest, line 12, column")


def test_a_lone_surrogate_in_a_key_and_on_the_first_line_is_located() -> None:
    with pytest.raises(BlockError) as err:
        parse_block('{"\\udfff": 1}', block="oo-contract", first_line=7, first_column=30)
    assert (err.value.line, err.value.column) == (7, 32)


@pytest.mark.parametrize(
    "value",
    [
        '"\\ud83d\\ude00"',  # a proper pair: one emoji
        '"\\\\ud800"',  # an escaped backslash, then the letters "ud800"
        '"\\u00e9 caf\\u00e9"',
        '"plain"',
    ],
)
def test_proper_pairs_and_look_alikes_are_read(value: str) -> None:
    text = '{"title": ' + value + "}"
    assert parse_block(text, block="oo-manifest") == json.loads(text)


def test_a_raw_surrogate_in_text_built_in_memory_is_refused() -> None:
    with pytest.raises(BlockError, match=r"\\ud800 is a lone surrogate") as err:
        parse_block('{"title": "a\ud800b"}', block="oo-manifest")
    assert err.value.column == 13


def test_every_view_and_check_report_the_same_error(tmp_path: Path) -> None:
    """``oo check`` said "valid" while every reader crashed: now check reports the error the
    views raise, with the same line and column."""
    for block in ("oo-manifest", "oo-contract", "oo-source-cache", "oo-changelog"):
        data, line, column = plant_lone_surrogate(
            (CORPUS / "agi-declared.o-o.html").read_bytes(), block
        )
        path = tmp_path / f"{block}.o-o.html"
        path.write_bytes(data)
        doc = Document.read(path)
        with pytest.raises(BlockError) as err:
            doc.block_json(block)
        assert (err.value.file, err.value.block) == (str(path), block)
        assert (err.value.line, err.value.column) == (line, column)
        found = [f for f in check_path(path) if f.severity == "error"]
        assert [f.code for f in found] == ["invalid-json"], found
        assert found[0].message == str(err.value).removeprefix(f"{path}: ")


def test_helpers_show_and_replace_lone_surrogates() -> None:
    bad = "caf\udce9 \ud800!"  # a surrogate escape (byte 0xe9) and a lone high half
    assert not encodable(bad) and encodable("café") and encodable("\U0001f600")
    assert escaped(bad) == "caf\\xe9 \\ud800!"
    assert replaced(bad) == "caf\ufffd \ufffd!"
    assert replaced("fine") == "fine"


def test_scrub_replaces_in_every_string_and_names_each() -> None:
    value = {
        "summary": "ok",
        "sections": [{"id": "a", "html": "<p>\ud800</p>"}, {"id": "b", "html": "fine"}],
        "k\udcff": ["x", "\udc80"],
    }
    clean, changed = scrub(value)
    assert clean["sections"][0]["html"] == "<p>\ufffd</p>"
    assert clean["k\ufffd"] == ["x", "\ufffd"]
    assert sorted(changed) == ["k\ufffd (key)", "k\ufffd[1]", "sections[0].html"]
    assert value["sections"][0]["html"] == "<p>\ud800</p>"  # the input is not changed
    same = {"a": ["b"]}
    assert scrub(same) == (same, []) and scrub(same)[0] is same
    assert scrub(deep_list(5000, "\ud800"))[1] == ["[0][0][0]" + "[0]" * 4997]  # iterative


def test_too_deep_names_the_path() -> None:
    value = {"sources": [{"title": deep_list(400)}]}
    assert too_deep(value, 32) == "sources[0].title[0][0][0]…"
    assert too_deep(value, 500) is None
    assert too_deep({"a": [1, {"b": 2}]}, 3) is None and too_deep({"a": [[1]]}, 2) == "a[0]"
