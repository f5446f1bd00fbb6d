"""A page excerpt clipped to a token allowance is the longest prefix that fits: never more than
the allowance (the wrap-up reserve counts on it), and not a character less than fits (what the
model reads of a fetched page is all the budget allows)."""

from __future__ import annotations

import pytest

from oo_nb.agent.budget import clip_to_tokens, text_tokens


@pytest.mark.parametrize(
    ("text", "tokens", "expected"),
    [
        ("a" * 100, 10, "a" * 25),  # 25 ASCII characters are exactly 10 tokens
        ("a" * 100, 40, "a" * 100),  # all of it is exactly 40 tokens
        ("a" * 101, 40, "a" * 100),
        ("a" * 5, 0, ""),
        ("日本語テキスト", 6, "日本"),  # 3 tokens a character
        ("日本語テキスト", 8, "日本"),
        ("日本語テキスト", 9, "日本語"),
        ("ab日本", 3, "ab"),  # 0.8 + 3 > 3
        ("ab日本", 4, "ab日"),
        ("x" * 37 + "é" * 40, 35, "x" * 37 + "é" * 10),  # 14.8 + 2 per é
    ],
)
def test_clip_keeps_the_longest_prefix_that_fits(text: str, tokens: int, expected: str) -> None:
    out = clip_to_tokens(text, tokens)
    assert out == expected
    assert text_tokens(out) <= tokens


def test_clip_of_long_text_at_every_allowance() -> None:
    text = ("Tides rise and fall; 潮の満ち引き. " * 40)[:900]
    for tokens in range(0, 700, 7):
        out = clip_to_tokens(text, tokens)
        assert text.startswith(out) and text_tokens(out) <= tokens
        assert out == text or text_tokens(text[: len(out) + 1]) > tokens


def test_a_lone_surrogate_is_counted_not_a_crash() -> None:
    """JSON may carry an unpaired surrogate (``"\\ud800"``); the count takes its 3 bytes."""
    assert text_tokens("ab\ud800") == pytest.approx(2 / 2.5 + 3)
