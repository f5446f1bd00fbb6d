"""Whitespace in quote matching is collapsed, never removed: "now here" is not "nowhere". A
quote found by gluing words together would mark a made-up quote as found on the page."""

from __future__ import annotations

from oo_nb.agent.quotes import PageTexts, normalise, quote_hits


def test_whitespace_collapses_to_one_space() -> None:
    assert normalise("  Now\u00a0\n\there  ,\r\n  really\u2003 ") == "now here , really"


def test_words_run_together_are_not_the_quote() -> None:
    pages = PageTexts()
    pages.add("https://example.org/a", "The answer was nowhere to be found in the archive.")
    pages.add("https://example.org/b", "It is now here to be found,\nin the archive.")
    # keyed by url_key
    hits = quote_hits(["now here to be found", "nowhere to be found"], pages)
    assert hits == {
        "now here to be found": ["//example.org/b"],
        "nowhere to be found": ["//example.org/a"],
    }
