"""The References list edited in place (issue 12): the shape of a new entry follows its
neighbours in each form o-o documents use, kept entries keep their bytes, a dropped source's
entry keeps its place, and what else the section holds stays."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from oo_nb.agent.references import update_references
from oo_nb.agent.sources import url_key

TODAY = date(2026, 11, 29)
NEW: dict[str, Any] = {
    "url": "https://www.news.example.com/a?x=1&y=2",
    "title": "New & notable",
    "accessed": "2025-09-14",
}


def _body(*items: str, after: str = "") -> str:
    return "\n<ol>\n" + "\n".join(items) + "\n</ol>\n" + after + "\n\n"


def _entries(n: int) -> dict[str, Any]:
    return {f"s{k}": {"url": f"https://o{k}.example/", "title": f"T{k}"} for k in range(1, n + 1)}


def _run(body: str, entries: dict[str, Any], old: int, cited: set[str]) -> Any:
    old_urls = {url_key(f"https://o{k}.example/"): f"s{k}" for k in range(1, old + 1)}
    old_ids = {f"s{k}" for k in range(1, old + 1)}
    return update_references(body, entries, old_ids, old_urls, cited, TODAY)


NEW_ITEM = {
    "dash, outlet, short month": (
        '<li><a href="https://o1.example/">T1</a> — Azumo, Feb 2026</li>',
        '<li><a href="https://www.news.example.com/a?x=1&amp;y=2">New &amp; notable</a> — news.example.com, Sep 2025</li>',
    ),
    "dash, outlet, full month": (
        '<li><a href="https://o1.example/">T1</a> — Costco Investor Relations, September 2025</li>',
        '<li><a href="https://www.news.example.com/a?x=1&amp;y=2">New &amp; notable</a> — news.example.com, September 2025</li>',
    ),
    "entity dash, outlet, no date": (
        '<li><a href="https://o1.example/" target="_blank" rel="noopener">T1</a> &mdash; Windows Central</li>',
        '<li><a href="https://www.news.example.com/a?x=1&amp;y=2" target="_blank" rel="noopener">New &amp; notable</a> &mdash; news.example.com</li>',
    ),
    "label and domain (oo_nb, anthropic-leadership)": (
        '<li>[s1] <a href="https://o1.example/">T1</a>, o1.example</li>',
        '<li>[s2] <a href="https://www.news.example.com/a?x=1&amp;y=2">New &amp; notable</a>, news.example.com</li>',
    ),
    "title only (yc-w26-batch)": (
        '<li><a href="https://o1.example/">T1 — Y Combinator</a></li>',
        '<li><a href="https://www.news.example.com/a?x=1&amp;y=2">New &amp; notable</a></li>',
    ),
    "an id is never copied": (
        '<li id="ref-1"><a href="https://o1.example/">T1</a> — X, 2026</li>',
        '<li><a href="https://www.news.example.com/a?x=1&amp;y=2">New &amp; notable</a> — news.example.com, 2025</li>',
    ),
}


@pytest.mark.parametrize("case", list(NEW_ITEM))
def test_a_new_entry_has_its_neighbours_shape(case: str) -> None:
    old, expected = NEW_ITEM[case]
    footer = '<p class="doc-footer">Compiled by o-o.</p>'
    body = _body(old, after=footer)
    got = _run(body, {**_entries(1), "s2": NEW}, 1, {"s1", "s2"})
    assert got.changed and got.out_of_order is None
    assert got.body == _body(old, expected, after=footer)


def test_a_dropped_entry_keeps_its_place_or_goes_at_the_end() -> None:
    items = [f'<li><a href="https://o{k}.example/">T{k}</a> — O, 2026</li>' for k in (1, 2, 3)]
    entries = _entries(3)
    del entries["s2"]
    got = _run(_body(*items), entries, 3, {"s1", "s3"})
    assert got.body == _body(
        items[0], '<li class="ref-missing"><em>source removed</em></li>', items[2]
    )
    del entries["s3"]
    got = _run(_body(*items), entries, 3, {"s1"})
    assert got.body == _body(items[0])  # nothing after it: the placeholders go


def test_nothing_changed_keeps_the_body_and_the_gaps_fill_in_order() -> None:
    items = [f'<li><a href="https://o{k}.example/">T{k}</a></li>' for k in (1, 2)]
    body = "\n<!-- <ol><li>old</li></ol> -->\n<ol>\n" + "\n".join(items) + "\n</ol>\n<p>note</p>\n"
    same = _run(body, _entries(2), 2, {"s1"})
    assert not same.changed and same.body == body
    # s4 cited, s3 uncited but in the cache: listed at its place; the comment is left alone
    got = _run(body, {**_entries(3), "s4": NEW}, 2, {"s1", "s4"})
    assert got.body.startswith("\n<!-- <ol><li>old</li></ol> -->\n<ol>\n" + "\n".join(items))
    assert got.body.count("<li>") == 4 + 1 and got.body.endswith("</ol>\n<p>note</p>\n")
    assert '<li><a href="https://o3.example/">T3</a></li>' in got.body


def test_out_of_order_is_reported_and_new_entries_go_last() -> None:
    items = [f'<li><a href="https://o{k}.example/">T{k}</a></li>' for k in (2, 1)]
    got = _run(_body(*items), {**_entries(2), "s3": NEW}, 2, {"s1", "s3"})
    assert got.out_of_order == "item 1 is s2"
    assert got.body.startswith(_body(*items).rstrip().removesuffix("</ol>").rstrip())
    assert got.body.count("<li>") == 3
