"""The unsafe-text quick test reads UTF-8 bytes: it finds what ``vocab.UNSAFE_CHARS`` finds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oo_nb.format import unsafe_text
from oo_nb.format.unsafe_text import _holds_one, _may_hold_one
from oo_nb.format.vocab import UNSAFE_CHARS

EVERY_UNSAFE = [chr(c) for c in range(0x10000) if UNSAFE_CHARS.match(chr(c))]
# characters whose UTF-8 starts as an unsafe one's does, and others around them
NEAR = [*"—–…‘’“”•€™ §©\xa0", "\u2020", "\u2065", "\u206a", "\u2070", "\u0600", "\u061b",
        "\u061d", "\u0640", "\ufefe", "\uff01", "\u200a", "\u2027", "\u202f", "😀", "é", "\ud800",
        "\r", "\t", "\n", "a", "<", "&"]  # fmt: skip


def by_class(text: str) -> bool:
    return any(m.group() != "\r" for m in UNSAFE_CHARS.finditer(text))


@pytest.mark.parametrize("char", [c for c in EVERY_UNSAFE if c != "\r"])
def test_every_unsafe_character_is_found_among_others(char: str) -> None:
    assert _holds_one(f"a—b{char}c—")
    assert _holds_one(char)


def test_carriage_returns_and_characters_near_them_are_not_found() -> None:
    assert not _holds_one("".join(NEAR))
    assert not _holds_one("line\r\nline — \u2020\u2065\u2070")


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(NEAR + EVERY_UNSAFE), max_size=30).map("".join))
def test_the_bytes_say_what_the_character_class_says(text: str) -> None:
    assert _holds_one(text) == by_class(text)


def test_many_candidate_bytes_are_read_by_the_character_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    arabic = "\u0628\u0627\u0628" * 200  # each letter's first byte is that of U+061C
    assert not _holds_one(arabic)
    assert _holds_one(arabic + "\u061c")
    monkeypatch.setattr(unsafe_text, "_LEADS_LOOKED_AT", 10**6)  # (the other way, the same)
    assert not _holds_one(arabic)
    assert _holds_one(arabic + "\u061c")


def test_a_range_of_the_text_is_read_and_no_more() -> None:
    text = "\u202e<p>clean — text</p>\x1b"
    assert not _may_hold_one(text, 1, len(text) - 1)
    assert _may_hold_one(text, 0, len(text) - 1)
    assert _may_hold_one(text, 1, len(text))
