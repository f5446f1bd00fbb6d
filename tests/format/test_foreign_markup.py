"""Issue 26 attack 7: markup a browser's tree builder reads otherwise than a tokenizer alone.
A heading opened in a heading closes it (modelled: two sections, in the model and in Article);
foreign-content raw text and a table's foster-parented content are refused by ``oo check``
with the line (tests/browser/test_article_model_dom.py shows Chromium's reading)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.format.article import Article
from oo_nb.format.article_model import read_model
from oo_nb.format.check import check_path
from tests.format.test_article_end import _page

REFUSED = {
    "svg style": '<svg><style><h2 id="fake">Fake</h2></style></svg>',
    "math style": '<math><style><h2 id="fake">Fake</h2></style></math>',
    "svg script": "<svg><script><p>x</p></script></svg>",
    "foster parenting": '<table><tr><td>a</td></tr><h2 id="foster">F</h2></table>',
    "text in a table": "<table><tr><td>a</td></tr>loose</table>",
}
ACCEPTED = {
    "svg title text": "<svg><title>A chart</title><style>a > b {}</style></svg>",
    "a plain table": "<table>\n<tr><td>1<td>2</tr>\n</table>",
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_check_refuses_markup_the_model_reads_otherwise(case: str, tmp_path: Path) -> None:
    page = _page('<h2 id="one">One</h2>\n' + REFUSED[case] + "\n")
    path = tmp_path / "doc.o-o.html"
    path.write_text(page)
    line = page[: page.index(REFUSED[case])].count("\n") + 1
    found = [f for f in check_path(path) if f.code == "unmodelled-markup"]
    assert len(found) == 1 and found[0].severity == "error" and f"line {line}:" in found[0].message


@pytest.mark.parametrize("case", list(ACCEPTED))
def test_markup_read_alike_is_not_refused(case: str) -> None:
    assert read_model('<h2 id="one">One</h2>' + ACCEPTED[case]).unmodelled_markup() == []


def test_a_heading_in_a_heading_is_two_sections() -> None:
    html = '<h2 id="one">One <h2 id="inner">Inner</h2></h2><p>y</p>'
    assert [s.id for s in read_model(html).sections] == ["one", "inner"]
    assert [(s.id, s.title) for s in Article.parse(html).sections] == [
        ("one", "One"),
        ("inner", "Inner"),
    ]


def test_unmodelled_markup_comes_in_document_order_from_every_depth() -> None:
    """The findings of the elements of each name the model keeps come out as a walk of the whole
    tree gives them (a table part's at the part's place), nested ones included; template content
    gives none."""
    source = (
        "<p>a</p></div><table><tr><td>x<svg><style><b>s</b></style></svg></td></tr>loose"
        "<table><tbody><em>y</em></tbody></table></table>"
        "<math><script><i>z</i></script></math><template><table>no</table></template>"
        "<blockquote><svg><desc><textarea><u>plain html</u></textarea></desc>"
        "<title><b>t</b></title></svg></blockquote>"
    )
    found = read_model(source).unmodelled_markup()
    assert [(at, what.split(" (")[0]) for at, what in found] == [
        (8, "an end tag </div> that closes nothing in the article"),
        (source.index("loose"), "text directly inside <table>"),  # (at the table's place)
        (source.index("<table><tbody>"), "<table> directly inside <table>"),
        (source.index("<style>"), "<style> inside <svg>"),
        (source.index("<em>"), "<em> directly inside <tbody>"),
        (source.index("<script>"), "<script> inside <math>"),
        (source.index("<textarea>"), "<textarea> inside <svg>"),
        (source.index("<title>"), "<title> inside <svg>"),
    ]
