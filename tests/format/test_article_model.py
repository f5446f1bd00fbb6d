"""The article model: sections where a browser's TOC finds them, blocks with their pid
comments and spans, the References entries the page numbers, citations and links."""

from __future__ import annotations

from pathlib import Path

from oo_nb.format.article_model import entries, read_model
from oo_nb.format.document import Document
from tests.conftest import DOC_NAMES


def test_every_corpus_document_is_cut_into_blocks_that_cover_it(corpus_dir: Path) -> None:
    for name in DOC_NAMES:
        html = Document.read(corpus_dir / name).article_html
        model = read_model(html)
        ends = [0, *(b.end for b in model.blocks)]
        assert [b.lead_start for b in model.blocks] == ends[:-1]
        assert [s.id for s in model.sections] == [
            s.attr("id") or "" for s in model.root.elements("h2")
        ]


def test_pids_before_headings_and_tables_belong_to_them() -> None:
    html = (
        "<!-- pid:a:00000001 -->\n<h2 id='a'>A</h2>\n<!-- pid:a:00000002 -->\n<h3>B</h3>\n"
        "<!-- pid:a:00000003 -->\n<table><tr><td>1<td>2</table>\n<p>x<br/>y\n<div>z</div>"
    )
    model = read_model(html)
    assert [(b.tag, b.pid) for b in model.blocks] == [
        ("h2", "pid:a:00000001"),
        ("h3", "pid:a:00000002"),
        ("table", "pid:a:00000003"),
        ("p", None),
        ("div", None),
    ]
    assert html[model.blocks[3].start : model.blocks[3].end] == "<p>x<br/>y\n"
    assert model.sections[0].start == 0


def test_a_comment_closed_by_dash_dash_bang_ends_there() -> None:
    html = '<h2 id="a">A</h2><!-- x --!><h2 id="b">B</h2><!--> <h2 id="c">C</h2>'
    assert [s.id for s in read_model(html).sections] == ["a", "b", "c"]


def test_the_references_list_is_the_one_the_page_numbers() -> None:
    html = (
        '<h2 id="references">References</h2>\n<p title="<ol><li>no</li></ol>">n</p>\n'
        '<div><ol><li title="</li>">[s1] a<ul><li>sub</li></ul></li>\n<li>b</ol></div>'
    )
    model = read_model(html)
    lst = model.reference_list()
    assert lst is not None and lst.name == "ol"
    items = [html[e.start : e.end] for e in entries(lst)]
    assert items == ['<li title="</li>">[s1] a<ul><li>sub</li></ul></li>', "<li>b"]


def test_citations_outside_references_and_links_have_spans() -> None:
    html = '<p>See [s1] and <a href="https://x.example/">x</a>.</p><h2 id="references">References</h2><ol><li>[s1] y</li></ol>'
    model = read_model(html)
    assert [(c.source_id, html[c.start : c.end]) for c in model.citations] == [("s1", "[s1]")]
    assert [link.href for link in model.links] == ["https://x.example/"]


def test_a_tree_is_freed_without_the_cyclic_collector() -> None:
    """A library scan reads thousands of trees with the collector paused: a parent link held
    strongly made each a cycle, left for one long collection at the end."""
    import gc
    import weakref

    model = read_model('<div><h2 id="a">A</h2><p>x <b>y</b></p></div><h2 id="b">B</h2>')
    head = model.elements("h2")[0]
    assert head.parent is model.elements("div")[0]  # the link still reads
    assert [s.nested for s in model.sections] == [True, False]
    root = weakref.ref(model.root)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del model, head
        assert root() is None  # freed by reference counting alone
    finally:
        if enabled:
            gc.enable()
