"""Edges of ``unclean_reasons`` (what keeps ``--auto`` from writing): spending exactly the
budget, a result without run figures, a source cache of the wrong shape, and the exact words
of each reason (a reviewer reads them to decide what to look at)."""

from __future__ import annotations

from typing import Any

import pytest

from oo_nb.agent.clean import unclean_reasons
from oo_nb.format.document import Document
from tests.agent.test_clean import _doc, _result, _with_quote

LINK = "https://made-up.example/login"


def _with_link(doc: Document, url: str = LINK) -> Document:
    html = doc.article_html
    at = html.find("</p>")
    return doc.with_article(html[:at] + f' <a href="{url}">sign in</a>' + html[at:])


def test_spending_exactly_the_budget_is_within_it() -> None:
    assert unclean_reasons(_result(_doc(), cost=0.5)) == []


def test_a_result_without_run_figures_still_checks_new_links() -> None:
    result = _result(_with_link(_doc()))
    result.run = None
    assert unclean_reasons(result) == [
        f"link(s) in the new text to pages this run did not read: {LINK}"
    ]


def test_each_reason_in_its_words() -> None:
    doc = _with_link(_with_link(_doc()), "https://also-made-up.example/x")
    html = doc.article_html
    for sid in ("leading-candidates",):
        start = html.index(f'<h2 id="{sid}">')
        html = html[:start] + html[html.index("<h2 ", start + 1) :]
    doc = _with_quote(doc.with_article(html), False)
    result = _result(doc, unverified=["s20", "s21"], warnings=["one", "two"])
    result.proposal_data = {"drop_sections": ["status"]}
    assert unclean_reasons(result) == [
        "new source(s) not verified (URL not seen in this run's searches or fetches): s20, s21",
        "section(s) removed: status, leading-candidates",
        "link(s) in the new text to pages this run did not read: "
        f"{LINK}, https://also-made-up.example/x",
        "1 quote(s) not found in their source: we did",
        "2 run warning(s): one; two",
    ]


def test_long_links_and_warnings_are_cut_to_their_widths() -> None:
    url = "https://made-up.example/" + "a" * 300
    warning = "w" * 300
    reasons = unclean_reasons(_result(_with_link(_doc(), url), warnings=[warning]))
    shown_link = reasons[0].rsplit(": ", 1)[1]
    shown_warning = reasons[1].rsplit(": ", 1)[1]
    assert len(shown_link) == 100 and shown_link.endswith("…") and url.startswith(shown_link[:-1])
    assert len(shown_warning) == 160 and shown_warning.endswith("…")


@pytest.mark.parametrize("cache", [["not", "a", "cache"], {"facts": 5}, {"facts": "quote"}])
def test_a_source_cache_of_the_wrong_shape_holds_no_quote(cache: Any) -> None:
    doc = _doc().with_block("oo-source-cache", cache)
    assert unclean_reasons(_result(doc)) == []
