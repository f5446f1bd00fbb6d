"""A section whose heading has no id (``<h2>Key Details</h2>``) is named by the id the page
script gives it: an update of that section edits it in place and writes the id on the heading,
the review shows a changed section, not an added one (attack round six, #6); an ``<h2>`` without
an id that Claude Code adds is a new section, not an ``<h3>`` of the one before (#17)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from oo_nb.agent.backends.claude_code import proposal_from_copy
from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.pricing import UsageFigures
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from oo_nb.format.update_scope import scope_problems
from oo_nb.review.diff import diff_documents

DEMO = Path(__file__).resolve().parents[2] / "oo_nb" / "demo" / "data" / "documents"
TODAY = date(2026, 12, 1)
RUN = RunInfo(
    backend="anthropic", model="claude-test", usage=UsageFigures(input_tokens=1, output_tokens=1),
    cost_usd=0.01, seen_urls=set(),
)  # fmt: skip
_H2 = re.compile(r"<h2[^>]*>[^<]*</h2>")


def _demo(edit: tuple[str, str] | None = None) -> Document:
    text = (DEMO / "heat-pumps-in-europe.o-o.html").read_text()
    if edit is not None:
        assert edit[0] in text
        text = text.replace(edit[0], edit[1], 1)
    return Document(text)


def test_an_update_of_a_section_without_an_id_edits_it_in_place() -> None:
    doc = _demo(('<h2 id="key-details">Key Details</h2>', "<h2>Key Details</h2>"))
    assert "key-details" in [s.id for s in doc.article.sections]
    proposal = validate_proposal(
        {
            "summary": "key details replaced",
            "sections": [
                {
                    "id": "key-details",
                    "title": "Key Details",
                    "html": "<p>Replaced key details [s1].</p>",
                }
            ],
        }
    )
    cand = build_candidate(doc, proposal, RUN, today=TODAY)
    assert cand.sections_replaced == ["key-details"] and cand.sections_added == []
    after = cand.document.article_html
    assert _H2.findall(after) == [
        '<h2 id="overview">Overview</h2>',
        '<h2 id="key-details">Key Details</h2>',  # the id the page gave it, now written
        '<h2 id="recent-developments">Recent Developments</h2>',
        '<h2 id="references">References</h2>',
    ]
    key = after[after.index('id="key-details"') : after.index('id="recent-developments"')]
    assert "Replaced key details [s1]." in key
    assert after.count("Replaced key details") == 1
    # the review: that section changed, nothing added
    hunks = [h for h in diff_documents(doc, cand.document).hunks if h.area == "article"]
    assert {h.section for h in hunks} == {"key-details"}
    assert not [h for h in hunks if h.kind == "added" and h.tag == "h2"]


def test_a_heading_claude_code_adds_without_an_id_is_a_new_section() -> None:
    original = _demo()
    outlook = "<h2>Outlook</h2>\n<p>Prices will fall [s1].</p>\n"
    edited = original.with_article(
        original.article_html.replace('<h2 id="references">', outlook + '<h2 id="references">', 1)
    )
    raw = proposal_from_copy(original, edited)
    assert [(s["id"], s["title"]) for s in raw["sections"]] == [("outlook", "Outlook")]
    cand = build_candidate(original, validate_proposal(raw), RUN, today=TODAY)
    assert cand.sections_added == ["outlook"] and cand.sections_replaced == []
    after = cand.document.article_html
    assert '<h2 id="outlook">Outlook</h2>' in after
    assert "<h3>Outlook</h3>" not in after
    assert [s.id for s in cand.document.article.sections if s.level == 2] == [
        "overview", "key-details", "recent-developments", "outlook", "references",
    ]  # fmt: skip


def test_the_id_written_is_in_the_update_scope_when_it_starts_with_a_digit() -> None:
    """A saved proposal is checked against the update scope when reviewed: the id the page gives
    "2026 Outlook" (``2026-outlook``) written on its heading is no change beyond an update."""
    doc = _demo(('<h2 id="key-details">Key Details</h2>', "<h2>2026 Outlook</h2>"))
    edit = {"id": "2026-outlook", "title": "2026 Outlook", "html": "<p>New [s1].</p>"}
    proposal = validate_proposal({"summary": "s", "sections": [edit]})
    cand = build_candidate(doc, proposal, RUN, today=TODAY)
    assert cand.sections_replaced == ["2026-outlook"]
    assert '<h2 id="2026-outlook">2026 Outlook</h2>' in cand.document.article_html
    assert scope_problems(doc, cand.document) == []


def test_renaming_a_heading_without_an_id_renames_the_section_in_place() -> None:
    """Claude Code renames ``<h2>Overview</h2>`` (the page names it ``overview``): the same
    section under a new title, its paragraphs and pids kept, never a second "Overview now"
    section beside the old one (attack s36, #5). The document is the attack's reproducer."""
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "edits"
    original = Document((fixture / "rename-heading-without-id.o-o.html").read_text())
    before = original.article_html
    edited = original.with_article(before.replace("<h2>Overview</h2>", "<h2>Overview now</h2>"))
    raw = proposal_from_copy(original, edited)
    assert "drop_sections" not in raw
    cand = build_candidate(original, validate_proposal(raw), RUN, today=TODAY)
    assert cand.sections_replaced == ["overview"] and cand.sections_added == []
    after = cand.document.article_html
    # cmp: only the heading changed (its id, which the page gave it, now written)
    assert after == before.replace("<h2>Overview</h2>", '<h2 id="overview">Overview now</h2>')
