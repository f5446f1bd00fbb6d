"""A section with an empty heading (``<h2></h2>``, ``<h2> </h2>``: the page names it
"section-N", ``oo check`` calls the document valid) no longer blocks an update: its proposal
carries the empty title, which keeps the heading as written, and the edit is applied (every
Claude Code update failed with "must not be empty", naming no heading)."""

from __future__ import annotations

import re
from datetime import date

import pytest

from oo_nb.agent.backends.claude_code import proposal_from_copy
from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.demo import DATA_DIR
from oo_nb.errors import AgentError
from oo_nb.format.document import Document

RUN = RunInfo(backend="anthropic", model="claude-test", cost_usd=0.01)
EDITS = {
    "empty-heading section": ("uncertainty about grants", "uncertainty about grants, edited"),
    "another section": ("across European markets.", "across European markets, edited."),
}


def _empty_headings() -> Document:
    text = (DATA_DIR / "documents" / "heat-pumps-in-europe.o-o.html").read_text()
    for old, new in (
        ('<h2 id="key-details">Key Details</h2>', "<h2></h2>"),
        ('<h2 id="recent-developments">Recent Developments</h2>', "<h2> </h2>"),
    ):
        assert old in text
        text = text.replace(old, new, 1)
    return Document(text)


@pytest.mark.parametrize("where", list(EDITS))
def test_an_update_of_a_page_with_empty_headings_is_applied(where: str) -> None:
    doc = _empty_headings()
    old, new = EDITS[where]
    copy = Document(doc.text.replace(old, new, 1))
    proposal = validate_proposal(proposal_from_copy(doc, copy))
    after = build_candidate(doc, proposal, RUN, today=date(2026, 12, 1)).document.article_html
    assert new in after
    # the empty headings stay empty (one may get the id the page gives it, written)
    assert [re.sub(r' id="[^"]*"', "", h) for h in re.findall(r"<h2[^>]*>[^<]*</h2>", after)][
        1:3
    ] == ["<h2></h2>", "<h2> </h2>"]


def test_a_title_may_be_blank_but_not_missing() -> None:
    blank = {"summary": "s", "sections": [{"id": "a", "title": " ", "html": "<p>x</p>"}]}
    assert validate_proposal(blank).sections[0].title == " "
    with pytest.raises(AgentError, match="is required"):
        validate_proposal({"summary": "s", "sections": [{"id": "a", "html": "<p>x</p>"}]})


def test_a_new_section_with_a_blank_title_is_titled_by_its_id() -> None:
    doc = Document((DATA_DIR / "documents" / "heat-pumps-in-europe.o-o.html").read_text())
    raw = {"summary": "s", "sections": [{"id": "outlook", "title": "", "html": "<p>x [s1].</p>"}]}
    after = build_candidate(doc, validate_proposal(raw), RUN, today=date(2026, 12, 1))
    assert '<h2 id="outlook">outlook</h2>' in after.document.article_html
