"""The review widget groups changes by section: two sections with the same title are two
groups, and an article section titled like an area ("Sources") is not merged with the changed
sources."""

from __future__ import annotations

from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.notebook.review_widget import ReviewWidget
from tests.support.tiny_docs import page, source, updated

_TAIL = (
    '\n<!-- pid:notes-a:00000000 -->\n<h2 id="notes-a">Notes</h2>\n'
    "<!-- pid:notes-a:bbbbbbb1 -->\n<p>A one.</p>\n"
    '\n<!-- pid:notes-b:00000000 -->\n<h2 id="notes-b">Notes</h2>\n'
    "<!-- pid:notes-b:bbbbbbb2 -->\n<p>B one.</p>\n"
    '\n<!-- pid:srcs:00000000 -->\n<h2 id="srcs">Sources</h2>\n'
    "<!-- pid:srcs:bbbbbbb3 -->\n<p>C one.</p>\n"
)


def _with_tail(doc: Document, tail: str) -> Document:
    return doc.with_article(
        doc.article_html.replace('<h2 id="references">', tail + '<h2 id="references">')
    )


def test_sections_with_one_title_and_the_sources_area_are_separate_groups(
    tmp_path: Path,
) -> None:
    s1, s2 = source(1), source(2)
    original = _with_tail(page([("aaaaaaa1", "Old [s1]")], [s1]), _TAIL)
    changed = _TAIL.replace("A one.", "A two.").replace("B one.", "B two.")
    candidate = _with_tail(
        updated([("aaaaaaa1", "Old [s1] [s2]")], [s1, s2]), changed.replace("C one.", "C two.")
    )
    path = tmp_path / "groups.o-o.html"
    path.write_bytes(original.to_bytes())
    widget = ReviewWidget(Document.read(path), candidate)
    groups = {
        g.name + ":" + ",".join(sorted({widget.hunk_views[i].hunk.area for i in g.ids})): [
            widget.hunk_views[i].hunk.section for i in g.ids
        ]
        for g in widget.groups
    }
    sections = [[widget.hunk_views[i].hunk.section for i in g.ids] for g in widget.groups]
    assert ["notes-a"] in sections and ["notes-b"] in sections, groups
    areas = [{widget.hunk_views[i].hunk.area for i in g.ids} for g in widget.groups]
    assert all(len(a) == 1 for a in areas), groups  # no group mixes the article and sources
    assert len(widget.groups) == 5, groups  # tides, notes-a, notes-b, srcs, the sources area
    names = [g.name for g in widget.groups]
    assert len(set(names)) == len(names), names  # the shared titles told apart
