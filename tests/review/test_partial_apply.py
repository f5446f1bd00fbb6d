"""A partial review writes exactly what was accepted: for every mix of the article changes of a
synthetic update, the final article, sources and facts are those of an update that made only
the accepted changes; the changelog entry is the candidate's with the review's counts; the parts
of the document the review did not change keep their bytes, a block the document lacks is not
added, and no text citing a source nothing provides is ever the result."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from oo_nb.errors import ValidationError
from oo_nb.format.document import Document
from oo_nb.review.apply import build_final
from oo_nb.review.blocks import changelog_entries
from oo_nb.review.hunks import Choice
from oo_nb.review.session import ReviewSession
from tests.support.review_samples import Edits, synthetic_candidate
from tests.support.tiny_docs import NO_REFS, li, page, source, updated

S1, S2 = source(1), source(2)

# the article changes of a synthetic update: (kind, tag) of the article hunk deciding each
_CHANGES = {
    "change_at": ("changed", "p"),
    "remove_at": ("removed", "p"),
    "add_after": ("added", "p"),
    "image_after": ("added", "figure"),
}


# no two changes next to each other: where a new paragraph goes relative to a removed neighbour
# that the review keeps is a matter of alignment, not of the decisions
_FULL = Edits(change_at=0, add_after=1, remove_at=3, image_after=4)


def _only(names: set[str]) -> Edits:
    return Edits(**{k: getattr(_FULL, k) if k in names else None for k in _CHANGES})


def _article_hunk(session: ReviewSession, kind: str, tag: str) -> str:
    (hid,) = [
        h.id
        for h in session.diff.decidable
        if h.area == "article" and h.kind == kind and h.tag == tag
    ]
    return hid


def _sources(doc: Document) -> Any:
    return doc.block_json("oo-source-cache").get("sources")


def _facts(doc: Document) -> Any:
    return doc.block_json("oo-source-cache").get("facts")


@pytest.mark.parametrize("name", ["agi-declared.o-o.html", "anthropic-leadership.o-o.html"])
def test_each_mix_writes_exactly_the_accepted_changes(corpus_dir: Path, name: str) -> None:
    doc = Document.read(corpus_dir / name)
    cand, new_id = synthetic_candidate(doc, _FULL)
    session = ReviewSession(doc, cand)
    hunk_of = {k: _article_hunk(session, *v) for k, v in _CHANGES.items()}
    has_source_hunk = any(h.id == f"src:{new_id}" for h in session.diff.decidable)
    total = len(session.diff.decidable)
    entry_c = changelog_entries(cand.block_json("oo-changelog"))[-1]
    for flags in itertools.product((True, False), repeat=len(_CHANGES)):
        taken = {k for k, ok in zip(_CHANGES, flags, strict=True) if ok}
        session.reject_all()
        for k in taken:
            session.accept(hunk_of[k])
        if "add_after" in taken and has_source_hunk:
            session.accept(f"src:{new_id}")  # the new paragraph with its source
        result = session.result()
        final = result.document
        expected, _ = synthetic_candidate(doc, _only(taken))
        assert final.article_html == expected.article_html, taken
        assert _sources(final) == _sources(expected), taken
        assert _facts(final) == _facts(doc), taken
        accepted = len(taken) + ("add_after" in taken and has_source_hunk)
        assert (result.accepted, result.rejected, result.edited) == (
            accepted,
            total - accepted,
            0,
        )
        if not taken:
            assert final.to_bytes() == doc.to_bytes()
            continue
        # the blocks: the candidate's manifest (version, date), the original contract byte for
        # byte, and the candidate's changelog entry saying what the review rejected
        assert final.block_json("oo-manifest") == cand.block_json("oo-manifest")
        assert final.block_text("oo-contract") == doc.block_text("oo-contract")
        entries = changelog_entries(final.block_json("oo-changelog"))
        assert entries[:-1] == changelog_entries(doc.block_json("oo-changelog"))
        rejected = total - accepted
        if not rejected:  # everything accepted: the candidate as proposed
            assert final.to_bytes() == cand.to_bytes()
            continue
        summary = f"{entry_c['summary']} (Review: {rejected} of {total} proposed changes rejected.)"
        assert entries[-1] == {
            **entry_c,
            "summary": summary,
            "review": {"accepted": accepted, "rejected": rejected, "edited": 0},
            "sources_added": [new_id] if "add_after" in taken else [],
        }, taken


def _without(doc: Document, block: str) -> Document:
    text = re.sub(
        rf'<script id="{block}" type="application/json">.*?</script>\n',
        "",
        doc.text,
        count=1,
        flags=re.S,
    )
    assert text != doc.text
    return Document(text)


def test_a_block_the_document_lacks_is_not_added() -> None:
    paras = [("00000001", "Rise [s1]."), ("00000002", "Fall.")]
    doc, cand = page(paras, [S1]), updated([paras[0], ("00000002", "Fall further.")], [S1, S2])
    cand = cand.edit_block("oo-manifest", lambda m: m.update(title="Tides, revised"))  # rejected
    for block in ("oo-contract", "oo-changelog", "oo-source-cache"):
        session = ReviewSession(_without(doc, block), _without(cand, block))
        session.reject_all()
        session.accept(_article_hunk(session, "changed", "p"))  # s2, cited by nothing, rejected
        final = session.apply()
        assert not final.has_block(block) and "Fall further." in final.article_html
        assert final.block_json("oo-manifest")["title"] == "Tides"
        if block != "oo-source-cache":
            assert [s["id"] for s in _sources(final)] == ["s1"]


def test_the_final_text_never_cites_a_source_nothing_provides() -> None:
    """The last check before anything is written: text (here an edit that bypassed the session's
    own check) citing an id no source, reference or either version's text has is refused,
    naming the ids and the file."""
    doc = page([("00000001", "Rise [s1]."), ("00000002", "Fall.")], [S1, S2], refs=NO_REFS)
    cand = updated(
        [("00000001", "Rise [s1]."), ("00000002", "Fall further.")], [S1, S2], refs=NO_REFS
    )
    doc, cand = doc.with_path("tides.o-o.html"), cand.with_path("tides.o-o.html")
    diff = ReviewSession(doc, cand).diff
    ok = build_final(diff, {"a1": Choice("edit", "<p>Fall, as the second report says [s2].</p>")})
    assert "[s2]" in ok.document.article_html  # s2 is in the cache, though nothing cited it
    with pytest.raises(ValidationError) as err:
        build_final(diff, {"a1": Choice("edit", "<p>Fall [s12], and [s9] and [s99].</p>")})
    assert "cites s9, s12, s99, which no source provides" in str(err.value)
    assert err.value.file == "tides.o-o.html"
    # an id the References list alone provides (a document whose cache lists no source; the
    # browser numbers unnumbered items by position)
    refs = [li(source(1)), li(source(2))]
    doc = page(
        [("00000001", "Rise."), ("00000002", "Fall.")], [S1, S2], refs=refs, cache_sources=False
    )
    cand = updated(
        [("00000001", "Rise."), ("00000002", "Fall further.")],
        [S1, S2],
        refs=refs,
        cache_sources=False,
    )
    diff = ReviewSession(doc, cand).diff
    ok = build_final(diff, {"a1": Choice("edit", "<p>Fall, as the second report says [s2].</p>")})
    assert "[s2].</p>" in ok.document.article_html


def test_cited_ids_are_read_from_the_text_a_browser_shows() -> None:
    """Issue 26: a ">" inside a comment or an attribute value ends neither; "[sN]" there is
    no citation (a tag-stripping regex counted s2 and s3)."""
    from oo_nb.review.apply import cited_ids

    html = '<p>a [s1]</p><!-- x > [s2] --><p title="a > [s3]">b <b>[s4]</b></p>'
    assert cited_ids(html) == {"s1", "s4"}
