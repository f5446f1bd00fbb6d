"""Two cached sources that name the same page (``url_key``) both stay through an update: the
article, the cached facts and the proposal's citations keep their ids (issue 26). A fact must
never end up pointing at a removed id."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.sources import remap_citations
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)


def _build(doc: Document, **over: Any) -> Candidate:
    raw: dict[str, Any] = {"summary": "update", "sections": []}
    raw.update(over)
    run = RunInfo(backend="anthropic", model="claude-test", seen_urls=set())
    return build_candidate(doc, validate_proposal(raw), run, today=TODAY, now=NOW)


def _doc_with_duplicate(corpus_dir: Path, facts: list[Any]) -> Document:
    """The YC document (s1..s9) with s10, the page of s2 written another way, and ``facts``."""
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    cache = doc.block_json("oo-source-cache")
    s2 = cache["sources"][1]
    assert s2["id"] == "s2"
    dup = s2["url"].replace("https://www.", "http://") + "/?utm_source=feed"
    cache["sources"].append({"id": "s10", "url": dup, "title": "the same page"})
    cache["facts"] = facts
    return doc.with_block("oo-source-cache", cache)


FACTS: list[Any] = [
    "Both ids named [s10] [s2]",
    "Only the duplicate [s10]",
    {"text": "c", "source_ids": ["s10", "s2", "s3"]},
]


def test_cached_twins_and_the_facts_citing_them_stay_as_they_are(corpus_dir: Path) -> None:
    """Issue 26: an update never merges two cached ids of one page (merging rewrote untouched
    paragraphs and turned an entry into "source removed"); only a reviewed edit may."""
    doc = _doc_with_duplicate(corpus_dir, FACTS)
    cand = _build(doc)
    cache = cand.document.block_json("oo-source-cache")
    assert cache["facts"] == FACTS
    assert {"s2", "s10"} <= {s["id"] for s in cache["sources"]}


def test_the_proposal_citing_a_cached_twin_keeps_its_id(corpus_dir: Path) -> None:
    doc = _doc_with_duplicate(corpus_dir, [])
    cand = _build(
        doc,
        sections=[{"id": "new-sec", "title": "New", "html": "<p>From the old id [s10].</p>"}],
        facts=[{"text": "Cites both twins", "source_ids": ["s10", "s2"]}],
    )
    assert "<p>From the old id [s10].</p>" in cand.document.article_html
    assert cand.document.block_json("oo-source-cache")["facts"] == [
        {"text": "Cites both twins", "source_ids": ["s10", "s2"]}
    ]
    assert not any("unknown or rejected" in w for w in cand.warnings)


def test_a_proposed_fact_already_cached_is_not_added_twice(corpus_dir: Path) -> None:
    """Case, spacing and citation markers do not make a fact new."""
    doc = _doc_with_duplicate(corpus_dir, ["Revenue  grew\tfast [s10]", {"text": "Two  founders"}])
    cand = _build(
        doc,
        facts=[
            {"text": "revenue grew FAST", "source_ids": ["s3"]},
            {"text": "two founders [s4]"},
            {"text": "A new fact", "source_ids": ["s3"]},
            {"text": "a  NEW fact"},
        ],
    )
    facts = cand.document.block_json("oo-source-cache")["facts"]
    assert facts == [
        "Revenue  grew\tfast [s10]",
        {"text": "Two  founders"},
        {"text": "A new fact", "source_ids": ["s3"]},
    ]


def test_a_source_only_a_fact_cites_is_not_dropped(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    cache = doc.block_json("oo-source-cache")
    cache["sources"].append({"id": "s10", "url": "https://only-a-fact.example/", "title": "t"})
    cache["sources"].append({"id": "s11", "url": "https://nobody.example/", "title": "t"})
    cache["facts"].append({"key": "k", "value": "v", "source": "s10"})
    doc = doc.with_block("oo-source-cache", cache)
    cand = _build(doc, drop_sources=["s10", "s11"])
    ids = [s["id"] for s in cand.document.block_json("oo-source-cache")["sources"]]
    assert "s10" in ids and "s11" not in ids
    assert cand.sources_dropped == ["s11"]
    assert any(w == "s10 not dropped: a fact still cites it" for w in cand.warnings)


def test_renumbering_leaves_other_citations_as_they_are() -> None:
    text, removed = remap_citations("A [s1] B [s2] C [s3].", {"s2": "s5", "s3": None})
    assert (text, removed) == ("A [s1] B [s5] C.", ["s3"])
