"""Issue 26 attacks 3-5: the article's end is where a browser's tree builder puts it (a
``</article>`` in an attribute, raw text, a template or a table cell does not end it; a comment
ended by ``--!>`` hides nothing), and an article nested thousands of elements deep is read
without recursion."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.format.article_model import article_end, read_model
from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from tests.conftest import CORPUS

REFS = (
    '<h2 id="references">References</h2>\n<ol>\n<li><a href="https://a.example/">A</a></li>\n'
    '<li><a href="https://b.example/">B</a></li>\n</ol>\n'
)
# Each hides a "</article>" where a browser does not read it as the article's end.
HIDDEN_ENDS = {
    "attribute": '<p title="</article>">note</p>',
    "textarea": "<textarea></article></textarea>",
    "xmp": "<xmp></article></xmp>",
    "iframe": "<iframe></article></iframe>",
    "noscript": "<noscript></article></noscript>",
    "template": "<template></article></template>",
    "svg title": "<svg><title></article></title></svg>",
    "svg desc": "<svg><desc></article></desc></svg>",
    "table cell": "<table><tr><td></article></td></tr></table>",
    "comment": "<!-- </article> -->",
}


def _page(article: str) -> str:
    text = (CORPUS / "agi-declared.o-o.html").read_text()
    start = text.index('<article id="article">') + len('<article id="article">')
    return text[:start] + article + text[text.index("</article>", start) :]


@pytest.mark.parametrize("case", list(HIDDEN_ENDS))
def test_a_hidden_article_end_does_not_end_the_article(case: str) -> None:
    article = (
        '<h2 id="one">One</h2>\n<p>x [s1]</p>\n'
        + HIDDEN_ENDS[case]
        + '\n<h2 id="two">Two</h2>\n<p>y [s2]</p>\n'
        + REFS
    )
    doc = Document(_page(article))
    assert doc.article_html == article
    model = read_model(doc.article_html)
    assert [s.id for s in model.sections] == ["one", "two", "references"]


def test_a_last_comment_ended_by_dash_dash_bang_leaves_the_article_readable() -> None:
    article = '<h2 id="one">One</h2>\n<p>y</p>\n<!-- a --!>\n'
    assert Document(_page(article)).article_html == article


def test_an_end_tag_with_attributes_or_in_capitals_ends_the_article() -> None:
    for close in ("</article x='>'>", "</ARTICLE >"):
        page = '<article id="article"><p>a</p>' + close + "<p>after</p>"
        closed = article_end(page, len('<article id="article">'), len(page))
        assert closed is not None and page[closed[0] : closed[1]] == close


def test_an_article_never_closed_is_an_error_naming_its_line() -> None:
    with pytest.raises(Exception, match="never closed"):
        Document(_page('<h2 id="one">One</h2><p title="x>').replace("</article>", "", 1))


@pytest.mark.parametrize(
    "nest", ["<div>{}</div>", "<ul><li>{}</li></ul>", "<span>{}</span>", "<p>{}"]
)
def test_an_article_thousands_deep_is_read_without_recursion(tmp_path: Path, nest: str) -> None:
    open_, close = nest.split("{}")
    article = (
        '<h2 id="overview">Overview</h2>\n'
        + open_ * 30000
        + 'x <h2 id="deep">Deep</h2> [s1]'
        + close * 30000
        + "\n"
        + REFS
    )
    path = tmp_path / "deep.o-o.html"
    path.write_text(_page(article))
    model = read_model(Document.read(path).article_html)
    assert [s.id for s in model.sections] == ["overview", "deep", "references"]
    assert "Deep" in model.root.text and "Deep" in model.root.visible_text
    assert [f for f in check_path(path) if f.severity == "error"] == []


def test_check_is_silent_on_an_article_a_thousand_deep(tmp_path: Path) -> None:
    path = tmp_path / "deep.o-o.html"
    path.write_text(_page('<h2 id="one">One</h2>' + "<div>" * 1000 + "x [s1]" + "</div>" * 1000))
    assert [f for f in check_path(path) if f.severity == "error"] == []
