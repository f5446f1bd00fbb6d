"""Issue 26: References edits read the list as a browser does. A new entry is our template:
from its neighbours it takes the shape, never attribute text; a list inside an attribute is no
list; a placeholder replaces exactly its ``<li>``; a sublist is part of its entry; an attribute
holding ``</li>`` ends no entry."""

from __future__ import annotations

from datetime import date
from typing import Any

from oo_nb.agent.references import update_references
from oo_nb.agent.sources import url_key

TODAY = date(2026, 11, 29)
NEW: dict[str, Any] = {
    "url": "https://news.example.com/a",
    "title": "New",
    "accessed": "2025-09-14",
}


def _entries(n: int) -> dict[str, Any]:
    return {f"s{k}": {"url": f"https://o{k}.example/", "title": f"T{k}"} for k in range(1, n + 1)}


def _run(body: str, entries: dict[str, Any], old: int, cited: set[str]) -> Any:
    old_urls = {url_key(f"https://o{k}.example/"): f"s{k}" for k in range(1, old + 1)}
    return update_references(
        body, entries, {f"s{k}" for k in range(1, old + 1)}, old_urls, cited, TODAY
    )


def test_a_new_entry_copies_no_attribute_text_from_its_neighbour() -> None:
    hostile = (
        '<li><a href="https://o1.example/" rel=\'noopener noreferrer" autofocus tabindex="0" '
        "onfocus=\"alert(1)'>T1</a> — X, 2026</li>"
    )
    got = _run(f"\n<ol>\n{hostile}\n</ol>\n", {**_entries(1), "s2": NEW}, 1, {"s1", "s2"})
    new = got.body[got.body.index(hostile) + len(hostile) :]
    assert new == (
        '\n<li><a href="https://news.example.com/a" rel="noopener">New</a> — news.example.com, '
        "2025</li>\n</ol>\n"
    )


def test_a_list_inside_an_attribute_is_no_list() -> None:
    body = '\n<p title="<ol></ol>">Sources:</p>\n<ol>\n<li><a href="https://o1.example/">T1</a></li>\n</ol>\n'
    got = _run(body, {**_entries(1), "s2": NEW}, 1, {"s1", "s2"})
    assert got.body == body.replace(
        "</li>\n</ol>", '</li>\n<li><a href="https://news.example.com/a">New</a></li>\n</ol>'
    )


def test_a_placeholder_replaces_exactly_its_entry() -> None:
    items = [f'<li><a href="https://o{k}.example/">T{k}</a></li>' for k in (1, 2, 3)]
    body = f"\n<ol>\n{items[0]}\n<!-- s2: the court filing -->\n{items[1]}\n{items[2]}\n</ol>\n"
    entries = _entries(3)
    del entries["s2"]
    got = _run(body, entries, 3, {"s1", "s3"})
    assert got.body == body.replace(
        items[1], '<li class="ref-missing"><em>source removed</em></li>'
    )


def test_dropping_the_last_entry_keeps_the_comment_before_it() -> None:
    """The last entry needs no placeholder: only its ``<li>`` goes, an author's comment before
    it stays (attack s36, #6)."""
    items = [f'<li><a href="https://o{k}.example/">T{k}</a></li>' for k in (1, 2)]
    body = f"\n<ol>\n{items[0]}\n<!-- keep this note -->\n{items[1]}\n</ol>\n"
    entries = _entries(2)
    del entries["s2"]
    got = _run(body, entries, 2, {"s1"})
    assert got.body == body.replace(f"\n{items[1]}", "")


def test_new_entries_go_after_an_entry_with_a_sublist_not_into_it() -> None:
    entry = '<li><a href="https://o1.example/">T1</a>\n<ul><li>see also p. 4</li></ul></li>'
    body = f"\n<ol>\n{entry}\n</ol>\n"
    got = _run(body, {**_entries(1), "s2": NEW}, 1, {"s1", "s2"})
    assert (
        got.body
        == f'\n<ol>\n{entry}\n<li><a href="https://news.example.com/a">New</a></li>\n</ol>\n'
    )


def test_an_attribute_holding_a_closing_li_ends_no_entry() -> None:
    items = [
        '<li>[s1] <a href="https://o1.example/">T1</a>, o1.example</li>',
        '<li title="</li>">[s2] <a href="https://o2.example/">T2</a>, o2.example</li>',
    ]
    body = "\n<ol>\n" + "\n".join(items) + "\n</ol>\n"
    got = _run(body, {**_entries(2), "s3": NEW}, 2, {"s1", "s2", "s3"})
    assert got.out_of_order is None
    assert got.body == body.replace(
        "</li>\n</ol>",
        '</li>\n<li>[s3] <a href="https://news.example.com/a">New</a>, '
        "news.example.com</li>\n</ol>",
    )
