"""Issue 26 attack 8: the References entries are what the page script numbers (the ``<li>``
children of the first list after the heading), in the model, in ``oo show``'s Article, and
``oo check`` warns of an entry the page does not number, naming its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.format.article import Article
from oo_nb.format.article_model import entries, read_model
from oo_nb.format.check import check_path
from tests.format.test_article_end import _page

A, B, C = (f'<a href="https://{x}.example/">{x}</a>' for x in "abc")
LISTS = {
    "nested list in the first entry": f"<ol><li>{A}<ol><li>{C}</li></ol></li><li>{B}</li></ol>",
    "two lists": f"<p>intro</p><ol><li>{A}</li><li>{B}</li></ol><ol><li>{C}</li></ol>",
    "ul before the ol": f"<ul><li>{A}</li><li>{B}</li></ul><ol><li>{C}</li></ol>",
}


def _article(refs: str) -> str:
    return (
        f'<h2 id="one">One</h2>\n<p>x [s1] [s2]</p>\n<h2 id="references">References</h2>\n{refs}\n'
    )


@pytest.mark.parametrize("case", list(LISTS))
def test_the_entries_are_the_ones_the_page_numbers(case: str, tmp_path: Path) -> None:
    html = _article(LISTS[case])
    refs = read_model(html).reference_list()
    assert refs is not None
    model_urls = [next(e.elements("a")).attr("href") for e in entries(refs)][:2]
    assert model_urls == ["https://a.example/", "https://b.example/"]
    assert [(r.position, r.url) for r in Article.parse(html).references] == [
        (1, "https://a.example/"),
        (2, "https://b.example/"),
    ]
    path = tmp_path / "doc.o-o.html"
    page = _page(html)
    path.write_text(page)
    line = page[: page.index('"https://c.example/"')].count("\n") + 1
    unlinked = [f.message for f in check_path(path) if f.code == "unlinked-reference"]
    assert len(unlinked) == 1 and f"line {line}:" in unlinked[0]


def test_one_plain_list_has_no_unlinked_entry() -> None:
    assert read_model(_article(f"<ol><li>{A}</li><li>{B}</li></ol>")).unnumbered_entries() == []


def test_article_reads_an_article_a_thousand_deep() -> None:
    html = (
        '<h2 id="one">One</h2>' + "<div>" * 1000 + "<p>x [s1]</p>" + "</div>" * 1000
    ) + _article(f"<ol><li>{A}</li></ol>").split("\n", 2)[2]
    article = Article.parse(html)
    assert [r.url for r in article.references] == ["https://a.example/"]
    assert [c.source_id for c in article.citations] == ["s1"]
