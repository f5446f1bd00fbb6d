"""Cited passages shown beside a paragraph (issue 16) are page text: they reach the terminal
and the widget as plain text, never as terminal escapes or bidi overrides."""

from __future__ import annotations

from oo_nb.review.hunks import Hunk
from oo_nb.review.quotes import add_quote_badges
from oo_nb.review.terminal import render_hunk

URL = "https://news.example/a"
CACHE = {"sources": [{"id": "s1", "url": URL}], "facts": []}


def test_escapes_in_a_cited_passage_do_not_reach_the_terminal() -> None:
    # the run record's citations (from the page, or a hand-edited pending.json) went out raw:
    # an OSC 52 sequence writes the clipboard, \x1b[2J clears the screen, U+202E reverses text
    hostile = "grew \x1b]52;c;ZWNobyBwd25lZA==\x07 by 40% \x1b[2J\u202e in 2025\x9b31m"
    hunk = Hunk(
        "h1", 0, "article", "added", "Growth", after_html="<p>Grew [s1].</p>", after_text="Grew"
    )
    (out,) = add_quote_badges([hunk], CACHE, CACHE, {"citations": [[URL, hostile]]})
    assert out.cited and "by 40%" in out.cited[0]
    text = render_hunk(out, color=False)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\x9b" not in text
