"""Attribute values under the allow-list: each attribute keeps the values a document needs (table
layout, text direction, list numbering, anchors, classes) and loses the ones that could clobber
the page's own elements or fake its markers."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from oo_nb.format.sanitize import sanitize_html


def _attrs(fragment: str, **kw: object) -> list[dict[str, str]]:
    """The attributes of every element of the cleaned fragment, in document order."""
    out = sanitize_html(fragment, **kw)  # type: ignore[arg-type]
    root = lxml_html.fragment_fromstring(out, create_parent="div")
    return [dict(el.attrib) for el in root.iter() if el is not root and isinstance(el.tag, str)]


def test_classes_keep_their_order_once_each_without_reserved_ones() -> None:
    assert _attrs('<p class="lead b lead oo-x stub-notice wrap 9z version-badge c">x</p>') == [
        {"class": "lead b c"}
    ]
    assert _attrs('<p class="stub-notice oo-manifest">x</p>') == [{}]  # nothing left: no class


@pytest.mark.parametrize(
    "chrome", ["contract-panel", "cite", "toc", "toc-h3", "references", "theme-toggle", "open"]
)
def test_the_page_chrome_classes_are_dropped(chrome: str) -> None:
    # the page's style sheet hides `.contract-panel` until opened: kept on an agent's span, it
    # would hide a claim from the reader while the review shows the words unchanged
    assert _attrs(f'<p>Kept <span class="{chrome} lead">words</span></p>') == [
        {},
        {"class": "lead"},
    ]


def test_the_article_content_classes_are_kept() -> None:
    fragment = '<figure class="fig-left"><figcaption><span class="img-src">c</span></figcaption>'
    fragment += '</figure><div class="table-wrap"><p class="note">n</p></div>'
    assert _attrs(fragment) == [
        {"class": "fig-left"},
        {},
        {"class": "img-src"},
        {"class": "table-wrap"},
        {"class": "note"},
    ]


@pytest.mark.parametrize(
    "value", ["TOC", "Oo-Manifest", "REFERENCES", "Article", "S3", "Ref-12", "9a", "a b", "a" * 81]
)
def test_ids_that_could_clobber_the_page_or_are_malformed_are_dropped(value: str) -> None:
    assert _attrs(f'<p id="{value}">x</p>') == [{}]


def test_ids_a_section_may_use_are_kept() -> None:
    assert _attrs(f'<h3 id="sub-1">a</h3><p id="{"a" * 80}">b</p>') == [
        {"id": "sub-1"},
        {"id": "a" * 80},
    ]


def test_reserved_ids_are_compared_without_case() -> None:
    got = _attrs(
        '<p id="status">a</p><p id="STATUS">b</p><p id="history">c</p><p id="free">d</p>',
        reserved_ids={"Status", "HISTORY"},
    )
    assert got == [{}, {}, {}, {"id": "free"}]


def test_text_direction_and_table_scope_keep_only_their_keywords() -> None:
    got = _attrs(
        '<p dir="rtl">a</p><p dir="ltr">b</p><p dir="auto">c</p><p dir="sideways">d</p>'
        '<table><tr><th scope="row">a</th><th scope="col">b</th><th scope="rowgroup">c</th>'
        '<th scope="colgroup">d</th><th scope="all">e</th></tr></table>'
    )
    assert got[:4] == [{"dir": "rtl"}, {"dir": "ltr"}, {"dir": "auto"}, {}]
    assert got[-5:] == [
        {"scope": "row"},
        {"scope": "col"},
        {"scope": "rowgroup"},
        {"scope": "colgroup"},
        {},
    ]


def test_numbers_stay_only_when_they_are_small_whole_numbers() -> None:
    cells = _attrs(
        '<table><tr><td colspan="2" rowspan="3">a</td><td colspan=" 2 ">b</td>'
        '<td colspan="12345" rowspan="-1">c</td><td colspan="2;x" rowspan="1e3">d</td></tr></table>'
    )
    assert cells[-4:] == [{"colspan": "2", "rowspan": "3"}, {"colspan": " 2 "}, {}, {}]
    cols = _attrs('<table><colgroup span="2"><col span="3"><col span="x"></colgroup></table>')
    assert cols[1:] == [{"span": "2"}, {"span": "3"}, {}]
    lists = _attrs('<ol start="5" reversed><li>a</li></ol><ol start="five"><li>b</li></ol>')
    assert lists == [{"start": "5", "reversed": ""}, {}, {}, {}]
    image = _attrs('<img src="data:image/png;base64,AAAA" width="10" height="20px">')
    assert image == [{"src": "data:image/png;base64,AAAA", "width": "10"}]
    image = _attrs('<img src="data:image/png;base64,AAAA" width="50%" height="8">')
    assert image == [{"src": "data:image/png;base64,AAAA", "height": "8"}]


def test_plain_attributes_are_kept_on_links_images_and_times() -> None:
    got = _attrs(
        '<a title="T" lang="fr" href="https://a.example/" id="x" class="c">a</a>'
        '<img src="data:image/png;base64,AAAA" alt="Alt text" title="I">'
        '<time datetime="2026-01-01">x</time>'
    )
    assert got == [
        {
            "title": "T",
            "lang": "fr",
            "href": "https://a.example/",
            "id": "x",
            "class": "c",
            "rel": "noopener noreferrer",
        },
        {"src": "data:image/png;base64,AAAA", "alt": "Alt text", "title": "I"},
        {"datetime": "2026-01-01"},
    ]


def test_in_page_anchors_must_name_an_id() -> None:
    got = _attrs('<a href="#sec-1">a</a><a href="#1bad">b</a><a href="#">c</a><a href="#a b">d</a>')
    assert [a.get("href") for a in got] == ["#sec-1", None, None, None]
