"""The quote badges' rules, one by one (issue 28: found wanting by mutation testing): which hunks
get a badge, which facts flag a source, how many cited passages a paragraph shows, and that a
hand-edited cache or run record of any shape gives no badge rather than an error."""

from __future__ import annotations

from typing import Any

import pytest

from oo_nb.review.hunks import Hunk
from oo_nb.review.quotes import add_quote_badges, unsupported_ids

U1, U2 = "https://one.example/a", "https://two.example/b"
SOURCES = [{"id": "s1", "url": U1}, {"id": "s2", "url": U2}]
FOUND: dict[str, Any] = {
    "text": "Revenue rose 40%",
    "quote": "rose 40%",
    "quote_found": True,
    "source_ids": ["s2"],
}
MISSING: dict[str, Any] = {
    "text": "Staff fell to 90",
    "quote": "fell to 90",
    "quote_found": False,
    "source_ids": ["s1"],
}


def _para(html: str, kind: Any = "added", derived: bool = False) -> Hunk:
    return Hunk("h", 0, "article", kind, "T", after_html=html, after_text="x", derived=derived)


def _fact(text: str, kind: Any = "added") -> Hunk:
    return Hunk("f", 0, "facts", kind, "F", after_text=text)


def _badges(hunks: list[Hunk], before: Any, after: Any, run: Any = None) -> list[tuple[str, ...]]:
    return [h.badges for h in add_quote_badges(hunks, before, after, run)]


def test_only_new_facts_whose_quote_was_not_found_flag_their_sources() -> None:
    after = {"sources": SOURCES, "facts": [FOUND, MISSING]}
    assert unsupported_ids({"facts": []}, after) == {"s1"}
    # a fact already in the cache before this update is not this update's doing
    assert unsupported_ids({"facts": [MISSING]}, after) == set()
    paragraphs = [_para("<p>Cuts [s1].</p>"), _para("<p>Growth [s2].</p>")]
    assert _badges(paragraphs, {"facts": []}, after) == [
        ("quote not found for a fact citing s1",),
        (),
    ]
    assert _badges(paragraphs, {"facts": [MISSING]}, after) == [(), ()]


def test_a_paragraph_names_every_flagged_source_it_cites_once() -> None:
    missing2 = dict(MISSING, text="Sites closed: 3", source_ids=["s2", 5])
    after = {"sources": SOURCES, "facts": [MISSING, missing2]}
    hunk = _para("<p>Cuts [s2] and closures [s1][s2].</p>")
    assert _badges([hunk], {}, after) == [("quote not found for a fact citing s2, s1",)]


@pytest.mark.parametrize("kind", ["added", "changed"])
def test_added_and_changed_facts_and_paragraphs_get_badges(kind: str) -> None:
    after = {"sources": SOURCES, "facts": [FOUND, MISSING]}
    hunks = [_fact(FOUND["text"], kind), _fact(MISSING["text"], kind), _para("<p>[s1]</p>", kind)]
    assert _badges(hunks, {}, after) == [
        ("quote found",),
        ("quote not found",),
        ("quote not found for a fact citing s1",),
    ]


def test_removed_and_derived_hunks_get_no_badge() -> None:
    after = {"sources": SOURCES, "facts": [FOUND, MISSING]}
    hunks = [
        _fact(FOUND["text"], "removed"),
        _para("<p>[s1]</p>", derived=True),  # the References list follows the other decisions
        Hunk("r", 0, "article", "removed", "T", before_html="<p>[s1]</p>"),
    ]
    run = {"citations": [[U1, "Staff fell to ninety."]]}
    out = add_quote_badges(hunks, {}, after, run)
    assert [(h.badges, h.cited) for h in out] == [((), ())] * 3


def test_a_fact_without_a_yes_or_no_verdict_gets_no_badge() -> None:
    facts = [
        {"text": "a", "quote": "q", "quote_found": "yes"},  # hand-edited: not a verdict
        {"text": "b", "quote": "q"},  # not checked
        {"text": "c", "quote_found": True},  # no quote: nothing was checked
    ]
    hunks = [_fact("a"), _fact("b"), _fact("c"), _fact("not a fact")]
    assert _badges(hunks, {}, {"facts": facts}) == [(), (), (), ()]


def test_a_paragraph_shows_at_most_three_cited_passages_each_once() -> None:
    run = {
        "citations": [
            [U1, "first"],
            [U1, "first"],
            [U1 + "#frag", "second"],  # the same page (url_key)
            [U2, "third"],
            [U2, "fourth"],
            ["", "from no page"],
        ]
    }
    after = {"sources": SOURCES, "facts": []}
    (out,) = add_quote_badges([_para("<p>A [s1] and [s2] and [s9].</p>")], {}, after, run)
    assert out.badges == () and out.cited == ("[s1] first", "[s1] second", "[s2] third")


def test_a_source_cited_by_two_ids_shows_its_passage_under_each() -> None:
    sources = [{"id": "s1", "url": U1}, {"id": "s3", "url": U1}]
    run = {"citations": [[U1, "first"]]}
    (out,) = add_quote_badges([_para("<p>[s1] [s3]</p>")], {}, {"sources": sources}, run)
    assert out.cited == ("[s1] first", "[s3] first")


def test_a_paragraph_citing_a_source_without_a_page_shows_no_passage() -> None:
    # a citation saved without a URL names no page: it is not the page of an unknown source
    run = {"citations": [["", "from no page"], ["/", "root"]]}
    after = {"sources": [{"id": "s1", "url": ""}], "facts": []}
    (out,) = add_quote_badges([_para("<p>[s1] [s9]</p>")], {}, after, run)
    assert out.cited == ()


def test_a_cited_passage_is_cut_to_600_characters() -> None:
    long = "abcdefghij" * 70
    (out,) = add_quote_badges(
        [_para("<p>[s1]</p>")], {}, {"sources": SOURCES}, {"citations": [[U1, long]]}
    )
    assert out.cited == ("[s1] " + long[:599] + "…",)


@pytest.mark.parametrize(
    "cache",
    [
        None,
        ["facts"],
        {"facts": None, "sources": None},
        {"facts": {"text": "a"}, "sources": {"id": "s1", "url": U1}},
        {"facts": ["a", 3, None], "sources": ["s1", 3, {"id": 1, "url": U1}]},
        {"sources": [{"id": "s1", "url": 5}, {"id": "s1"}], "facts": [{"source_ids": "s1"}]},
    ],
)
def test_a_cache_of_any_shape_gives_no_badge_and_no_passage(cache: Any) -> None:
    hunks = [_fact("a"), _para("<p>[s1]</p>")]
    run = {"citations": [[U1, "text"]]}
    out = add_quote_badges(hunks, cache, cache, run)
    assert [(h.badges, h.cited) for h in out] == [((), ())] * 2


@pytest.mark.parametrize(
    "run", [None, [], {"citations": None}, {"citations": 5}, {"citations": {U1: "t"}}]
)
def test_a_run_record_of_any_shape_gives_no_passage(run: Any) -> None:
    after = {"sources": SOURCES, "facts": [MISSING]}
    (out,) = add_quote_badges([_para("<p>[s1]</p>")], {}, after, run)
    assert out.cited == () and out.badges == ("quote not found for a fact citing s1",)
