"""A contract edit that would write a control, bidi or zero-width character (ESC, BEL, U+202E)
is refused naming the field and the character, by the rule ``oo check`` reports them with
(``unsafe-text``): the editor never writes what check then calls unsafe."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.edit.contract import Edit, apply_edits
from oo_nb.edit.contract_cells import apply_contract_body
from oo_nb.errors import ValidationError
from oo_nb.format.check import check_path


@pytest.fixture
def doc(corpus_copy: Path) -> Path:
    return corpus_copy / "agi-declared.o-o.html"


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("audience", "x\x1b[31my", "\\u001b"),
        ("tone", "calm\u0007", "\\u0007"),
        ("subject", "Heat \u202epumps", "\\u202e"),
    ],
)
def test_a_set_holding_an_unsafe_character_is_refused(
    doc: Path, key: str, value: str, shown: str
) -> None:
    before = doc.read_bytes()
    with pytest.raises(ValidationError, match=rf"{key}.*\{shown}") as caught:
        apply_edits(doc, [Edit("set", key, value)])
    assert caught.value.key is not None and caught.value.key.endswith(key)
    assert doc.read_bytes() == before


def test_a_contract_cell_holding_one_is_refused_whole(doc: Path) -> None:
    before = doc.read_bytes()
    with pytest.raises(ValidationError, match=r"scope.*\\u001b"):
        apply_contract_body(doc, "tone: calm\nscope: a\x1b[2Jb")
    assert doc.read_bytes() == before


def test_a_field_that_already_held_one_does_not_block_other_edits(doc: Path) -> None:
    apply_edits(doc, [Edit("set", "tone", "calm")])
    text = doc.read_text(encoding="utf-8").replace('"tone": "calm"', '"tone": "calm\\u0007"')
    doc.write_text(text, encoding="utf-8")
    apply_edits(doc, [Edit("set", "audience", "engineers")])  # the audit reports the old one
    assert "engineers" in doc.read_text(encoding="utf-8")


def test_what_the_editor_writes_check_finds_safe(doc: Path) -> None:
    apply_edits(doc, [Edit("set", "tone", "calm, plain")])
    assert not [f for f in check_path(doc) if f.code == "unsafe-text"]
