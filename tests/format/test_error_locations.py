"""Every error names where it happened, in one form the user reads and editors jump to:
``FILE: block B, line L, column C, key 'K': message`` with the unknown parts left out."""

from __future__ import annotations

from oo_nb.errors import BlockError, FormatError, OOError, ValidationError


def test_all_parts_in_order() -> None:
    err = ValidationError(
        "must be an integer",
        file="doc.o-o.html",
        block="oo-manifest",
        line=12,
        column=5,
        key="version",
    )
    assert str(err) == (
        "doc.o-o.html: block oo-manifest, line 12, column 5, key 'version': must be an integer"
    )
    assert (err.file, err.block, err.line, err.column, err.key) == (
        "doc.o-o.html", "oo-manifest", 12, 5, "version",
    )  # fmt: skip
    assert err.message == "must be an integer"


def test_unknown_parts_are_left_out_and_zero_is_a_place() -> None:
    assert str(OOError("m")) == "m"
    assert str(OOError("m", file="f.html")) == "f.html: m"
    assert str(OOError("m", line=0, column=0)) == "line 0, column 0: m"
    assert str(BlockError("m", block="oo-source-cache")) == "block oo-source-cache: m"
    assert str(OOError("m", key="title")) == "key 'title': m"
    assert str(FormatError("m", file="f.html", column=3)) == "f.html: column 3: m"


def test_a_file_is_filled_in_once_and_never_replaced() -> None:
    err = OOError("m", line=2)
    assert err.with_file("a.html") is err
    assert str(err) == "a.html: line 2: m" and err.file == "a.html"
    err.with_file("b.html")
    assert str(err) == "a.html: line 2: m" and err.file == "a.html"
