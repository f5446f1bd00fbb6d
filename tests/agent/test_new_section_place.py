"""A new section goes where the agent wrote it: Claude Code's edited copy with a section
between Overview and Key Details gives a proposal that places it after Overview, and the
candidate writes it there (it was written last, before References, whatever the copy said).
A proposal that names no place, or a section the article lacks, keeps the old rule."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from oo_nb.agent.backends.claude_code import proposal_from_copy
from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.demo import DATA_DIR
from oo_nb.format.document import Document

RUN = RunInfo(backend="anthropic", model="claude-test", cost_usd=0.01)
_H2_ID = re.compile(r'<h2 id="([^"]+)"')
NEW = '<h2 id="outlook">Outlook</h2>\n<p>New text [s2].</p>\n\n'


def _demo() -> Document:
    return Document.read(DATA_DIR / "documents" / "heat-pumps-in-europe.o-o.html")


def _order(doc: Document) -> list[str]:
    return _H2_ID.findall(doc.article_html)


def _build(doc: Document, raw: dict[str, Any]) -> Document:
    return build_candidate(doc, validate_proposal(raw), RUN, today=date(2026, 12, 1)).document


def test_a_section_added_mid_article_is_written_where_the_agent_put_it() -> None:
    doc = _demo()
    copy = Document(doc.text.replace('<h2 id="key-details">', NEW + '<h2 id="key-details">', 1))
    raw = proposal_from_copy(doc, copy)
    assert raw["sections"] == [
        {"id": "outlook", "title": "Outlook", "html": "<p>New text [s2].</p>", "after": "overview"}
    ]
    assert _order(_build(doc, raw)) == [
        "overview", "outlook", "key-details", "recent-developments", "references"
    ]  # fmt: skip


def test_two_new_sections_in_a_row_keep_their_order() -> None:
    doc = _demo()
    second = '<h2 id="later">Later</h2>\n<p>Later text [s1].</p>\n\n'
    copy = Document(
        doc.text.replace('<h2 id="key-details">', NEW + second + '<h2 id="key-details">', 1)
    )
    assert _order(_build(doc, proposal_from_copy(doc, copy))) == [
        "overview", "outlook", "later", "key-details", "recent-developments", "references"
    ]  # fmt: skip


@pytest.mark.parametrize("after", [None, "no-such-section", "references"])
def test_no_known_place_is_before_references(after: str | None) -> None:
    section = {"id": "outlook", "title": "Outlook", "html": "<p>New text [s2].</p>"}
    if after is not None:
        section["after"] = after
    doc = _build(_demo(), {"summary": "s", "sections": [section]})
    assert _order(doc)[-2:] == ["outlook", "references"]


def test_the_place_survives_the_pending_proposal_file() -> None:
    raw = {
        "summary": "s",
        "sections": [{"id": "a", "title": "A", "html": "<p>x</p>", "after": "b"}],
    }
    proposal = validate_proposal(raw)
    assert proposal.sections[0].after == "b"
    assert validate_proposal(proposal.to_json()) == proposal
    plain = validate_proposal(
        {"summary": "s", "sections": [{"id": "a", "title": "A", "html": "x"}]}
    )
    assert "after" not in plain.to_json()["sections"][0]
