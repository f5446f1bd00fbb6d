"""The edges of the quote rule (``too_generic``): the length limit itself, numbers written with
thousands separators, which words are names, and the long-word fallback. A quote the rule lets
through supports a fact in a written document, so each edge is a plausible way of letting a
boilerplate quote vouch for an unrelated claim."""

from __future__ import annotations

import pytest

from oo_nb.agent.quote_rule import SPECIFIC_MIN, too_generic

NAMES_NOTHING = "names nothing the fact names"


def test_the_length_limit_is_inclusive() -> None:
    fact = "Tides rise"
    exact = "Tides rise and fall."
    assert len(exact) == SPECIFIC_MIN
    assert too_generic(exact, fact) is None
    assert too_generic(exact[:-1], fact) == f"shorter than {SPECIFIC_MIN} characters"


def test_a_thousands_separator_is_the_same_number() -> None:
    fact = "Acme hired 4,000 engineers in 2025"
    assert too_generic("Acme said it hired 4000 new people", fact) is None
    assert too_generic("Acme said it hired 4.000 new people", fact) is None
    assert too_generic("Acme said it hired 400 new people", fact) == (
        "holds none of the fact's numbers (2025, 4000)"
    )


@pytest.mark.parametrize(
    ("fact", "quote"),
    [
        # a name in the fact: the quote must hold it, its other words do not count
        ("Acme hired engineers", "they hired engineers across the region"),
        ("Acme grew in Ohio", "sales rose sharply this year overall"),
        # no name (a capitalised "The" begins the sentence): one of the longer words, not "the"
        ("The report covers growth", "the weather was nice today indeed"),
        # five letters is long enough to be a word the quote must share
        ("the river flows fast", "a completely different sentence"),
    ],
)
def test_a_quote_must_share_the_facts_names_or_long_words(fact: str, quote: str) -> None:
    assert too_generic(quote, fact) == NAMES_NOTHING


@pytest.mark.parametrize(
    ("fact", "quote"),
    [
        ("Acme hired engineers", "as acme confirmed on Monday morning"),
        ("The report covers growth", "growth was the main topic of the day"),
        ("the river flows fast", "the rivers of the north are long"),
    ],
)
def test_a_quote_sharing_them_supports_the_fact(fact: str, quote: str) -> None:
    assert too_generic(quote, fact) is None
