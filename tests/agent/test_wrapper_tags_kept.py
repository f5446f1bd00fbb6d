"""A proposal that changes the structure around blocks (a paragraph moved into a ``<div>``
with its own attributes) cannot be spliced block by block inside the wrapper: the splice
that rewrites the blocks it holds would write the ``<div>`` back as the sanitiser leaves it,
without its ``style``. Either every kept wrapper's tags keep their bytes, or the section is
refused with a warning naming the element: never a silent rewrite (s36-splice, left over)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from oo_nb.agent.backends.claude_code import proposal_from_copy
from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.pricing import UsageFigures
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.errors import AgentError
from oo_nb.format.document import Document

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "containers" / "div-with-attributes.o-o.html"
)
RUN = RunInfo(
    backend="claude-code", model="claude-test", usage=UsageFigures(input_tokens=1, output_tokens=1),
    cost_usd=0.01, seen_urls=set(),
)  # fmt: skip
START = '<div style="border:1px solid red" onclick="x()">'
FIRST_END = "not current.)</p></div>"
SECOND_END = "in buildings [s3].</p>"


def test_a_paragraph_moved_into_a_div_keeps_its_tags_or_is_refused() -> None:
    doc = Document(FIXTURE.read_text())
    text = doc.article_html
    assert text.count(FIRST_END) == text.count(SECOND_END) == 1
    moved = text.replace(FIRST_END, "not current.)</p>").replace(SECOND_END, SECOND_END + "</div>")
    raw = proposal_from_copy(doc, doc.with_article(moved))
    try:
        cand = build_candidate(doc, validate_proposal(raw), RUN, today=date(2026, 12, 1))
    except AgentError as refused:  # (the only section changed was refused: nothing to write)
        assert "(overview)" in str(refused) and "<div>" in str(refused)
        return
    after = cand.document.article_html
    assert START in after  # (main wrote it back as a bare <div>)
    if after == text:
        assert any("<div>" in w and "overview" in w for w in cand.warnings), cand.warnings
