"""Issue 26: sections split where a browser splits them, and sources sharing one URL survive an
unrelated update. A ``--!>`` ends a comment (HTML's "incorrectly closed comment"), so the
``<h2>`` after it starts a section; two ids of one URL are neither merged nor rewritten."""

from __future__ import annotations

import difflib
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.sections import split_article
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from oo_nb.review.session import ReviewSession
from tests.support.tiny_docs import page

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)
TWO_SECTIONS = (
    '\n<!-- pid:tides:00000000 -->\n<h2 id="tides">Tides</h2>\n'
    "<!-- pid:tides:00000001 -->\n<p>One.</p>\n"
    "<!-- a note --!>\n"
    '<h2 id="key-details">Key details</h2>\n'
    "<!-- pid:key-details:00000002 -->\n<p>Two.</p>\n"
)


def _build(doc: Document, **over: Any) -> Candidate:
    raw: dict[str, Any] = {"summary": "update", "sections": []}
    raw.update(over)
    run = RunInfo(backend="anthropic", model="claude-test", seen_urls=set())
    return build_candidate(doc, validate_proposal(raw), run, today=TODAY, now=NOW, pid_seed="x")


def test_a_comment_closed_by_dash_dash_bang_ends_before_the_next_section() -> None:
    assert [c.id for c in split_article(TWO_SECTIONS)] == [None, "tides", "key-details"]


def test_an_update_of_the_section_before_keeps_the_next_one_and_the_review_says_so() -> None:
    doc = page([]).with_article(TWO_SECTIONS)
    section = {"id": "tides", "title": "Tides", "html": "<p>One, revised.</p>"}
    cand = _build(doc, sections=[section]).document
    assert (
        '<h2 id="key-details">Key details</h2>\n<!-- pid:key-details:00000002 -->\n<p>Two.</p>'
        in (cand.article_html)
    )
    article = [h for h in ReviewSession(doc, cand).diff.decidable if h.area == "article"]
    assert article and not [h for h in article if h.whole_section or h.section != "tides"]


def _one_url_under_two_ids(corpus_dir: Path) -> Document:
    """yc-w26-batch with s7 naming s3's page (its cache item and its References entry)."""
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    cache = doc.block_json("oo-source-cache")
    s3, s7 = (next(s for s in cache["sources"] if s["id"] == i) for i in ("s3", "s7"))
    html = doc.article_html.replace(f'href="{s7["url"]}"', f'href="{s3["url"]}"')
    s7["url"] = s3["url"]
    return doc.with_block("oo-source-cache", cache).with_article(html)


def test_one_url_under_two_ids_survives_an_unrelated_update(corpus_dir: Path) -> None:
    doc = _one_url_under_two_ids(corpus_dir)
    new = {"id": "outlook", "title": "Outlook", "html": "<p>Demo Day is in March [s1].</p>"}
    cand = _build(doc, sections=[new])
    before, after = doc.article_html.splitlines(), cand.document.article_html.splitlines()
    ops = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    assert [op for op, *_ in ops if op != "equal"] == ["insert"]  # the new section, nothing else
    ids = [s["id"] for s in cand.document.block_json("oo-source-cache")["sources"]]
    assert "s3" in ids and "s7" in ids
    assert not [n for n in [*cand.notes, *cand.warnings] if "merged" in n]
    review = ReviewSession(doc, cand.document)
    assert not [h for h in review.hunks if h.area == "sources" and h.kind == "removed"]
