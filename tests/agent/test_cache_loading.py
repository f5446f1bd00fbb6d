"""The source cache an update starts from: no cached source is lost or changes meaning (twin ids
are renumbered, odd ids are kept), cited sources missing from the cache are recovered from the
References list, recovered sources are verified only when this run saw their page, and a broken
cache is reported with the file it is in."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.errors import ValidationError
from oo_nb.format.document import Document

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)


def _build(doc: Document, *seen: str, **over: Any) -> Candidate:
    raw: dict[str, Any] = {"summary": "update", "sections": []}
    raw.update(over)
    run = RunInfo(backend="anthropic", model="claude-test", seen_urls=set(seen))
    return build_candidate(doc, validate_proposal(raw), run, today=TODAY, now=NOW)


def _yc(corpus_dir: Path, sources: list[Any] | None = None) -> Document:
    """The YC document (s1..s9 cached, References by position), optionally another cache."""
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    if sources is None:
        return doc
    return doc.with_block(
        "oo-source-cache", {"last_updated": None, "sources": sources, "facts": []}
    )


def _cached(cand: Candidate) -> list[tuple[str, str]]:
    return [(s["id"], s["url"]) for s in cand.document.block_json("oo-source-cache")["sources"]]


def test_twin_ids_mid_cache_lose_nothing(corpus_dir: Path) -> None:
    doc = _yc(corpus_dir)
    cache = doc.block_json("oo-source-cache")
    cache["sources"][3:3] = [{"id": "s3", "url": "https://twin.example/", "title": "twin"}]
    cache["sources"].append({"id": "s10", "url": "https://after.example/", "title": "after"})
    cache["sources"].append({"id": "s1", "url": "https://twin-2.example/", "title": "twin 2"})
    cand = _build(doc.with_block("oo-source-cache", cache))
    cached = dict(_cached(cand))
    assert cached["s10"] == "https://after.example/"  # an item after a twin keeps its id
    assert cached["s11"] == "https://twin.example/"  # each twin gets the next free id
    assert cached["s12"] == "https://twin-2.example/"
    assert cached["s3"] == doc.source_cache.by_id()["s3"].url  # s3 keeps its meaning
    assert len(cached) == 12
    assert [w for w in cand.warnings if "twice" in w] == [
        "the source cache held s3 twice: the second one is now s11",
        "the source cache held s1 twice: the second one is now s12",
    ]


def test_cited_sources_are_recovered_from_references_by_position(corpus_dir: Path) -> None:
    doc = _yc(corpus_dir, sources=[])
    refs = doc.article.references
    assert refs and all(r.source_id is None for r in refs)  # numbered by position only
    seen = refs[1].url  # the run saw the page of s2 (only)
    cand = _build(doc, seen)
    cache = cand.document.block_json("oo-source-cache")["sources"]
    assert [(s["id"], s["url"]) for s in cache] == [(f"s{r.position}", r.url) for r in refs]
    assert [s["title"] for s in cache] == [r.title for r in refs]
    assert [s["id"] for s in cache if s["verified"]] == ["s2"]
    assert any(f"{len(refs)} cited source(s) recovered" in n for n in cand.notes)


def test_cited_sources_are_recovered_from_references_by_label(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "anthropic-leadership.o-o.html")  # empty cache
    refs = {r.source_id: r for r in doc.article.references}
    assert "s3" in refs
    cand = _build(doc, refs["s3"].url.replace("https://www.", "http://"))
    by_id = {s["id"]: s for s in cand.document.block_json("oo-source-cache")["sources"]}
    assert by_id["s3"]["url"] == refs["s3"].url and by_id["s3"]["verified"] is True
    assert by_id["s1"]["verified"] is False


def test_a_source_id_not_of_the_sn_form_is_kept_and_so_is_its_twin(
    corpus_dir: Path,
) -> None:
    doc = _yc(corpus_dir)
    cache = doc.block_json("oo-source-cache")
    cache["sources"] += [
        {"id": "smith-2020", "url": "https://smith.example/paper", "title": "Smith"},
        {"id": "jones", "url": "https://jones.example/", "title": "Jones"},
        {"id": "s10", "url": "https://smith.example/paper/", "title": "Smith again"},
    ]
    cand = _build(
        doc.with_block("oo-source-cache", cache),
        sources=[{"id": "s11", "url": "https://new.example/", "title": "New"}],
        sections=[{"id": "overview", "title": "Overview", "html": "<p>New [s11].</p>"}],
    )
    cached = _cached(cand)
    assert ("jones", "https://jones.example/") in cached
    assert ("s10", "https://smith.example/paper/") in cached  # the article can cite [s10]
    assert "smith-2020" in dict(cached)  # one URL under two ids: never merged by an update
    assert cached[-1] == ("s11", "https://new.example/")


def test_a_broken_cache_is_reported_with_its_file(corpus_dir: Path) -> None:
    doc = _yc(corpus_dir)
    cache = doc.block_json("oo-source-cache")
    cache["sources"] = {"s1": "not a list"}
    with pytest.raises(ValidationError) as caught:
        _build(doc.with_block("oo-source-cache", cache))
    assert caught.value.file == doc.file
    assert str(caught.value).startswith(f"{doc.file}: block oo-source-cache")


def test_recovery_skips_what_is_cached_or_unsafe_and_goes_on(corpus_dir: Path) -> None:
    doc = _yc(corpus_dir)
    first = doc.block_json("oo-source-cache")["sources"][0]
    refs = doc.article.references
    html = doc.article_html.replace(f'href="{refs[1].url}"', 'href="javascript:alert(1)"', 1)
    html = html.replace(refs[2].title, "T" * 600, 1)
    html = html.replace("[s1]", "[s1] [s40]", 1)  # cited, in neither the cache nor References
    doc = doc.with_article(html).with_block(
        "oo-source-cache", {"last_updated": None, "sources": [first], "facts": []}
    )
    cand = _build(doc)
    by_id = {s["id"]: s for s in cand.document.block_json("oo-source-cache")["sources"]}
    assert by_id["s1"] == first  # the cached one is kept as it was
    assert "s2" not in by_id and "s40" not in by_id  # an unsafe URL is not recovered
    assert [f"s{n}" for n in range(3, 10)] == [k for k in by_id if k not in ("s1",)]
    assert by_id["s3"]["title"] == "T" * 499 + "…"
    assert by_id["s4"]["url"] == refs[3].url
    assert any(n.startswith("7 cited source(s) recovered") for n in cand.notes)


def test_cached_sources_are_never_merged_by_an_update(corpus_dir: Path) -> None:
    doc = _yc(corpus_dir)
    cache = doc.block_json("oo-source-cache")
    s2 = cache["sources"][1]
    # a twin of s2 (issue 26: an update merging it rewrote paragraphs it did not touch)
    cache["sources"][1:1] = [{"id": "s12", "url": s2["url"] + "#again", "title": "dup"}]
    cache["sources"] += [
        {"id": "s10", "title": "A printed book"},
        {"id": "s11", "title": "Another printed book"},
        {"id": "s13", "url": "mailto:a@b.example", "title": "Letter"},
        {"id": "s14", "url": "mailto:a@b.example", "title": "Same letter"},
    ]
    cand = _build(doc.with_block("oo-source-cache", cache))
    ids = [s["id"] for s in cand.document.block_json("oo-source-cache")["sources"]]
    assert {"s10", "s11", "s12", "s13", "s14", "s2"} <= set(ids)
    assert not [n for n in cand.notes if "merged" in n]


def test_a_string_source_whose_position_id_is_taken_is_kept_and_named(corpus_dir: Path) -> None:
    doc = _yc(corpus_dir, sources=[{"id": "s2", "url": "https://a.example/", "title": "A"}])
    doc = doc.with_block(
        "oo-source-cache",
        {"sources": [{"id": "s2", "url": "https://a.example/", "title": "A"}, "A string source"]},
    )  # the string is the second item, so its id is s2 too
    cand = _build(doc)
    raw = cand.document.block_json("oo-source-cache")["sources"]
    assert "A string source" in raw and raw[0]["url"] == "https://a.example/"
    twins = [w for w in cand.warnings if "twice" in w]
    assert len(twins) == 1 and twins[0].startswith("the source cache held s2 twice:")
