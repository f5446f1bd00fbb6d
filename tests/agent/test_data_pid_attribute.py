"""Paragraphs whose pid is a ``data-pid`` attribute, the form the page script writes (s36
attack, row 10): ``vocab.bound_pid`` reads ``data-pid="a:1"`` as the pid ``pid:a:1``, so
``oo check`` calls none malformed, and an edit of one keeps its pid (written as the pid comment
the page binds back to the same attribute), not a new random one."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from oo_nb.agent.backends.claude_code import proposal_from_copy
from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.pricing import UsageFigures
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.check import check_path
from oo_nb.format.document import Document

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pids" / "data-pid-attribute.o-o.html"
RUN = RunInfo(
    backend="claude-code", model="claude-test", usage=UsageFigures(input_tokens=1, output_tokens=1),
    cost_usd=0.01, seen_urls=set(),
)  # fmt: skip
OLD = "across European markets."
NEW = "across European markets, and it was edited."


def test_check_reads_a_data_pid_as_a_wellformed_pid() -> None:
    doc = Document(FIXTURE.read_text())
    assert "pid:overview:ecfcac73" in doc.article.pids
    assert [f.message for f in check_path(FIXTURE) if "pid" in f.code] == []


def test_an_edit_keeps_the_data_pid_of_the_paragraph_it_edits() -> None:
    doc = Document(FIXTURE.read_text())
    edited = doc.with_article(doc.article_html.replace(OLD, NEW, 1))
    raw = proposal_from_copy(doc, edited)
    cand = build_candidate(doc, validate_proposal(raw), RUN, today=date(2026, 12, 1))
    after = cand.document.article_html
    assert "<!-- pid:overview:ecfcac73 -->\n<p>This document follows" in after
    assert NEW in after
    untouched = '<p data-pid="overview:030632e6">A heat pump moves heat'
    assert untouched in after
    assert after.count("pid:overview:") == 1  # (no new pid minted for either paragraph)
    pids = [p.pid for p in cand.document.article.paragraphs if p.section == "overview"]
    assert pids == ["pid:overview:ecfcac73", "pid:overview:030632e6"]
