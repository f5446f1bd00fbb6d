"""A References heading whose id is not "references" (``<h2 id="refs">References</h2>``): the
page script finds the list by the heading's text, so it is the document's References. An update
appended a second "References" section with every entry rewritten in oo_nb's own form (the page
then showed two lists and linked [sN] to the new one), and ``drop_sections: ["refs"]`` removed
the original list."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document

FIXTURE = Path(__file__).parents[1] / "fixtures" / "issue12" / "refs-heading-id.o-o.html"
NEW = {
    "id": "s17",
    "url": "https://news.example.com/x",
    "title": "Latest",
    "accessed": "2026-11-28",
}


def _build(**extra: object) -> tuple[str, str, list[str]]:
    doc = Document.read(FIXTURE)
    proposal = validate_proposal(
        {
            "summary": "New section.",
            "sections": [{"id": "news", "title": "News", "html": "<p>New [s17].</p>"}],
            "sources": [NEW],
            **extra,
        }
    )
    run = RunInfo(backend="anthropic", model="claude-sonnet-5-5", seen_urls={NEW["url"]})
    built = build_candidate(doc, proposal, run, today=date(2026, 12, 1), pid_seed="t")
    return doc.article_html, built.document.article_html, built.warnings


def _refs(article: str) -> str:
    return article[article.index('<h2 id="refs">') :]


def test_no_second_references_section_and_the_list_keeps_its_bytes() -> None:
    before, after, warnings = _build()
    headings = re.findall(r"<h2\b[^>]*>\s*References\s*</h2>", after)
    assert headings == ['<h2 id="refs">References</h2>']
    assert after.index('<h2 id="news">') < after.index('<h2 id="refs">')
    assert _refs(after) == _refs(before)  # not updated in place: said so
    assert any("References" in w and "refs" in w for w in warnings), warnings


def test_drop_sections_and_a_rewrite_leave_it() -> None:
    before, after, warnings = _build(drop_sections=["refs"])
    assert _refs(after) == _refs(before)
    assert any("drop_sections: 'refs' not removed" in w for w in warnings), warnings
    doc = Document.read(FIXTURE)
    proposal = validate_proposal(
        {"summary": "x", "sections": [{"id": "refs", "title": "References", "html": "<p>x</p>"}]}
    )
    run = RunInfo(backend="anthropic", model="claude-sonnet-5-5")
    try:
        built = build_candidate(doc, proposal, run, today=date(2026, 12, 1), pid_seed="t")
    except Exception as exc:  # no usable section left: refused, nothing written
        assert "no usable section" in str(exc) or "references" in str(exc).lower()
    else:
        assert _refs(built.document.article_html) == _refs(before)


def test_the_prompt_does_not_offer_it_for_removal() -> None:
    from oo_nb.agent.context import build_context

    doc = Document.read(FIXTURE)
    doc = doc.edit_block(
        "oo-contract",
        lambda c: {**c, "research": {**c["research"], "required_sections": ["Overview"]}},
    )
    text = build_context(doc, today=date(2026, 12, 1)).user
    line = next(x for x in text.splitlines() if x.startswith("Sections the contract no longer"))
    assert "refs (" not in line and "recent-releases" in line
