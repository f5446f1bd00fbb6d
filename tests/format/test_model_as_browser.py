"""The article model reads markup as Chromium's tree builder does, in the places an outside
attack found it did not (each case here was a wrong entry number, a section read from inert
markup, or an edit that cut into an element). Chromium's own DOM for the same cases is checked
in tests/browser/test_article_model_dom.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.agent.sections import assemble, split_article
from oo_nb.format.article import Article
from oo_nb.format.article_model import entries, read_model
from oo_nb.format.check import check_path
from oo_nb.format.vocab import entry_label, js_trim
from tests.support.tiny_docs import page

REFS = '<h2 id="references">References</h2><ol><li><a href="https://a.example/">A</a></li>{}</ol>'


@pytest.mark.parametrize("wrapper", ["blockquote", "h3", "figure", "details", "section", "dl"])
def test_an_li_inside_a_special_element_of_an_entry_is_no_entry(wrapper: str) -> None:
    inner = f"<{wrapper}><li>quoted <a href='https://q.example/'>q</a></{wrapper}>"
    html = REFS.format(f"<li><a href='https://b.example/'>B</a>{inner}</li>")
    model = read_model(html)
    lst = model.reference_list()
    assert lst is not None
    assert [li.attr("x") for li in entries(lst)] == [None, None]  # A and B, not q
    urls = [r.url for r in Article.parse(html).references]
    assert urls == ["https://a.example/", "https://b.example/"]


def test_an_li_in_a_div_of_an_entry_still_closes_it() -> None:
    """``div``, ``address`` and ``p`` are the special elements a new ``<li>`` looks past."""
    html = REFS.format("<li><div>B<li>C</div></li>")
    lst = read_model(html).reference_list()
    assert lst is not None and len(entries(lst)) == 3


def test_template_content_is_no_part_of_the_article() -> None:
    html = (
        '<h2 id="one">One</h2><p>x [s1]</p>'
        '<template><h2 id="references">References</h2><ol><li>[s1] <a href="https://t.example/">'
        "t</a></li></ol><p>[s9]</p></template>"
        '<h2 id="refs">References</h2><ol><li><a href="https://a.example/">A</a></li></ol>'
    )
    model = read_model(html)
    assert [s.id for s in model.sections] == ["one", "refs"]
    lst = model.reference_list()
    assert lst is not None and lst.start > html.index("</template>")
    assert [c.source_id for c in model.citations] == ["s1"]
    (template,) = model.elements("template")
    assert template.children == [] and template.end == html.index("</template>") + 11


@pytest.mark.parametrize("tag", ["h2", "div", "ol", "p"])
def test_a_self_closing_flag_on_an_html_element_is_ignored(tag: str) -> None:
    html = f'<{tag} id="overview"/>Overview</{tag}><p>next</p>'
    node = read_model(html).elements(tag)[0]
    assert node.text == "Overview" and node.end == html.index("<p>next")


def test_a_self_closing_flag_in_svg_closes_the_element() -> None:
    model = read_model("<svg><circle/><rect/></svg>")
    (circle,) = model.elements("circle")
    assert circle.children == [] and circle.end == len("<svg><circle/>")


@pytest.mark.parametrize(
    ("text", "label"),
    [("[s1] x", "s1"), ("[S12] x", "s12"), ("\ufeff[s2] x", "s2"), ("\u3000 [s3]", "s3"),
     ("\x1c[s1]", None), ("[s١]", None), ("x [s1]", None)],
)  # fmt: skip
def test_an_entry_label_is_read_as_the_page_script_reads_it(text: str, label: str | None) -> None:
    assert entry_label(text) == label


@pytest.mark.parametrize("heading", ["\ufeffReferences", " REFERENCES\u00a0", "References"])
def test_the_references_heading_text_is_trimmed_as_javascript_trims(heading: str) -> None:
    html = f'<h2 id="srcs">{heading}</h2><ol><li><a href="https://a.example/">A</a></li></ol>'
    assert js_trim(heading).lower() == "references"
    assert read_model(html).reference_list() is not None


def test_the_first_element_with_id_references_is_the_heading_whatever_its_tag() -> None:
    """The page script takes ``getElementById("references")``: a ``<p>`` with that id comes
    before the h2, so the list after the ``<p>`` is the one the page numbers."""
    html = (
        '<h2 id="one">One</h2><p id="references">lead</p><ul><li><a href="https://x.example/">'
        'X</a></li></ul><h2 id="refs">References</h2><ol><li><a href="https://a.example/">A</a>'
        "</li></ol>"
    )
    lst = read_model(html).reference_list()
    assert lst is not None and lst.name == "ul"


@pytest.mark.parametrize(
    "wrapped",
    [
        '<section class="kd"><h2 id="b">B</h2><p>b</p></section>',
        '<div class="card"><h2 id="b">B</h2></div><p>b</p>',
        '<!-- pid:b:0123abcd --><section><h2 id="b">B</h2></section>',
    ],
)
def test_a_section_ends_where_the_element_around_the_next_heading_starts(wrapped: str) -> None:
    html = '<h2 id="a">A</h2><p>a</p>' + wrapped
    model = read_model(html)
    a, b = model.sections
    assert html[a.start : a.end] == '<h2 id="a">A</h2><p>a</p>' and not a.nested
    assert b.start == a.end and b.nested
    chunks = split_article(html)
    assert assemble(chunks) == html and chunks[1].body == "<p>a</p>"


def test_a_section_that_runs_on_into_the_next_headings_element_is_not_spliceable() -> None:
    html = '<h2 id="a">A</h2><div><p>a</p><h2 id="b">B</h2></div>'
    a, _ = read_model(html).sections
    assert a.nested


@pytest.mark.parametrize("stray", ["</div>", "</main>", "<p>a</div>b</p>", "</section>"])
def test_an_end_tag_that_would_close_the_pages_own_element_is_reported(stray: str) -> None:
    html = f'<h2 id="one">One</h2><p>x</p>{stray}<h2 id="two">Two</h2>'
    found = read_model(html).unmodelled_markup()
    assert len(found) == 1 and "closes nothing in the article" in found[0][1]
    assert found[0][0] == html.index("</", html.index("<p>x</p>") + 8)


@pytest.mark.parametrize("harmless", ["</span>", "</p>", "</li>", "</table>", "</body>"])
def test_other_end_tags_that_close_nothing_are_not(harmless: str) -> None:
    html = f'<h2 id="one">One</h2><p>x</p>{harmless}<h2 id="two">Two</h2>'
    assert read_model(html).unmodelled_markup() == []


# A CDATA section is read where the element open last is SVG or MathML, as Chromium's tokenizer
# reads it (tests/browser/test_article_model_dom.py); elsewhere it is a bogus comment.
CDATA_CITES = [
    ("<p>a <svg><![CDATA[[s3]]]></svg> b</p>", ["s3"]),
    ("<svg><desc><![CDATA[x>[s5]]]></desc></svg>", ["s5"]),  # a ">" inside does not end it
    ("<svg><foreignObject><![CDATA[[s4]]]></foreignObject></svg>", ["s4"]),
    ("<math><mi><![CDATA[[s7]]]></mi></math>", ["s7"]),
    ("<svg><![CDATA[[s8] to the end", ["s8"]),
    ("<p><![CDATA[[s3]]]></p>", []),  # HTML: a bogus comment
    ("<svg><foreignObject><p><![CDATA[[s4]]]></p></foreignObject></svg>", []),
    (
        "<math><annotation-xml encoding='text/html'><b><![CDATA[[s4]]]></b></annotation-xml></math>",
        [],
    ),
    ("<svg><![CDATA[s3]]]></svg>", []),  # its opener's "[" is no part of a citation
]


@pytest.mark.parametrize(("html", "ids"), CDATA_CITES)
def test_a_cdata_section_in_svg_or_mathml_is_text(html: str, ids: list[str]) -> None:
    model = read_model(html)
    assert [c.source_id for c in model.citations] == ids
    assert [html[c.start : c.end].lower() for c in model.citations] == [f"[{i}]" for i in ids]
    assert list(Article.parse(html).cited_ids) == ids


def test_the_markup_after_a_cdata_section_is_read_from_its_end() -> None:
    model = read_model('<svg><![CDATA[<h2 id="x">]]></svg><h2 id="y">Y</h2>')
    assert [s.id for s in model.sections] == ["y"]


def test_a_link_inside_an_open_link_is_reported(tmp_path: Path) -> None:
    """A browser closes an open ``<a>`` where another starts (the s34 attack's nested link):
    ``oo check`` reports it as it reports the other markup the model builds otherwise."""
    doc = page([("00000001", 'See <a href="https://x.example/1">x <a href="#y">y</a> z</a> [s1].')])
    path = tmp_path / "tides.o-o.html"
    path.write_text(doc.text, "utf-8")
    found = [f for f in check_path(path) if f.code == "unmodelled-markup"]
    assert len(found) == 1 and "an <a> inside an open <a>" in found[0].message


@pytest.mark.parametrize(
    "html",
    [
        '<p><a href="#1">x</a><a href="#2">y</a></p>',
        '<a href="#1"><table><tbody><tr><td><a href="#2">y</a></td></tr></tbody></table></a>',
        '<svg><a href="#1"><a href="#2"><text>y</text></a></a></svg>',
    ],
)
def test_links_a_browser_builds_as_written_are_not(html: str) -> None:
    assert read_model(html).unmodelled_markup() == []
