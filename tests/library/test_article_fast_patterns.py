"""article_fast's token patterns, written with back-references so they compile ~6x quicker (a
worker process compiles them at start-up), match exactly as the patterns written out tag by tag
did (kept below as the reference): at every "<" and every position of the corpus's, synthetic
and generated articles, the same match or none, the same end and the same groups."""

from __future__ import annotations

import random
import re
from typing import Any

from oo_nb.format.document import Document
from oo_nb.library import article_fast
from oo_nb.library.article_fast import (
    _ATTRS,
    _FLAT_END,
    _INLINE,
    _ITEMS,
    _LOOSE_ATTRS,
    _S,
    _TOKEN,
    _VOID,
)
from tests.library.test_article_fast import document_articles
from tests.library.test_library import load_synth
from tests.support.article_mutants import generate, mutate, tangle

# ------------------------------------------------------------ the patterns as they were
_FLAT = (
    "[^<]*+(?:(?:<br"
    + _ATTRS
    + "/?>|"
    + "|".join(f"<{t}{_ATTRS}>[^<]*+</{t}{_S}>" for t in sorted(_INLINE - _VOID))
    + ")[^<]*+)*+"
)
_ITEM = f"<li{_ATTRS}>{_FLAT}</li{_S}>"
_ROWS = f"(?:{_S}<tr{_ATTRS}>(?:{_S}(?:<td{_ATTRS}>{_FLAT}</td{_S}>|<th{_ATTRS}>{_FLAT}</th{_S}>))*+{_S}</tr{_S}>)*+"
_ROW_GROUPS = "|".join(f"<{t}{_ATTRS}>{_ROWS}{_S}</{t}{_S}>" for t in ("thead", "tbody", "tfoot"))
OLD_TOKEN = re.compile(
    "([^<]*+)<(?:"
    f"(ol|ul)({_ATTRS})>((?:{_S}{_ITEM})*+{_S})</\\2{_S}>"
    f"|table({_ATTRS})>((?:{_S}(?:{_ROW_GROUPS}|{_ROWS}))*+{_S})</table{_S}>"
    f"|(?!(?:br|img|hr)[ \t\n/>])([a-z][a-z0-9]*+)({_ATTRS})>({_FLAT})</\\7{_S}>"
    f"|([a-z][a-z0-9]*+)({_LOOSE_ATTRS})(/?)>"
    f"|/([a-z][a-z0-9]*+){_S}>"
    "|!--(?!-?>)(.*?)-->"
    ")",
    re.DOTALL,
)
OLD_FLAT_END = re.compile(f"({_FLAT})</([a-z0-9]++){_S}>")
OLD_ITEMS = re.compile(f"<li{_ATTRS}>({_FLAT})</li{_S}>")

TOKEN_NAMES = (
    "gap",
    "ltag",
    "lattrs",
    "items",
    "tattrs",
    "rows",
    "wtag",
    "wattrs",
    "whole",
    "tag",
    "attrs",
    "slash",
    "etag",
    "comment",
)  # fmt: skip (the old groups 1-14)


def token_result(pattern: re.Pattern[str], html: str, pos: int, names: bool) -> Any:
    m = pattern.match(html, pos)
    if m is None:
        return None
    keys = TOKEN_NAMES if names else range(1, 15)
    return m.span(), [(m.group(k), m.span(k)) for k in keys]


def numbered(pattern: re.Pattern[str], html: str, pos: int, groups: tuple[Any, ...]) -> Any:
    m = pattern.match(html, pos)
    return None if m is None else (m.span(), [(m.group(k), m.span(k)) for k in groups])


def assert_same_matches(html: str, every: bool = False) -> int:
    positions = range(len(html) + 1) if every else [i for i, c in enumerate(html) if c == "<"]
    matched = 0
    for pos in [0, *positions]:
        new = token_result(_TOKEN, html, pos, names=True)
        assert new == token_result(OLD_TOKEN, html, pos, names=False), (pos, html[pos : pos + 80])
        matched += new is not None
        flat_at = pos + 1 if pos < len(html) else pos  # (content starts after a tag's ">")
        assert numbered(_FLAT_END, html, flat_at, ("content", "close")) == numbered(
            OLD_FLAT_END, html, flat_at, (1, 2)
        ), (flat_at, html[flat_at : flat_at + 80])
        assert numbered(_ITEMS, html, pos, (1,)) == numbered(OLD_ITEMS, html, pos, (1,)), pos
    return matched


def test_the_new_patterns_are_shorter() -> None:
    assert len(_TOKEN.pattern) * 5 < len(OLD_TOKEN.pattern)
    assert (
        tuple(_TOKEN.groupindex[n] for n in TOKEN_NAMES if n not in ("items", "rows", "whole"))
        == article_fast._TOKEN_GROUPS
    )


def test_real_and_synthetic_articles_match_alike() -> None:
    articles = [html for _, html in document_articles()]
    synth = load_synth()
    articles += [
        Document.parse(synth.make_document(f"pat-{i}", seed=300 + i)).article_html
        for i in range(12)
    ]
    assert sum(assert_same_matches(html) for html in articles) > 1000


def test_generated_tangled_and_mutated_articles_match_alike() -> None:
    rng = random.Random(21)
    matched = 0
    for i in range(1500):
        html = generate(rng) if i % 2 else tangle(rng)
        if rng.random() < 0.5:
            html = mutate(rng, html, rounds=rng.randint(1, 3))
        matched += assert_same_matches(html, every=i % 10 == 0)
    assert matched > 5000


ELEMENTS = [
    "<a>", "</a>", "<abbr>", "</abbr>", "<b>", "</b>", "<br>", "<br/>", "<br >", "<s>", "</s>",
    "<small>", "</small>", "<span class='x'>", "</span >", "<strong>", "</strong>", "<sub>",
    "</sup>", "<u>", "</u>", "<img src='x'>", "<i>", "</i>", "<em>", "</em>", "<code>",
    "</code>", "<td>", "</td>", "<th>", "</th>", "<thead>", "</thead>", "<tbody>", "</tbody>",
    "<tfoot>", "</tfoot>", "<tr>", "</tr>", "<table>", "</table>", "<li>", "</li>", "<ol>",
    "</ol>", "<ul>", "</ul>", "<p>", "</p>", "text", " ", "\n", "<!-- c -->", "<q>", "</q>",
    "<mark>", "</mark>", "<cite>", "</cite>", "<a href=\"u\">", "</th\n>", "<b\tid='i'>",
]  # fmt: skip


def test_random_tag_soups_match_alike() -> None:
    """Start and end tags of every name the patterns know, matched and mismatched."""
    rng = random.Random(22)
    matched = 0
    for _ in range(3000):
        html = "".join(rng.choice(ELEMENTS) for _ in range(rng.randint(1, 14)))
        matched += assert_same_matches(html)
    assert matched > 3000


TABLE_PARTS = [
    "<tr>", "</tr>", "<td>", "</td>", "<th>", "</th>", "<thead>", "</thead>", "<tbody>",
    "</tbody>", "<tfoot>", "</tfoot>", "x", "<b>", "</b>", " ", "<table>", "</table>", "<td a='1'>",
]  # fmt: skip
LIST_PARTS = ["<li>", "</li>", "x", "<a>", "</a>", "<br>", "<ol>", "</ol>", "<ul>", "</ul>", "\n"]


def test_table_and_list_soups_match_alike() -> None:
    """Rows, cells and row groups nested and closed every which way, inside a table; items
    inside lists."""
    rng = random.Random(23)
    matched = 0
    for _ in range(4000):
        rows = "".join(rng.choice(TABLE_PARTS) for _ in range(rng.randint(0, 10)))
        items = "".join(rng.choice(LIST_PARTS) for _ in range(rng.randint(0, 8)))
        tag = rng.choice(("ol", "ul"))
        matched += assert_same_matches(f"<table>{rows}</table><{tag}>{items}</{tag}>")
    assert matched > 8000


def renamed(rng: random.Random, html: str, names: list[str]) -> str:
    """``html`` with an element renamed (its first start and end tags), or one tag only."""
    for _ in range(rng.choice((0, 1, 1, 2))):
        old, new, mode = rng.choice(names), rng.choice(names), rng.random()
        if mode < 0.8:  # both (below 0.6), or the start tag only
            html = html.replace(f"<{old}>", f"<{new}>", 1)
        if mode < 0.6 or mode >= 0.8:  # both, or the end tag only
            html = html.replace(f"</{old}>", f"</{new}>", 1)
    return html


def test_tables_and_lists_with_renamed_elements_match_alike() -> None:
    rng = random.Random(24)
    contents = ["", "x", "<b>y</b>", "[s1] z", "<br>", "<a>l</a> t", "<i>a</i><u>b</u>"]
    names = ["td", "th", "tr", "thead", "tbody", "tfoot", "table", "b", "li", "ol", "ul", "a"]

    def cell() -> str:
        tag = rng.choice(("td", "th"))
        return f"{rng.choice(('', ' ', chr(10)))}<{tag}>{rng.choice(contents)}</{tag}>"

    def rows() -> str:
        return "".join(
            "<tr>" + "".join(cell() for _ in range(rng.randint(0, 3))) + "</tr>\n"
            for _ in range(rng.randint(0, 2))
        )

    matched = 0
    for _ in range(3000):
        groups = [rows()] + [f"<{g}>{rows()}</{g}>" for g in ("thead", "tbody", "tfoot")]
        table = "<table>" + "".join(rng.choices(groups, k=rng.randint(0, 3))) + "</table>"
        items = "".join(f"<li>{rng.choice(contents)}</li>" for _ in range(rng.randint(0, 3)))
        lists = f"<{rng.choice(('ol', 'ul'))}>{items}</{rng.choice(('ol', 'ul'))}>"
        matched += assert_same_matches(renamed(rng, table + lists, names))
    assert matched > 6000


def test_loose_amp_is_the_pattern_search() -> None:
    rng = random.Random(25)
    parts = ["&", "&amp;", "&amp", "&#1;", "&#x1f;", "&#;", "& ", "x", "&a", ";", "&" * 40]
    parts += ["&lt;" * 40, "&#12345678;", "&#123456789;", "&" + "a" * 33 + ";"]
    htmls = ["".join(rng.choice(parts) for _ in range(rng.randint(0, 12))) for _ in range(5000)]
    htmls += ["&lt;" * k + tail for k in range(28, 36) for tail in ("", "& x", "&#;", "&lt;")]
    for html in htmls:
        assert article_fast._has_loose_amp(html) == (
            article_fast._LOOSE_AMP.search(html) is not None
        )
