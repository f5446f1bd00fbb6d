"""What a new References entry looks like, found wanting by mutation testing (issue 28): the
neighbour it learns from (the last linked entry that is not a placeholder), the gap before it,
the link attributes it may copy, its title, text and date forms, and where the list's numbering
puts it. Every case goes through ``update_references`` and compares the section it returns."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from oo_nb.agent.references import update_references
from oo_nb.agent.sources import url_key

TODAY = date(2026, 11, 29)
NEW: dict[str, Any] = {
    "url": "https://news.example.com/a",
    "title": "New",
    "accessed": "2025-09-14",
}
LINK = '<a href="https://news.example.com/a">New</a>'


def _entries(n: int) -> dict[str, Any]:
    return {f"s{k}": {"url": f"https://o{k}.example/", "title": f"T{k}"} for k in range(1, n + 1)}


def _run(
    body: str,
    entries: dict[str, Any],
    old: int,
    cited: Any,
    old_urls: dict[str, str] | None = None,
) -> Any:
    urls = {url_key(f"https://o{k}.example/"): f"s{k}" for k in range(1, old + 1)}
    return update_references(
        body, entries, {f"s{k}" for k in range(1, old + 1)}, urls | (old_urls or {}), cited, TODAY
    )


def _ol(*items: str, sep: str = "\n") -> str:
    return "\n<ol>" + sep + sep.join(items) + "\n</ol>\n"


def _added(body: str, entries: dict[str, Any], old: int, cited: Any) -> str:
    """What the update appended after the last existing entry of ``body``."""
    got = _run(body, entries, old, cited)
    assert got.changed is True
    start = body.rindex("</li>") + len("</li>")
    assert got.body[:start] == body[:start] and got.body.endswith("\n</ol>\n")
    return str(got.body[start : -len("\n</ol>\n")])


# -- the neighbour a new entry learns from


DASHED = '<li><a href="https://o1.example/">T1</a> — Azumo, Feb 2026</li>'


def test_the_model_is_the_last_linked_entry_not_a_later_unlinked_one() -> None:
    body = _ol(DASHED, "<li>A letter in the town archive, 1911</li>")
    added = _added(body, {**_entries(2), "s3": NEW}, 2, {"s3"})
    assert added == f"\n<li>{LINK} — news.example.com, Sep 2025</li>"


def test_a_placeholder_is_never_the_model_even_when_it_kept_a_link() -> None:
    placeholder = '<li class="ref-missing"><a href="https://o2.example/">T2</a>, o2.example</li>'
    body = _ol(DASHED, placeholder)
    added = _added(body, {**_entries(2), "s3": NEW}, 2, {"s3"})
    assert added == f"\n<li>{LINK} — news.example.com, Sep 2025</li>"


def test_an_empty_link_is_no_model() -> None:
    body = _ol(DASHED, '<li><a href="">T2</a>, o2.example</li>')
    added = _added(body, {**_entries(2), "s3": NEW}, 2, {"s3"})
    assert added == f"\n<li>{LINK} — news.example.com, Sep 2025</li>"


def test_no_linked_neighbour_gives_our_own_form() -> None:
    body = _ol("<li>[s1] A letter in the town archive, 1911</li>")
    added = _added(body, {"s1": "A letter", "s2": NEW}, 1, {"s2"})
    assert added == (
        '\n<li>[s2] <a href="https://news.example.com/a" rel="noopener noreferrer">New</a>'
        ", news.example.com</li>"
    )


def test_an_empty_list_is_filled_in_our_own_form() -> None:
    got = _run("\n<ol></ol>\n", {"s1": NEW}, 0, {"s1"})
    assert got.body == (
        '\n<ol>\n<li>[s1] <a href="https://news.example.com/a" rel="noopener noreferrer">New</a>'
        ", news.example.com</li></ol>\n"
    )
    # nothing cited: an empty list stays empty, and says it did not change
    same = _run("\n<ol></ol>\n", {"s1": NEW}, 0, set())
    assert same.changed is False and same.body == "\n<ol></ol>\n"


# -- the gap before it: the whitespace before the last entry


@pytest.mark.parametrize("sep", ["\n  ", "\n\t\t", " "])
def test_a_new_entry_has_the_gap_of_the_last_one(sep: str) -> None:
    body = _ol(DASHED, '<li><a href="https://o2.example/">T2</a> — B, Feb 2026</li>', sep=sep)
    added = _added(body, {**_entries(2), "s3": NEW}, 2, {"s3"})
    assert added == f"{sep}<li>{LINK} — news.example.com, Sep 2025</li>"


def test_entries_written_edge_to_edge_get_a_newline_before_the_new_one() -> None:
    body = f"\n<ol>{DASHED}\n</ol>\n"
    added = _added(body, {**_entries(1), "s2": NEW}, 1, {"s2"})
    assert added == f"\n<li>{LINK} — news.example.com, Sep 2025</li>"


# -- the link attributes it may copy


@pytest.mark.parametrize(
    ("attrs", "copied"),
    [
        (' rel="nofollow noopener"', ' rel="noopener nofollow"'),  # known words, in our order
        (' rel="me author"', ""),  # no known word: no rel at all
        (' target="_self"', ""),
        (' target=" _BLANK "', ' target="_blank"'),
        (' class="_blank" title="_blank"', ""),  # only a target says "new tab"
    ],
)
def test_a_new_entry_copies_only_a_new_tab_target_and_known_rel_words(
    attrs: str, copied: str
) -> None:
    body = _ol(f'<li><a href="https://o1.example/"{attrs}>T1</a> — Azumo</li>')
    added = _added(body, {**_entries(1), "s2": NEW}, 1, {"s2"})
    assert (
        added
        == f'\n<li><a href="https://news.example.com/a"{copied}>New</a> — news.example.com</li>'
    )


# -- its title and text


LABELLED = '<li>[s1] <a href="https://o1.example/">T1</a>, o1.example</li>'


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ({"url": "https://news.example.com/a", "title": ""}, "news.example.com"),
        ({"url": "https://news.example.com/a"}, "news.example.com"),
        ({"url": "javascript:alert(1)", "title": ""}, "s2"),  # neither linked nor shown
        ({"title": ""}, "s2"),
        (None, "s2"),  # a hand-edited cache: not a source at all
        (7, "s2"),
    ],
)
def test_an_untitled_entry_shows_its_domain_else_its_id(source: Any, shown: str) -> None:
    body = _ol(LABELLED)
    added = _added(body, {**_entries(1), "s2": source}, 1, {"s2"})
    if isinstance(source, dict) and source.get("url", "").startswith("https"):
        assert added == f'\n<li>[s2] <a href="https://news.example.com/a">{shown}</a>, {shown}</li>'
    else:
        assert added == f"\n<li>[s2] {shown}</li>"


def test_titles_and_text_sources_are_escaped_with_quotes_kept_and_cut_to_500() -> None:
    body = _ol(LABELLED)
    title = 'Bob\'s "guide" & <b>notes</b>'
    text = 'The "plain" one\'s <i>text</i> & more'
    added = _added(
        body,
        {**_entries(1), "s2": {"url": NEW["url"], "title": title}, "s3": text},
        1,
        {"s2", "s3"},
    )
    assert added == (
        '\n<li>[s2] <a href="https://news.example.com/a">Bob\'s "guide" &amp; notes</a>'
        ", news.example.com</li>"
        '\n<li>[s3] The "plain" one\'s text &amp; more</li>'
    )
    long = "abcdefghij" * 75
    added = _added(
        body, {**_entries(1), "s2": {"url": NEW["url"], "title": long}, "s3": long}, 1, {"s3"}
    )
    cut = long[:499] + "…"
    assert added == (
        f'\n<li>[s2] <a href="https://news.example.com/a">{cut}</a>, news.example.com</li>'
        f"\n<li>[s3] {cut}</li>"
    )


# -- its date, in the neighbour's form


@pytest.mark.parametrize(
    ("example", "written"),
    [
        ("2026-02-03", "2025-09-14"),
        ("2026", "2025"),
        ("Feb 2026", "Sep 2025"),
        ("Feb. 2026", "Sep 2025"),  # an abbreviation's dot is no letter of the month
        ("June 2026", "September 2025"),  # a four-letter month is a full name
        ("February 2026", "September 2025"),
        ("Feb 3, 2026", "Sep 14, 2025"),
        ("February 3, 2026", "September 14, 2025"),
    ],
)
def test_the_access_date_is_written_as_the_neighbour_writes_its_date(
    example: str, written: str
) -> None:
    body = _ol(f'<li><a href="https://o1.example/">T1</a> – Azumo, {example}</li>')
    added = _added(body, {**_entries(1), "s2": NEW}, 1, {"s2"})
    assert added == f"\n<li>{LINK} – news.example.com, {written}</li>"


def test_without_an_access_date_today_is_written() -> None:
    body = _ol('<li><a href="https://o1.example/">T1</a> — Azumo, Feb 3, 2026</li>')
    source = {"url": NEW["url"], "title": "New"}
    added = _added(body, {**_entries(1), "s2": source}, 1, {"s2"})
    assert added == f"\n<li>{LINK} — news.example.com, Nov 29, 2026</li>"


# -- which entry it is, and where it goes


def test_unlabelled_entries_without_a_cached_link_keep_their_position() -> None:
    # a hand-added entry (no link, or a link the cache never held) is the source of its place;
    # never the cached source whose URL is empty (url_key("") is "/")
    body = _ol(
        '<li><a href="https://o1.example/">T1</a></li>',
        "<li>A letter in the town archive, 1911</li>",
        '<li><a href="https://elsewhere.example/x">Hand-added</a></li>',
    )
    entries = {**_entries(3), "s4": {"url": "", "title": "No address"}, "s5": NEW}
    got = _run(body, entries, 3, {"s5"}, old_urls={url_key(""): "s4"})
    assert got.out_of_order is None
    assert got.body == _ol(
        '<li><a href="https://o1.example/">T1</a></li>',
        "<li>A letter in the town archive, 1911</li>",
        '<li><a href="https://elsewhere.example/x">Hand-added</a></li>',
        "<li>No address</li>",
        f"<li>{LINK}</li>",
    )


def test_a_missing_source_before_a_cited_one_holds_its_place() -> None:
    body = _ol(LABELLED)
    got = _run(body, {**_entries(1), "s3": NEW}, 1, {"s3"})
    assert got.body == _ol(
        LABELLED,
        '<li class="ref-missing">[s2] <em>source removed</em></li>',
        f"<li>[s3] {LINK}, news.example.com</li>",
    )


def test_an_uncited_source_after_the_last_citation_is_not_listed() -> None:
    body = _ol(LABELLED)
    got = _run(body, {**_entries(1), "s2": NEW, "s3": NEW}, 1, {"s2"})
    assert got.body == _ol(LABELLED, f"<li>[s2] {LINK}, news.example.com</li>")


def test_a_dropped_last_entry_goes_unless_a_new_one_follows() -> None:
    items = [f'<li><a href="https://o{k}.example/">T{k}</a></li>' for k in (1, 2)]
    gone = _run(_ol(*items), _entries(1), 2, {"s1"})
    assert gone.body == _ol(items[0])
    kept = _run(_ol(*items), {**_entries(1), "s3": NEW}, 2, {"s1", "s3"})
    assert kept.body == _ol(
        items[0], '<li class="ref-missing"><em>source removed</em></li>', f"<li>{LINK}</li>"
    )


def test_out_of_order_new_entries_go_last_in_number_order() -> None:
    items = [f'<li><a href="https://o{k}.example/">T{k}</a></li>' for k in (2, 1)]
    entries = {**_entries(2), "s3": NEW, "s10": NEW}
    got = _run(_ol(*items), entries, 2, ["s10", "s1", "s3"])
    assert got.out_of_order == "item 1 is s2"
    assert got.body == _ol(*items, f"<li>{LINK}</li>", f"<li>{LINK}</li>")
    # the order shows in what each new entry is: give them different titles
    entries = {**_entries(2), "s3": dict(NEW, title="Three"), "s10": dict(NEW, title="Ten")}
    got = _run(_ol(*items), entries, 2, ["s10", "s1", "s3"])
    assert got.body.index(">Three<") < got.body.index(">Ten<")


def test_out_of_order_is_reported_when_nothing_changes_and_when_the_list_goes() -> None:
    items = [f'<li><a href="https://o{k}.example/">T{k}</a></li>' for k in (2, 1)]
    same = _run(_ol(*items), _entries(2), 2, {"s1"})
    assert same.changed is False and same.out_of_order == "item 1 is s2"
    gone = _run(_ol(*items), {}, 2, set())
    assert gone.changed is True and gone.out_of_order == "item 1 is s2"


def test_when_the_list_goes_the_text_around_it_stays_as_it_was() -> None:
    body = "\n<p>Sources used:</p>\n<ol>\n" + LABELLED + "\n</ol>\n<p>Compiled by hand.</p>\n"
    got = _run(body, {}, 1, set())
    assert got.body == "\n<p>Sources used:</p>\n<p>Compiled by hand.</p>\n"
