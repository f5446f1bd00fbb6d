"""Block fields and facts in a partial review: an accepted removal removes the field (at any
depth), an accepted addition creates what it needs, a rejected one leaves the field as it was;
each fact follows its own decision (a move, a change, a removal), a new fact needs its sources
kept, and the review says which new facts it left out."""

from __future__ import annotations

from typing import Any

from oo_nb.format.document import Document
from oo_nb.review.apply import ApplyResult
from oo_nb.review.session import ReviewSession
from tests.support.tiny_docs import page, source, updated

S1, S2, S3 = source(1), source(2), source(3)
PARAS = [("00000001", "Rise [s1]."), ("00000002", "Fall [s2].")]


def _decide(session: ReviewSession, accept: set[str]) -> ApplyResult:
    for h in session.diff.decidable:
        (session.accept if h.id in accept else session.reject)(h.id)
    return session.result()


def _fields(cand: Document) -> Document:
    """The update removes a top-level manifest field and nested contract fields, adds a field
    under an object the contract does not have, and revises the first paragraph."""

    def manifest(m: dict[str, Any]) -> None:
        del m["update_every_days"]

    def contract(c: dict[str, Any]) -> None:
        del c["identity"]["tone"]
        del c["research"]["source_policy"]["deny_domains"]
        c["review"] = {"cadence": "monthly"}

    return cand.edit_block("oo-manifest", manifest).edit_block("oo-contract", contract)


def test_field_removals_and_additions_follow_their_decisions() -> None:
    doc = page(PARAS, [S1, S2])
    cand = _fields(updated([("00000001", "Rise higher [s1]."), PARAS[1]], [S1, S2]))
    session = ReviewSession(doc, cand)
    fields = {
        "manifest:update_every_days",
        "contract:identity.tone",
        "contract:research.source_policy.deny_domains",
        "contract:review.cadence",
    }
    assert fields <= {h.id for h in session.diff.decidable}
    final = _decide(session, fields).document
    assert "Rise [s1]." in final.article_html
    manifest, contract = final.block_json("oo-manifest"), final.block_json("oo-contract")
    assert "update_every_days" not in manifest and manifest["version"] == 2
    assert "tone" not in contract["identity"] and contract["identity"]["subject"] == "Tides"
    assert contract["review"] == {"cadence": "monthly"}
    assert contract["research"]["source_policy"] == {"prefer_domains": []}
    assert contract == cand.block_json("oo-contract")
    # rejected: each stays as it was
    final = _decide(session, {"a1"}).document
    assert final.block_json("oo-manifest")["update_every_days"] == 7
    assert final.block_json("oo-contract") == doc.block_json("oo-contract")
    assert final.block_text("oo-contract") == doc.block_text("oo-contract")


F1 = {"key": "k1", "value": "high tide 06:00", "source": "s3"}
F2 = {"key": "k2", "value": "low tide 12:00", "source": "s4"}
F3 = {"key": "k3", "value": "range 4 m", "source": "s5"}
F4 = {"key": "k4", "value": "spring tide", "source": "s6"}
S3_6 = [source(n) for n in (3, 4, 5, 6)]
OLD = {"key": "k0", "value": "tide tables", "source": "s1"}
OLD2 = {"key": "k9", "value": "harbour gauge", "source": "s2"}


def test_each_fact_follows_its_own_decision_and_keeps_its_source() -> None:
    """The update drops s3-s6, the sources only the facts name, revises one fact and moves
    another. The review accepts the drops but not the fact changes: the facts stay as they
    were, where they were, and so do the sources they name (a fact is left out for its source
    only when it is new)."""
    doc = page(PARAS, [S1, S2, *S3_6], facts=[F1, F2, F3, F4])
    f2_new = {**F2, "value": "low tide 12:30"}
    cand = updated(
        [("00000001", "Rise higher [s1]."), PARAS[1]], [S1, S2], facts=[F1, f2_new, F4, F3]
    )
    cand = cand.edit_block("oo-manifest", lambda m: m.update(title="Tides, revised"))  # rejected
    session = ReviewSession(doc, cand)
    change = next(h.id for h in session.diff.decidable if h.area == "facts" and not h.moved)
    move = next(h.id for h in session.diff.decidable if h.area == "facts" and h.moved)
    drops = {f"src:s{n}" for n in (3, 4, 5, 6)}
    result = _decide(session, {"a1", *drops})
    cache = result.document.block_json("oo-source-cache")
    assert cache["facts"] == [F1, F2, F3, F4]
    assert cache["sources"] == [S1, S2, *S3_6]
    assert [n for n in result.notes if "fact" in n] == [
        f"source s{n} kept (before the update): a kept fact names it" for n in (3, 4, 5, 6)
    ]
    result = _decide(session, {"a1", *drops, move})
    cache = result.document.block_json("oo-source-cache")
    assert cache["facts"] == [F1, F2, F4, F3] and cache["sources"] == [S1, S2, *S3_6]
    result = _decide(session, {"a1", *drops, move, change})
    cache = result.document.block_json("oo-source-cache")
    assert cache["facts"] == [F1, f2_new, F4, F3] and cache["sources"] == [S1, S2, *S3_6]


def test_a_new_fact_needs_its_source_and_the_review_names_the_one_it_leaves_out() -> None:
    long_fact = {
        "text": "Die Flut über den Kai erreichte zweimal in einer Woche mehr als je gemessen",
        "source_ids": ["s3"],
    }
    short_fact = "Neap tides are calmer, and the harbour stays dry then!! [s3]"  # 60 characters
    longer_fact = "Neap tides are calmer, and the harbour stays dry then!!! [s3]"  # 61
    kept = {"key": "k5", "value": "ebb at 18:00", "source": "s2"}
    doc = page(PARAS, [S1, S2], facts=[OLD])
    cand = updated(
        [*PARAS, ("00000003", "Ebb [s3].")],
        [S1, S2, S3],
        facts=[OLD, long_fact, short_fact, longer_fact, kept],
    )
    session = ReviewSession(doc, cand)
    facts = [h.id for h in session.diff.decidable if h.area == "facts"]
    assert len(facts) == 4 and (len(short_fact), len(longer_fact)) == (60, 61)
    result = _decide(session, set(facts))  # the facts taken, s3 and its paragraph not
    assert result.document.block_json("oo-source-cache")["facts"] == [OLD, kept]
    # each fact cut to 60 characters, "…" included (vocab.truncate)
    assert [n for n in result.notes if "fact" in n] == [
        'new fact not kept: its source is not kept ({"text": "Die Flut über den Kai erreichte zweimal in einer…)',
        f"new fact not kept: its source is not kept ({short_fact})",
        f"new fact not kept: its source is not kept ({longer_fact[:59]}…)",
    ]
    # with s3 taken, every fact stays
    result = _decide(session, {*facts, "src:s3", "a3"})
    assert result.document.block_json("oo-source-cache")["facts"] == [
        OLD,
        long_fact,
        short_fact,
        longer_fact,
        kept,
    ]


def test_facts_where_the_cache_had_none_and_all_facts_removed() -> None:
    f5 = {"key": "k5", "value": "neap tide", "source": "s2"}
    doc = page(PARAS, [S1, S2], facts=None)  # a cache without a facts list
    cand = updated([("00000001", "Rise higher [s1]."), PARAS[1]], [S1, S2], facts=[f5])
    session = ReviewSession(doc, cand)
    fact = next(h.id for h in session.diff.decidable if h.area == "facts")
    assert _decide(session, {fact}).document.block_json("oo-source-cache")["facts"] == [f5]
    assert "facts" not in _decide(session, {"a1"}).document.block_json("oo-source-cache")
    # every fact removed and the removals accepted: none is left
    doc = page(PARAS, [S1, S2], facts=[OLD, OLD2])
    cand = updated([("00000001", "Rise higher [s1]."), PARAS[1]], [S1, S2], facts=[])
    session = ReviewSession(doc, cand)
    facts = {h.id for h in session.diff.decidable if h.area == "facts"}
    assert _decide(session, facts).document.block_json("oo-source-cache")["facts"] == []


def test_a_fact_the_review_keeps_keeps_the_source_it_names() -> None:
    """The update drops s1 with the text and the fact that named it. Accepting the source's and
    the text's removal but rejecting the fact's would leave a fact naming a source the cache no
    longer has (an audit warning): s1 stays while a kept fact names it, as it would for text,
    and goes with the fact."""
    f1 = {"key": "k1", "value": "high tide 06:00", "source": "s1"}
    f2 = {"key": "k2", "value": "neap tide", "source": "s2"}
    doc = page(PARAS, [S1, S2], facts=[f1, f2])
    cand = updated([("00000001", "Rise."), PARAS[1]], [S2], facts=[f2])
    session = ReviewSession(doc, cand)
    fact = next(h.id for h in session.diff.decidable if h.area == "facts")
    result = _decide(session, {"a1", "src:s1"})
    final = result.document
    assert final.block_json("oo-source-cache")["facts"] == [f1, f2]
    assert [s["id"] for s in final.block_json("oo-source-cache")["sources"]] == ["s1", "s2"]
    assert "Rise.</p>" in final.article_html and "example.org/1" in final.article_html
    assert "source s1 kept (before the update): a kept fact names it" in result.notes
    final = _decide(session, {"a1", "src:s1", fact}).document
    assert final.block_json("oo-source-cache")["facts"] == [f2]
    assert [s["id"] for s in final.block_json("oo-source-cache")["sources"]] == ["s2"]
