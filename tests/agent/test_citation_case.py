"""A citation is read as the page links it: "[S3]" cites s3 as "[s3]" does (vocab.CITATION).
So an update counts it, removes it with a rejected source and renumbers it with a renumbered
one, and a source cited only as "[S3]" is not dropped."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from tests.support.tiny_docs import page, source

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)


def _build(doc: Document, **over: Any) -> Candidate:
    raw: dict[str, Any] = {"summary": "update", "sections": []}
    raw.update(over)
    run = RunInfo(backend="anthropic", model="claude-test", seen_urls=set())
    return build_candidate(doc, validate_proposal(raw), run, today=TODAY, now=NOW)


def _ids(cand: Candidate) -> list[str]:
    return [s["id"] for s in cand.document.block_json("oo-source-cache")["sources"]]


def _doc() -> Document:
    return page(
        [("0a0b0c01", "Tides rise [s1][s2]."), ("0a0b0c02", "Moons pull [S3].")],
        [source(1), source(2), source(3)],
    )


def test_a_source_cited_only_in_upper_case_is_cited_and_not_dropped() -> None:
    doc = _doc()
    assert "s3" in doc.article.cited_ids
    cand = _build(doc, drop_sources=["s3"])
    assert cand.sources_dropped == []
    assert "s3" in _ids(cand)
    assert "s3 not dropped: the article still cites it" in cand.warnings


def test_an_upper_case_citation_of_a_rejected_source_is_removed() -> None:
    cand = _build(
        _doc(),
        sections=[{"id": "tides", "title": "Tides", "html": "<p>New claim [S4] and [s1].</p>"}],
        sources=[{"id": "s4", "url": "javascript:alert(1)", "title": "bad"}],
    )
    assert "<p>New claim and [s1].</p>" in cand.document.article_html
    assert "[S4]" not in cand.document.article_html
    assert any("cited unknown or rejected source(s) s4" in w for w in cand.warnings)


def test_an_upper_case_citation_of_a_renumbered_source_follows_it() -> None:
    """The proposal's s5 is rejected and its s6 numbered s4: "[S6]" becomes "[s4]", and "[S5]"
    goes with its source rather than pointing at whatever entry 5 becomes."""
    cand = _build(
        _doc(),
        sections=[
            {"id": "tides", "title": "Tides", "html": "<p>Survey [S5]. Tariffs [S6] [s6].</p>"}
        ],
        sources=[
            {"id": "s5", "url": "javascript:alert(1)", "title": "bad"},
            {"id": "s6", "url": "https://tariffs.example/a", "title": "Tariffs"},
        ],
    )
    assert cand.sources_added == ["s4"]
    assert "<p>Survey. Tariffs [s4] [s4].</p>" in cand.document.article_html
