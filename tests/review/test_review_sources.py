"""Sources in a partial review: a source's record and its References item follow the decision on
that source, a new source follows the text that cites it, and the References list is rebuilt
from the kept items in the original's order (matched by link, not by position), whatever else
the document holds (sources known only from the list, no list at all, text after the list)."""

from __future__ import annotations

from typing import Any

from oo_nb.format.document import Document
from oo_nb.review.apply import ApplyResult
from oo_nb.review.session import ReviewSession
from oo_nb.review.units import split_units
from tests.support.tiny_docs import NO_REFS, li, page, source, updated

S1, S2, S3, S4 = (source(n) for n in (1, 2, 3, 4))


def _decide(session: ReviewSession, accept: set[str]) -> ApplyResult:
    """Accept the hunks in ``accept`` (by id, or ``pid:XXXXXXXX`` for an article unit), reject
    every other one."""
    for h in session.diff.decidable:
        key = f"pid:{h.pid.rsplit(':', 1)[-1]}" if h.pid else h.id
        (session.accept if key in accept or h.id in accept else session.reject)(h.id)
    result = session.result()
    assert result.accepted == len(accept) and result.rejected == len(session.diff.decidable) - len(
        accept
    )
    return result


def _refs(doc: Document) -> list[str]:
    """The References items as written."""
    units, _ = split_units(doc.article_html)
    body = next(u.body for u in units if u.is_references)
    return [line for line in body.splitlines() if line.startswith("<li")]


def _cache(doc: Document) -> list[Any]:
    return list(doc.block_json("oo-source-cache")["sources"])


def test_a_source_edit_follows_its_own_decision() -> None:
    revised = source(2, "Report 2, corrected title")
    doc = page([("00000001", "Rise [s1]."), ("00000002", "Fall [s2].")], [S1, S2])
    cand = updated([("00000001", "Rise higher [s1]."), ("00000002", "Fall [s2].")], [S1, revised])
    session = ReviewSession(doc, cand)
    # the text taken, the source's edit rejected: its record and its item stay as they were
    final = _decide(session, {"pid:00000001"}).document
    assert "Rise higher [s1]." in final.article_html
    assert _cache(final) == [S1, S2] and _refs(final) == [li(S1), li(S2)]
    # the source's edit taken, the text rejected
    final = _decide(session, {"src:s2"}).document
    assert "Rise [s1]." in final.article_html and "Rise higher" not in final.article_html
    assert _cache(final) == [S1, revised] and _refs(final) == [li(S1), li(revised)]


def test_removing_the_last_source_leaves_none() -> None:
    doc = page([("00000001", "Rise [s1]."), ("00000002", "Fall.")], [S1])
    cand = updated([("00000001", "Rise."), ("00000002", "Fall and rise.")], [])
    result = _decide(ReviewSession(doc, cand), {"pid:00000001", "src:s1"})
    final = result.document
    assert "Fall." in final.article_html and "Fall and rise" not in final.article_html
    assert _cache(final) == [] and _refs(final) == []


def test_a_dropped_and_a_new_source_decided_apart() -> None:
    """The original lists its references in another order than its cache; items are matched by
    their link, so the right item goes with its source."""
    paras = [("00000001", "One [s1]."), ("00000002", "Two [s2]."), ("00000003", "Three [s3].")]
    doc = page(paras, [S1, S2, S3], refs=[li(S3), li(S1), li(S2)])
    cand = updated(
        [*paras[:2], ("00000003", "Three."), ("00000004", "Four [s4].")],
        [S1, S2, S4],
        refs=[li(S1), li(S2), li(S4)],
    )
    session = ReviewSession(doc, cand)
    # s3 dropped with its citation, s4 and its paragraph rejected
    final = _decide(session, {"pid:00000003", "src:s3"}).document
    assert _refs(final) == [li(S1), li(S2)]
    assert _cache(final) == [S1, S2] and "Four" not in final.article_html
    # s3 kept (its removal rejected), s4 and its paragraph taken
    final = _decide(session, {"pid:00000004", "src:s4"}).document
    assert _refs(final) == [li(S3), li(S1), li(S2), li(S4)]
    assert _cache(final) == [S1, S2, S3, S4] and "Three [s3]." in final.article_html
    # s3's removal accepted but the text citing it kept: s3 stays, and the review says why
    result = _decide(session, {"src:s3"})
    assert _cache(result.document) == [S1, S2, S3] and "Three [s3]." in result.document.article_html
    assert _refs(result.document) == [li(S3), li(S1), li(S2)]
    assert result.notes == ("source s3 kept (before the update): kept text cites it",)


def test_sources_known_only_from_a_numbered_references_list() -> None:
    """A document whose cache lists no source: the References items (``[sN] …``) are its
    sources, and a new item follows the text that cites it."""
    refs = [li(S1, numbered=True), li(S2, numbered=True)]
    doc = page(
        [("00000001", "Rise [s1]."), ("00000002", "Fall [s2].")],
        [S1, S2],
        refs=refs,
        cache_sources=False,
    )
    cand = updated(
        [("00000001", "Rise higher [s1]."), ("00000002", "Fall [s2]."), ("00000003", "Ebb [s3].")],
        [S1, S2, S3],
        refs=[*refs, li(S3, numbered=True)],
        cache_sources=False,
    )
    session = ReviewSession(doc, cand)
    result = _decide(session, {"pid:00000003"})
    assert _refs(result.document) == [*refs, li(S3, numbered=True)]
    assert not result.notes
    result = _decide(session, {"pid:00000001"})
    assert _refs(result.document) == refs
    assert result.notes == ("new source s3 not kept: no kept text or fact cites it",)
    # an old source is no new one: kept although no kept text cites it any more (the update
    # moved its only citation into a paragraph the review rejected)
    cand2 = updated(
        [
            ("00000001", "Rise [s1]."),
            ("00000002", "Fall."),
            ("00000003", "Ebb [s2]."),
            ("00000004", "Neap [s3]."),
        ],
        [S1, S2, S3],
        refs=[*refs, li(S3, numbered=True)],
        cache_sources=False,
    )
    result = _decide(ReviewSession(doc, cand2), {"pid:00000002"})
    assert "Fall.</p>" in result.document.article_html and "Ebb" not in result.document.article_html
    assert _refs(result.document) == refs
    assert result.notes == ("new source s3 not kept: no kept text or fact cites it",)


def test_a_document_without_a_references_list() -> None:
    doc = page([("00000001", "Rise [s1]."), ("00000002", "Fall.")], [S1], refs=NO_REFS)
    cand = updated(
        [("00000001", "Rise [s1]."), ("00000002", "Fall again."), ("00000003", "Ebb.")],
        [S1],
        refs=NO_REFS,
    )
    session = ReviewSession(doc, cand)
    final = _decide(session, {"pid:00000003"}).document
    assert "Ebb." in final.article_html and "Fall again" not in final.article_html
    assert _cache(final) == [S1] and 'id="references"' not in final.article_html
    final = _decide(session, {"pid:00000002"}).document
    assert "Fall again." in final.article_html and "Ebb." not in final.article_html


def test_text_after_the_references_list_is_kept() -> None:
    notes = (
        '\n<!-- pid:notes:00000000 -->\n<h2 id="notes">Notes</h2>\n'
        "\n<!-- pid:notes:00000001 -->\n<p>Measured at noon.</p>\n"
    )
    doc = page([("00000001", "Rise [s1].")], [S1], tail=notes)
    cand = updated(
        [("00000001", "Rise higher [s1]."), ("00000002", "Ebb [s2].")], [S1, S2], tail=notes
    )
    session = ReviewSession(doc, cand)
    for accept in ({"pid:00000001"}, {"pid:00000002", "src:s2"}):
        final = _decide(session, accept).document
        assert final.article_html.endswith(notes), accept


def test_a_cache_without_a_sources_list_or_with_sources_as_text() -> None:
    """Older caches: no ``sources`` key (the References list is all there is), or sources written
    as plain strings (ids by position)."""
    refs = [li(S1, numbered=True)]
    doc = page([("00000001", "Rise [s1]."), ("00000002", "Fall.")], [S1], refs=refs)
    doc = doc.edit_block("oo-source-cache", lambda c: c.pop("sources") and None)
    cand = updated(
        [("00000001", "Rise higher [s1]."), ("00000002", "Fall."), ("00000003", "Ebb [s2].")],
        [S1, S2],
        refs=[*refs, li(S2, numbered=True)],
    )
    cand = cand.edit_block("oo-source-cache", lambda c: c.pop("sources") and None)
    session = ReviewSession(doc, cand)
    final = _decide(session, {"pid:00000001"}).document
    assert "sources" not in final.block_json("oo-source-cache") and _refs(final) == refs
    final = _decide(session, {"pid:00000003"}).document
    assert _refs(final) == [*refs, li(S2, numbered=True)]

    as_text = ["Report 1, example.org", "Report 2, example.org"]
    doc = page([("00000001", "Rise [s1]."), ("00000002", "Fall [s2].")], [S1, S2])
    doc = doc.edit_block("oo-source-cache", lambda c: c.update(sources=as_text))
    cand = updated([("00000001", "Rise higher [s1]."), ("00000002", "Fall.")], [S1])
    cand = cand.edit_block("oo-source-cache", lambda c: c.update(sources=as_text[:1]))
    session = ReviewSession(doc, cand)
    final = _decide(session, {"pid:00000001"}).document
    assert _cache(final) == as_text and "Fall [s2]." in final.article_html
    final = _decide(session, {"pid:00000002", "src:s2"}).document
    assert _cache(final) == as_text[:1] and _refs(final) == [li(S1)]


def test_sources_with_names_for_ids() -> None:
    """Ids need not be ``sN`` (a cache may name its sources); such a source follows its own
    decision like any other."""
    noaa = {**source(9, "Tide tables"), "id": "noaa"}
    doc = page([("00000001", "Rise [s1]."), ("00000002", "Fall.")], [S1, noaa])
    cand = updated([("00000001", "Rise higher [s1]."), ("00000002", "Fall.")], [S1])
    session = ReviewSession(doc, cand)
    final = _decide(session, {"pid:00000001"}).document
    assert _cache(final) == [S1, noaa] and "Rise higher" in final.article_html
    final = _decide(session, {"src:noaa"}).document
    assert _cache(final) == [S1] and "Rise [s1]." in final.article_html


def test_a_new_source_cited_only_in_upper_case_follows_the_text_that_cites_it() -> None:
    """The page links "[S3]" to entry 3: a kept paragraph citing the new s3 only so keeps s3,
    even with the source itself rejected (the review says why)."""
    paras = [("00000001", "Rise [s1]."), ("00000002", "Fall [s2].")]
    doc = page(paras, [S1, S2])
    cand = updated([*paras, ("00000003", "Ebb [S3].")], [S1, S2, S3])
    result = _decide(ReviewSession(doc, cand), {"pid:00000003"})
    assert "Ebb [S3]." in result.document.article_html
    assert _cache(result.document) == [S1, S2, S3]
    assert _refs(result.document) == [li(S1), li(S2), li(S3)]
    assert result.notes == ("source s3 kept (after the update): kept text cites it",)
