from __future__ import annotations

import pytest

from oo_nb.format.article import Article, excerpt_of, new_pid, pid_is_wellformed
from oo_nb.format.document import Document
from oo_nb.library.article_rows import ArticleScan
from oo_nb.library.digest import scan_article
from tests.conftest import CORPUS


def test_corpus_article_structure() -> None:
    art = Document.read(CORPUS / "anthropic-leadership.o-o.html").article
    assert [s.id for s in art.sections if s.level == 2][:2] == ["overview", "co-founders"]
    assert art.sections[-1].id == "references"
    assert art.pids[0] == "pid:overview:a1b2c3d4"
    assert art.cited_ids[:2] == ("s1", "s2") or "s1" in art.cited_ids
    assert art.references[0].source_id == "s1"
    assert art.references[0].url == "https://www.anthropic.com/company"
    assert not art.is_stub
    para = next(p for p in art.paragraphs if p.pid == "pid:co-founders:a7b8c9d0")
    assert para.section == "co-founders"


def test_references_without_leading_ids() -> None:
    art = Document.read(CORPUS / "ai-model-landscape.o-o.html").article
    assert art.references and all(r.source_id is None for r in art.references)
    assert [r.position for r in art.references][:3] == [1, 2, 3]


def test_excerpt_rule() -> None:
    art = Document.read(CORPUS / "yc-w26-batch.o-o.html").article
    assert art.excerpt.startswith("Y Combinator's Winter 2026 (W26) batch represents")
    assert art.excerpt.endswith("...") and len(art.excerpt) == 123
    assert excerpt_of("Short [s1] text  here.") == "Short text here."


def test_figures_pids_and_stub() -> None:
    html = (
        '<h2 id="a">A</h2><!-- pid:a:0011aabb --><p>x [s1]</p><!-- pid:a:nothex --><p>y</p><p>no pid</p>'
        '<figure class="fig-right"><img src="data:image/png;base64,AAAA" alt="alt"><figcaption>Cap</figcaption></figure>'
    )
    art = Article.parse(html)
    assert art.figures[0].mime == "image/png" and art.figures[0].caption == "Cap"
    assert [p.pid for p in art.paragraphs][:3] == ["pid:a:0011aabb", "pid:a:nothex", None]
    assert not pid_is_wellformed("pid:a:nothex") and pid_is_wellformed(new_pid("a"))
    assert Article.parse('<div class="stub-notice">Not yet researched</div>').is_stub


@pytest.mark.parametrize("section", ["evil:x", "Key.Details", "a b", "overview"])
def test_a_new_pid_is_well_formed_whatever_the_section_id(section: str) -> None:
    """A proposal's section id ``evil:x`` was accepted and wrote ``pid:evil:x:…``, which `oo check`
    then called malformed (the outside attack of round four)."""
    from oo_nb.format.article import new_pid, pid_problem

    assert pid_problem(new_pid(section)) is None


# --------------------------------------------------------------------- issue 26: one model
# Each case fails on the walks this replaced (article._Walker, digest._Lean, article_fast): they
# counted a sublist's items as entries, saw a list inside an attribute, lost entries after
# ``<li title="</li>">``, ended comments only at "-->", and read tags inside raw text.
def _both(html: str) -> tuple[Article, ArticleScan]:
    return Article.parse(html), scan_article(html)


def test_a_sublist_inside_an_entry_adds_no_entries() -> None:
    art, scan = _both(
        '<h2 id="references">References</h2><ol>'
        '<li>[s1] <a href="https://a.example/">A</a><ul><li>x</li><li><a href="https://y/">y</a></li></ul></li>'
        '<li>[s2] <a href="https://b.example/">B</a></li></ol>'
    )
    assert [(r.position, r.source_id, r.url) for r in art.references] == [
        (1, "s1", "https://a.example/"),
        (2, "s2", "https://b.example/"),
    ]
    assert scan.references == [(1, "s1", "https://a.example/"), (2, "s2", "https://b.example/")]


def test_only_the_list_the_page_numbers_holds_entries() -> None:
    """A second list in the References section is a paragraph, not more entries; a list in an
    attribute is no list; an end tag in an attribute ends nothing."""
    art, scan = _both(
        '<h2 id="references">References</h2><p title="<ol><li>no</li></ol>">note [s9]</p>'
        '<ol><li title="</li>">[s1] a</li><li>[s2] b</li></ol><ul><li>[s3] other</li></ul>'
    )
    assert [r.source_id for r in art.references] == ["s1", "s2"]
    assert [r[1] for r in scan.references] == ["s1", "s2"]
    assert [p.tag for p in art.paragraphs] == ["p", "ul"]
    # text outside the numbered list is linked by the page script: its citations count
    assert art.cited_ids == ("s9", "s3")


def test_a_comment_ends_where_a_browser_ends_it() -> None:
    art, scan = _both(
        '<h2 id="a">A</h2><!-- pid:a:00000001 --><p>x [s1]</p><!-- note --!>'
        '<h2 id="b">B</h2><!-- pid:b:00000002 --><p>y [s2]</p>'
    )
    assert [s.id for s in art.sections] == ["a", "b"]
    assert [(c.source_id, c.section) for c in art.citations] == [("s1", "a"), ("s2", "b")]
    assert scan.paragraphs == [("pid:a:00000001", "a", "p"), ("pid:b:00000002", "b", "p")]


def test_raw_text_holds_no_headings_or_pids() -> None:
    art, scan = _both(
        '<h2 id="a">A</h2><script>"<h2 id=b>B</h2><!-- pid:a:00000009 -->"</script>'
        "<textarea><h2 id=c></textarea><noscript><h3 id=d>D</h3></noscript><p>t</p>"
    )
    assert [s.id for s in art.sections] == ["a"]
    assert scan.sections == [("a", 2)] and scan.pids == []


def test_pids_before_headings_and_tables_are_read() -> None:
    art, scan = _both(
        '<!-- pid:a:00000001 --><h2 id="a">A</h2><!-- pid:a:00000002 --><h3 id="h">H</h3>'
        "<!-- pid:a:00000003 --><table><tr><td>1<td>2</table><!-- pid:a:00000004 --><p>p</p>"
    )
    assert art.pids == tuple(f"pid:a:0000000{i}" for i in range(1, 5))
    assert scan.paragraphs == [("pid:a:00000003", "a", "table"), ("pid:a:00000004", "a", "p")]
    assert scan.sections == [("a", 2), ("h", 3)]


def test_a_heading_nested_in_a_block_starts_a_section() -> None:
    """The page's table of contents lists every h2: the blocks after one are in its section."""
    art, _ = _both('<h2 id="a">A</h2><div class="table-wrap"><h2 id="b">B</h2></div><p>x [s1]</p>')
    assert [s.id for s in art.sections] == ["a", "b"]
    assert art.paragraphs[-1].section == "b" and art.citations[0].section == "b"


def test_a_citation_in_upper_case_counts_as_the_page_links_it() -> None:
    """The page links "[S3]" to entry 3 (document.js); it cites s3, in lower case."""
    html = (
        '<h2 id="a">A</h2>\n<!-- pid:a:00000001 -->\n<p>x [S3] y [s1]</p>\n'
        '<h2 id="references">References</h2>\n<ol><li>[s1] one</li><li>[s2] two</li>'
        "<li>[s3] three</li></ol>\n"
    )
    assert Article.parse(html).cited_ids == ("s3", "s1")


def test_an_entry_link_is_its_first_anchor_with_an_href() -> None:
    """``<a id>`` first (an anchor, no link), then the link the page shows."""
    html = (
        '<h2 id="a">A</h2>\n<p>x [s1]</p>\n<h2 id="references">References</h2>\n<ol>'
        '<li>[s1] <a id="iea"></a><a href="https://iea.example/hp">IEA heat pumps</a></li></ol>\n'
    )
    ref = Article.parse(html).references[0]
    assert (ref.source_id, ref.url, ref.title) == ("s1", "https://iea.example/hp", "IEA heat pumps")
