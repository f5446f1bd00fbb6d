"""What happens to each source a proposal adds. Rejected sources are reported with their id, the
reason and the URL, and every citation of them disappears cleanly. A source whose page is
already cached becomes that cached id, and is marked verified when this run saw the page. A new
source gets the next free id; it is verified only when this run saw its page."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from tests.support.tiny_docs import NO_REFS, page

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)


def _build(doc: Document, *seen: str, **over: Any) -> Candidate:
    raw: dict[str, Any] = {"summary": "update", "sections": []}
    raw.update(over)
    run = RunInfo(backend="anthropic", model="claude-test", seen_urls=set(seen))
    return build_candidate(doc, validate_proposal(raw), run, today=TODAY, now=NOW)


def _section(html: str, sid: str = "overview") -> list[dict[str, str]]:
    return [{"id": sid, "title": "Overview", "html": html}]


def _sources(cand: Candidate) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in cand.document.block_json("oo-source-cache")["sources"]}


def _paragraph(cand: Candidate, start: str) -> str:
    html = cand.document.article_html
    at = html.index(start)
    return html[at : html.index("</p>", at)]


def test_rejected_sources_are_reported_and_their_citations_removed_cleanly(
    corpus_dir: Path,
) -> None:
    doc = Document.read(corpus_dir / "anthropic-leadership.o-o.html")  # https only, no reddit
    hostile = "javascript:" + "a" * 200
    cand = _build(
        doc,
        sections=_section("<p>Start A [s40] B [s41] C [s42] D [s43] E [s99] end.</p>"),
        sources=[
            {"id": "s40", "url": hostile, "title": "x"},
            {"id": "s41", "url": "http://plain.example/a", "title": "p"},
            {"id": "s42", "url": "https://old.Reddit.com/r/x", "title": "r"},
            {"id": "s43", "url": "HTTPS://fine.example/a", "title": "Fine"},
        ],
        facts=[{"text": "A fact", "source_ids": ["s40", "s43", "s41"]}],
    )
    assert cand.warnings[:3] == [
        f"source s40 rejected (its URL is not an absolute http(s) URL): {hostile[:119]}…",
        "source s41 rejected (the contract requires https): http://plain.example/a",
        "source s42 rejected (reddit.com is on the contract's deny list): https://old.Reddit.com/r/x",
    ]
    new_id = cand.sources_added[0]
    assert _paragraph(cand, "<p>Start") == f"<p>Start A B C D [{new_id}] E end."
    facts = cand.document.block_json("oo-source-cache")["facts"]
    assert facts == [{"text": "A fact", "source_ids": [new_id]}]
    assert set(_sources(cand)[new_id]) >= {"url", "title"}
    assert _sources(cand)[new_id]["url"] == "HTTPS://fine.example/a"  # HTTPS in capitals is https


def test_http_is_accepted_when_the_contract_allows_it(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")  # require_https is off
    cand = _build(
        doc,
        sections=_section("<p>Plain [s20].</p>"),
        sources=[{"id": "s20", "url": "http://plain.example/a", "title": "Plain"}],
    )
    assert _sources(cand)["s10"]["url"] == "http://plain.example/a"
    assert "<p>Plain [s10].</p>" in cand.document.article_html


def test_a_source_already_cached_becomes_the_cached_id(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    cache = doc.block_json("oo-source-cache")
    s1, s2, s3 = (cache["sources"][i] for i in range(3))
    s2["verified"] = True  # verified by an earlier run
    s3["verified"] = False
    cand = _build(
        doc.with_block("oo-source-cache", cache),
        s1["url"],  # this run saw s1's page only
        sections=_section("<p>Again [s20] [s21] [s22] [s3].</p>"),
        sources=[
            {"id": "s20", "url": s1["url"] + "/", "title": "t", "accessed": "2026-02-20"},
            {"id": "s21", "url": s2["url"] + "#x", "title": "t", "accessed": "2030-01-01"},
            {"id": "s22", "url": s3["url"], "title": "t"},
            {"id": "s3", "url": s3["url"], "title": "t"},
        ],
    )
    assert "<p>Again [s1] [s2] [s3] [s3].</p>" in cand.document.article_html
    assert cand.sources_added == [] and cand.unverified == []
    got = _sources(cand)
    assert (got["s1"]["verified"], got["s2"]["verified"], got["s3"]["verified"]) == (
        True,  # seen now
        True,  # seen before, still verified
        False,  # seen neither now nor before
    )
    assert got["s1"]["accessed"] == "2026-02-20"
    assert got["s2"]["accessed"] == TODAY.isoformat()  # never in the future
    assert got["s3"]["accessed"] == s3["accessed"]  # no date given: unchanged
    notes = [n for n in cand.notes if "has the same URL as" in n]
    assert notes == [
        "source s20 has the same URL as s1: citations use s1",
        "source s21 has the same URL as s2: citations use s2",
        "source s22 has the same URL as s3: citations use s3",
    ]


def test_two_new_sources_for_one_page_become_one(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    url = "https://new.example/page"
    cand = _build(
        doc,
        url,
        sections=_section("<p>One [s30] two [s31].</p>"),
        sources=[
            {"id": "s30", "url": url, "title": "First", "accessed": "2026-02-01"},
            {
                "id": "s31",
                "url": "http://www.new.example/page/",
                "title": "Second",
                "accessed": "2026-02-15",  # the first one's date stays
            },
        ],
    )
    assert cand.sources_added == ["s10"]
    assert "<p>One [s10] two [s10].</p>" in cand.document.article_html
    assert _sources(cand)["s10"] == {
        "id": "s10",
        "url": url,
        "title": "First",
        "accessed": "2026-02-01",
        "verified": True,
    }


def test_new_sources_are_numbered_titled_and_verified(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")  # s1..s9
    cand = _build(
        doc,
        "https://seen.example/a?utm_source=feed",
        sections=_section("<p>New [s3] [s50] [s10].</p>"),
        sources=[
            {
                "id": "s3",
                "url": "https://seen.example/a",
                "title": "<b>Seen</b> page",
                "tier": " <i>primary</i> ",
            },
            {"id": "s50", "url": "https://unseen.example/b", "title": "<script>x</script>"},
            {"id": "s10", "url": "https://other.example/c", "title": "T" * 400},
        ],
    )
    assert cand.sources_added == ["s10", "s11", "s12"]
    assert "<p>New [s10] [s11] [s12].</p>" in cand.document.article_html
    got = _sources(cand)
    assert got["s10"] == {
        "id": "s10",
        "url": "https://seen.example/a",
        "title": "Seen page",
        "tier": "primary",
        "accessed": TODAY.isoformat(),
        "verified": True,
    }
    # an empty title falls back to the address
    assert "unseen.example/b" in got["s11"]["title"] and "tier" not in got["s11"]
    assert got["s11"]["verified"] is False and got["s12"]["verified"] is False
    assert got["s12"]["title"] == "T" * 400  # a long title is kept whole
    assert cand.unverified == ["s11", "s12"]
    assert (
        "source s11 is UNVERIFIED: its URL did not appear in this run's search or fetch "
        "results: https://unseen.example/b"
    ) in cand.warnings
    notes = [n for n in cand.notes if n.startswith("new source")]
    assert notes == [
        "new source s3 (already used by another source) numbered s10; the proposal's citations follow",
        "new source s50 numbered s11; the proposal's citations follow",
        # by now s10 is the first new source
        "new source s10 (already used by another source) numbered s12; the proposal's citations follow",
    ]


def test_a_long_new_fact_is_kept_whole(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    text = "word " * 150 + "end"  # 753 characters, under the proposal's 1000
    cand = _build(doc, facts=[{"text": text, "source_ids": ["s1"]}])
    facts = cand.document.block_json("oo-source-cache")["facts"]
    assert facts[-1] == {"text": text, "source_ids": ["s1"]}


def test_text_that_normalising_lengthens_is_still_cut_to_the_limits(corpus_dir: Path) -> None:
    """U+0958 becomes two characters under NFC: the proposal's caps hold for what is stored."""
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    grows = "\u0958"
    cand = _build(
        doc,
        sections=_section("<p>New [s10].</p>"),
        sources=[
            {"id": "s10", "url": "https://a.example/x", "title": grows * 500, "tier": grows * 60}
        ],
        facts=[{"text": grows * 1000, "source_ids": ["s10"]}],
    )
    got = _sources(cand)["s10"]
    assert (len(got["title"]), len(got["tier"])) == (500, 60)
    assert len(cand.document.block_json("oo-source-cache")["facts"][-1]["text"]) == 1000


def test_the_first_source_of_a_document_without_any_is_s1_titled_by_its_address() -> None:
    doc = page([("0a0b0c0d", "Intro.")], refs=NO_REFS)
    cand = _build(
        doc,
        sections=_section("<p>New [s4] [s5].</p>", "tides"),
        sources=[
            {"id": "s4", "url": "https://Fine.example/a/?utm_source=x", "title": "<b></b>"},
            {"id": "s5", "url": "https://root.example", "title": "<i></i>"},
        ],
    )
    assert cand.sources_added == ["s1", "s2"]
    # an empty title falls back to the address without its tracking parameters
    assert _sources(cand)["s1"]["title"] == "//fine.example/a"
    assert _sources(cand)["s2"]["title"] == "//root.example/"


def test_a_string_fact_cache_gets_string_facts_without_unknown_sources(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "agi-declared.o-o.html")
    cand = _build(doc, facts=[{"text": "A new fact.", "source_ids": ["s1", "s99", "s1"]}])
    facts = cand.document.block_json("oo-source-cache")["facts"]
    assert facts[-1] == "A new fact. [s1]"
    assert "facts[0] names unknown or rejected source s99: link removed" in cand.warnings


def _collision_doc() -> Document:
    from tests.support.tiny_docs import source

    return page(
        [
            ("0a0b0c01", "Heat pumps give three units of heat [s1][s2]."),
            ("0a0b0c02", "Grants [s1]."),
        ],
        [source(1, "IEA"), source(2, "EHPA")],
    )


def test_a_new_source_under_a_taken_id_never_re_points_a_kept_citation() -> None:
    """The proposal declares its installer survey as s1 (the IEA's id), keeps the first
    paragraph's [s1] and cites the survey in a new paragraph: the survey is s3, cited by the new
    paragraph only; the kept claim still cites the IEA."""
    cand = _build(
        _collision_doc(),
        sections=_section(
            "<!-- pid:tides:0a0b0c01 --><p>Heat pumps give three to four units of heat [s1][s2].</p>"
            "<p>Installers say stable grants matter [s1].</p>",
            "tides",
        ),
        sources=[{"id": "s1", "url": "https://survey.example/a", "title": "Installer survey"}],
    )
    html = cand.document.article_html
    assert "three to four units of heat [s1][s2].</p>" in html
    assert "Installers say stable grants matter [s3].</p>" in html
    assert _sources(cand)["s1"]["title"] == "IEA"
    assert _sources(cand)["s3"]["url"] == "https://survey.example/a"


def test_a_new_source_under_a_taken_id_is_refused_when_its_citations_cannot_be_told_apart() -> None:
    """A kept paragraph now citing [s1] twice where it cited it once: one is old, one new, and
    which is which is unknown. The new source is refused, named, and [s1] stays the IEA."""
    cand = _build(
        _collision_doc(),
        sections=_section(
            "<!-- pid:tides:0a0b0c01 --><p>Heat pumps give three units of heat [s1][s2]; installers "
            "agree [s1].</p>",
            "tides",
        ),
        sources=[{"id": "s1", "url": "https://survey.example/a", "title": "Installer survey"}],
    )
    assert cand.sources_added == []
    assert "installers agree [s1].</p>" in cand.document.article_html
    assert set(_sources(cand)) == {"s1", "s2"}
    assert any(
        w.startswith(
            "new source s1 rejected (https://survey.example/a): s1 is already https://example.org/1"
        )
        for w in cand.warnings
    ), cand.warnings
