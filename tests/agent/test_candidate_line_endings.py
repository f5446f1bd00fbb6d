"""What an update writes into the article takes the article's line ending: an article written
with CRLF inside an LF page (the page's own newline is LF) gets CRLF for an added paragraph and
an added section too, not LF lines among CRLF ones; what it did not change keeps its bytes."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest

from oo_nb.agent.backends.claude_code import split_sections
from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.demo import DATA_DIR
from oo_nb.format.document import Document

LONE_LF = re.compile(r"(?<!\r)\n")


def _crlf_article() -> Document:
    doc = Document.read(DATA_DIR / "documents" / "heat-pumps-in-europe.o-o.html")
    span = doc.article_span
    assert span is not None and doc.newline == "\n"
    article = doc.text[span.start : span.end].replace("\n", "\r\n")
    return Document(doc.text[: span.start] + article + doc.text[span.end :])


def _article(doc: Document) -> str:
    assert doc.article_span is not None
    return doc.text[doc.article_span.start : doc.article_span.end]


@pytest.mark.parametrize("where", ["paragraph", "section"])
def test_added_text_takes_the_articles_crlf(where: str) -> None:
    doc = _crlf_article()
    assert doc.newline == "\n" and doc.article_newline == "\r\n"
    title, body = split_sections(doc.article_model)["overview"]
    section = (
        {"id": "overview", "title": title, "html": body + "\n<p>Added [s2].</p>"}
        if where == "paragraph"
        else {"id": "outlook", "title": "Outlook", "html": "<p>Added [s2].</p>\n<p>More.</p>"}
    )
    raw = {"summary": "added", "sections": [section]}
    run = RunInfo(backend="anthropic", model="claude-test", cost_usd=0.01)
    new = build_candidate(
        doc, validate_proposal(raw), run,
        today=date(2026, 12, 1), now=datetime(2026, 12, 1, tzinfo=UTC),
    ).document  # fmt: skip
    assert "Added [s2]." in _article(new)
    assert LONE_LF.findall(_article(new)) == []
    assert new.text[: new.article_span.start] == doc.text[: doc.article_span.start]  # type: ignore[union-attr]
