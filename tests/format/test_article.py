from __future__ import annotations

import pytest

from oo_nb.format.article import Article, excerpt_of, new_pid, pid_is_wellformed
from oo_nb.format.document import Document
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
