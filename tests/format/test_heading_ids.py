"""A heading without an id is read under the id the page script gives it (``document.js``
buildToc: ``uniqueId(slugOf(textContent) || "section-" + (i + 1))`` once the References entries
have theirs), by every reader: the sections, the blocks' section, the article's and the library
scan's rows, the agent's view of the article (attack round six, #6). Chromium's side:
tests/browser/test_article_model_dom.py."""

from __future__ import annotations

import pytest

from oo_nb.agent.context import compact_article
from oo_nb.format.article import Article
from oo_nb.format.article_model import read_model
from oo_nb.format.document import Document
from oo_nb.format.heading_ids import TEMPLATE_PAGE_IDS, slug_of
from oo_nb.format.html_tokens import Token, raw_tokens
from oo_nb.format.template.render import render_document
from oo_nb.library.digest import scan_article

REFS = '<h2 id="references">References</h2><ol><li>[s1] <a href="https://a.example/">A</a></li><li>B</li></ol>'
# article -> the id of each h2 and h3, in order, as the page has them after its script ran
GIVEN = {
    "one without an id": ('<h2 id="a">A</h2><h2>Key Details</h2><p>x</p>', ["a", "key-details"]),
    "the same title twice": (
        "<h2>Key Details</h2><h3>Key details</h3>",
        ["key-details", "key-details-2"],
    ),
    "an id a later element holds": ('<h2>Foo</h2><p id="foo">x</p>', ["foo-2"]),
    "ids of the page's own elements": ("<h2>Article</h2><h3>TOC</h3>", ["article-2", "toc-2"]),
    "no letter a slug keeps": (
        "<h2>概要</h2><h3>—</h3><h2>Ωmega</h2>",
        ["section-1", "section-2", "mega"],
    ),
    "an empty id attribute": ('<h2 id="">Empty &amp; Full</h2>', ["empty-full"]),
    "a long title": ("<h2>" + "word " * 20 + "</h2>", ["word-" * 11 + "word-"]),
    "a dotted capital I": ("<h2>İstanbul</h2>", ["i-stanbul"]),
    "the text of inner elements": (
        "<h2><span>Price</span> <b>&lt;falls&gt;</b></h2>",
        ["price-falls"],
    ),
    "an id the References entries took": (
        "<h2>S1</h2><h3>S2</h3>" + REFS,
        ["s1-2", "s2-2", "references"],
    ),
    "References without an id": (
        '<h2 id="a">A</h2><h2>References</h2><ol><li>x</li></ol>',
        ["a", "references"],
    ),
}


def _given(article: str) -> list[str]:
    model = read_model(article)
    heads = sorted(model.elements("h2") + model.elements("h3"), key=lambda h: h.start)
    return [model.id_of(h) for h in heads]


@pytest.mark.parametrize("case", list(GIVEN))
def test_a_heading_without_an_id_has_the_one_the_page_gives_it(case: str) -> None:
    article, ids = GIVEN[case]
    assert _given(article) == ids


def test_every_reader_names_the_section_by_that_id() -> None:
    html = '<h2 id="overview">Overview</h2><p>a</p><h2>Key Details</h2><!-- pid:k:00000001 --><p>b [s1]</p>'
    model = read_model(html)
    assert [s.id for s in model.sections] == ["overview", "key-details"]
    assert [s.id_written for s in model.sections] == [True, False]
    assert [b.section for b in model.blocks] == [
        "overview",
        "overview",
        "key-details",
        "key-details",
    ]
    article = Article.parse(html)
    assert [s.id for s in article.sections] == ["overview", "key-details"]
    assert [(c.source_id, c.section) for c in article.citations] == [("s1", "key-details")]
    assert scan_article(html).sections == [("overview", 2), ("key-details", 2)]
    # the agent sees the id it is to name the section by
    assert '<h2 id="key-details">Key Details</h2>' in compact_article(html)[0]


def test_slugs_are_the_page_scripts() -> None:
    assert slug_of("  Key Details: 2026 ") == "key-details-2026"
    assert slug_of("--") == ""
    assert slug_of("x" * 70) == "x" * 60


def _outside_ids(page: str) -> set[str]:
    start = page.index('<article id="article">') + len('<article id="article">')
    end = page.index("</article>", start)
    ids = set()
    for raw in raw_tokens(page, 0, len(page)):
        if isinstance(raw, Token) or raw[0] != "start" or start <= raw[1] < end:
            continue
        ids |= {a.value for a in raw[4] or () if a.name == "id"}
    return ids


def _page(article: str) -> str:
    return render_document(
        file_name="t.o-o.html",
        manifest={"title": "T"},
        contract={},
        source_cache={},
        changelog=[],
        article_html=article,
    )


def test_the_template_holds_the_page_ids_a_model_of_the_article_alone_assumes() -> None:
    page = _page("<h2>Toc</h2><p>x</p>")
    assert _outside_ids(page) == TEMPLATE_PAGE_IDS
    assert Document(page).article_model.page_ids == TEMPLATE_PAGE_IDS
    assert [s.id for s in Document(page).article.sections] == ["toc-2"]


def test_a_document_gives_its_own_pages_ids() -> None:
    page = _page("<h2>Sidebar</h2><p>x</p>")
    page = page.replace('<article id="article">', '<div id="sidebar"></div><article id="article">')
    doc = Document(page)
    assert "sidebar" in doc.article_model.page_ids
    assert [s.id for s in doc.article_model.sections] == ["sidebar-2"]
    assert read_model(doc.article_html).sections[0].id == "sidebar"  # (the article alone)
