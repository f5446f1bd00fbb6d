"""``drop_sources``: a proposal may remove a cached source only when nothing cites it any more,
and the reviewer is told why a drop did not happen."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)


def _build(doc: Document, **over: Any) -> Candidate:
    raw: dict[str, Any] = {"summary": "update", "sections": []}
    raw.update(over)
    run = RunInfo(backend="anthropic", model="claude-test", seen_urls=set())
    return build_candidate(doc, validate_proposal(raw), run, today=TODAY, now=NOW)


def _ids(cand: Candidate) -> list[str]:
    return [s["id"] for s in cand.document.block_json("oo-source-cache")["sources"]]


def test_each_refused_drop_says_why(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")  # s1..s9, all cited
    cache = doc.block_json("oo-source-cache")
    cache["sources"].append({"id": "s10", "url": "https://fact-only.example/", "title": "t"})
    cache["facts"].append({"text": "kept by a fact", "source_ids": ["s10"]})
    cand = _build(doc.with_block("oo-source-cache", cache), drop_sources=["s1", "s10", "s77"])
    assert cand.sources_dropped == []
    assert "s1" in _ids(cand) and "s10" in _ids(cand)
    assert "s1 not dropped: the article still cites it" in cand.warnings
    assert "s10 not dropped: a fact still cites it" in cand.warnings
    assert "drop_sources names s77, which is not in the cache" in cand.notes


def test_dropping_one_of_two_cached_twins_drops_that_one(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    cache = doc.block_json("oo-source-cache")
    cache["sources"] += [
        {"id": "s10", "url": "https://uncited.example/a", "title": "never cited"},
        {"id": "s11", "url": "https://www.uncited.example/a/", "title": "the same page"},
    ]
    cand = _build(doc.with_block("oo-source-cache", cache), drop_sources=["s11"])
    assert cand.sources_dropped == ["s11"]  # twins are never merged by an update (issue 26)
    assert "s10" in _ids(cand) and "s11" not in _ids(cand)


def test_string_sources_are_never_dropped(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "anthropic-leadership.o-o.html")
    strings = ["anthropic.com - company page", "wikipedia.org - overview", "cnbc.com - board"]
    doc = doc.with_block("oo-source-cache", {"last_updated": None, "sources": strings, "facts": []})
    cand = _build(doc, drop_sources=["s3"])
    assert cand.document.block_json("oo-source-cache")["sources"][:3] == strings
    assert cand.warnings == [
        "s3 not dropped: this cache numbers its (string) sources by position, so removing one "
        "would change the others' ids"
    ]
