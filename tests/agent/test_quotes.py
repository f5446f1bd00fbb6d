"""Quotes checked in the loop (issue 16): a fact's quote is looked up in the text this run read
from the fact's own sources; the verdict is stored on the fact, warned about, kept with a saved
proposal, and bad quotes cost the fact its quote, never the proposal."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.backends.claude_code import parse_output
from oo_nb.agent.candidate import build_candidate, unsupported_quotes
from oo_nb.agent.pending import open_review
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.quotes import MAX_PAGE_CHARS, PageTexts, normalise, quote_hits
from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from tests.support.agent_helpers import MARKER, copy_doc, start_mock
from tests.support.mock_scenarios import FOUND_QUOTE, MISSING_QUOTE, research_scenario

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)


def test_matching_ignores_case_spacing_quote_marks_and_dashes_only() -> None:
    page = "The agency said the \u201cfirst  phase\u201d\nis complete \u2014 on schedule."
    assert normalise(page) == normalise(
        'the agency said the "FIRST phase" is complete - on schedule.'
    )
    assert normalise("It\u2019s done") == normalise("it's done")
    assert normalise(page) != normalise("The agency said the first phase is complete on schedule.")


def _facts(result: Any) -> list[dict[str, Any]]:
    cache = result.candidate.document.block_json("oo-source-cache")
    return [f for f in cache["facts"] if isinstance(f, dict) and "quote" in f]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_both_verdicts_end_to_end_through_the_mock(tmp_path: Path, stream: bool) -> None:
    mock = start_mock(research_scenario(with_image=False, unsupported_quote=True))
    try:
        path = copy_doc(tmp_path)
        opts = UpdateOptions(
            force=True, agent="anthropic", api_key=MARKER, base_url=mock.base_url, stream=stream
        )
        result = prepare_update(path, opts)
    finally:
        mock.stop()
    assert any(r.stream == stream for r in mock.message_requests)
    found, missing = _facts(result)
    assert found["quote"] == FOUND_QUOTE and found["quote_found"] is True
    assert found["quote_url"].startswith("https://news.example.com/")
    assert missing["quote"] == MISSING_QUOTE and missing["quote_found"] is False
    assert "quote_url" not in missing
    assert unsupported_quotes(result.candidate) == ["A second phase starts next year."]
    assert any(w.startswith("unsupported fact: facts[1]") for w in result.warnings)
    assert not any("facts[0]" in w for w in result.warnings)

    # saved and rebuilt for the review: the verdicts travel with the proposal, not the pages
    write_result(result, yes=False)
    review = open_review(path)
    facts = review.candidate.block_json("oo-source-cache")["facts"]
    verdicts = [f.get("quote_found") for f in facts if isinstance(f, dict) and "quote" in f]
    assert verdicts == [True, False]
    assert any("unsupported fact" in w for w in review.run["warnings"])


def _doc(corpus_dir: Path) -> Document:
    return Document.read(corpus_dir / "yc-w26-batch.o-o.html")


def _run(pages: PageTexts, quotes: list[str], *seen: str) -> RunInfo:
    run = RunInfo(backend="anthropic", model="claude-sonnet-5-5", seen_urls=set(seen))
    run.quote_hits = quote_hits(quotes, pages)
    return run


A = "https://a.example.com/report"
B = "https://b.example.com/other"


def _proposal(quote: Any, cites: list[str]) -> Any:
    return validate_proposal(
        {
            "summary": "update",
            "sections": [{"id": "q", "title": "Q", "html": "<p>Claim [s90] [s91].</p>"}],
            "sources": [
                {"id": "s90", "url": A, "title": "A"},
                {"id": "s91", "url": B, "title": "B"},
            ],
            "facts": [{"text": "The widget shipped in March", "source_ids": cites, "quote": quote}],
        }
    )


def test_a_quote_from_a_page_the_fact_does_not_cite_is_not_found(corpus_dir: Path) -> None:
    pages = PageTexts()
    pages.add(B, "Only page B says that the widget shipped in March.")
    quote = "the widget shipped in March"
    cand = build_candidate(
        _doc(corpus_dir),
        _proposal(quote, ["s90"]),
        _run(pages, [quote], A, B),
        today=TODAY,
        now=NOW,
    )
    fact = cand.document.block_json("oo-source-cache")["facts"][-1]
    assert fact["quote_found"] is False and cand.unsupported == ["The widget shipped in March"]
    assert any("only in a page the fact does not cite" in w for w in cand.warnings)
    # the same quote, the fact citing B: found, and where
    cand = build_candidate(
        _doc(corpus_dir),
        _proposal(quote, ["s91"]),
        _run(pages, [quote], A, B),
        today=TODAY,
        now=NOW,
    )
    fact = cand.document.block_json("oo-source-cache")["facts"][-1]
    assert fact["quote_found"] is True and fact["quote_url"] == B


@pytest.mark.parametrize(
    ("quote", "problem"),
    [
        (["a", "list"], "is array, not text"),
        ({"nested": 1}, "is object, not text"),
        (42, "is number, not text"),
        ("x" * 5_000, "5,000 characters"),
        ("yes", "too short"),
    ],
)
def test_a_bad_quote_is_dropped_with_a_clear_problem_and_the_fact_kept(
    quote: Any, problem: str
) -> None:
    p = _proposal(quote, ["s90"])
    assert p.facts[0].text == "The widget shipped in March" and p.facts[0].quote == ""
    assert len(p.quote_problems) == 1 and problem in p.quote_problems[0]
    assert p.quote_problems[0].startswith("facts[0].quote")
    assert "quote" not in p.to_json()["facts"][0]  # the saved proposal does not carry it


def test_page_text_is_bounded_and_a_quote_past_the_cap_is_not_found() -> None:
    pages = PageTexts()
    pages.add(A, "a" * (MAX_PAGE_CHARS + 10) + " the tail sentence is here.")
    assert len(pages.pages[next(iter(pages.pages))]) <= MAX_PAGE_CHARS
    assert pages.clipped is False or pages.total <= MAX_PAGE_CHARS + 1
    assert pages.found_in("the tail sentence is here") == []


def test_a_new_paragraph_citing_only_unseen_pages_is_flagged(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir)
    raw = {
        "summary": "update",
        "sections": [
            {"id": "fresh", "title": "Fresh", "html": "<p>Seen [s90].</p><p>Old only [s1].</p>"}
        ],
        "sources": [{"id": "s90", "url": A, "title": "A"}],
    }
    cand = build_candidate(
        doc, validate_proposal(raw), _run(PageTexts(), [], A), today=TODAY, now=NOW
    )
    flagged = [w for w in cand.warnings if w.startswith("new paragraph")]
    assert len(flagged) == 1 and "cites s1" in flagged[0]


def test_claude_code_quotes_are_checked_against_its_web_results() -> None:
    fetch = {"type": "tool_use", "id": "t1", "name": "WebFetch", "input": {"url": A}}
    search = {"type": "tool_use", "id": "t2", "name": "WebSearch", "input": {"query": "q"}}
    read = {"type": "tool_use", "id": "t3", "name": "Read", "input": {"file_path": "x"}}
    lines = [
        {"type": "assistant", "message": {"content": [fetch, search, read]}},
        {
            "type": "user",
            "message": {
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": "Page A: the dam opened in May.",
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "content": f"1. {B} Other page: costs rose by a third. 2. https://c.example.com/x Third hit of the list.",
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "t3",
                        "content": f"{A} the local file says it all",
                    },
                ]
            },
        },
        {"type": "result", "subtype": "success", "result": "done"},
    ]
    pages = PageTexts()
    parse_output("\n".join(json.dumps(x) for x in lines), pages)
    assert pages.found_in("the dam opened in May") == [normalise_key(A)]
    assert pages.found_in("costs rose by a third") == [normalise_key(B)]
    assert pages.found_in("Third hit of the list") == [normalise_key("https://c.example.com/x")]
    assert pages.found_in("the local file says it all") == []  # Read output proves nothing


def normalise_key(url: str) -> str:
    from oo_nb.agent.sources import url_key

    return url_key(url)


def test_claude_code_copy_facts_keep_their_quote_for_the_validator(corpus_dir: Path) -> None:
    from oo_nb.agent.backends.claude_code import proposal_from_copy

    original = _doc(corpus_dir)
    cache = original.block_json("oo-source-cache")
    cache["facts"] = [
        *cache.get("facts", []),
        {"text": "Quoted by Claude Code", "source_ids": ["s1"], "quote": "as the page put it, word for word"},
        {"text": "Badly quoted", "source_ids": ["s1"], "quote": {"not": "text"}},
    ]  # fmt: skip
    edited = original.with_block("oo-source-cache", cache)
    raw = proposal_from_copy(original, edited)
    quotes = {f["text"]: f.get("quote") for f in raw["facts"]}
    assert quotes["Quoted by Claude Code"] == "as the page put it, word for word"
    p = validate_proposal({**raw, "sections": [{"id": "x", "title": "X", "html": "<p>x</p>"}]})
    by_text = {f.text: f.quote for f in p.facts}
    assert by_text["Quoted by Claude Code"] and by_text["Badly quoted"] == ""
    assert any("is object, not text" in q for q in p.quote_problems)


def test_an_unfound_quote_is_stored_whole_and_the_warning_names_it_and_why(
    corpus_dir: Path,
) -> None:
    quote = "so " + "the widget shipped in March, " * 5 + "and nowhere else"  # 164 characters
    pages = PageTexts()
    pages.add(A, "Page A is about something else.")
    cand = build_candidate(
        _doc(corpus_dir), _proposal(quote, ["s90", "s91"]), _run(pages, [quote], A, B),
        today=TODAY, now=NOW,
    )  # fmt: skip
    fact = cand.document.block_json("oo-source-cache")["facts"][-1]
    assert fact == {
        "text": "The widget shipped in March",
        "source_ids": ["s10", "s11"],
        "quote": quote,
        "quote_found": False,
    }
    shown = quote[:119].rstrip() + "…"
    assert (
        f'unsupported fact: facts[0] quote "{shown}" not found: '
        "not in the text this run read from s10, s11"
    ) in cand.warnings


def test_a_quote_citing_nothing_or_never_checked_is_unsupported(corpus_dir: Path) -> None:
    quote = "the widget shipped in March"
    # a run without verdicts (a proposal saved before quotes were checked): not found
    run = RunInfo(backend="anthropic", model="claude-sonnet-5-5", seen_urls={A, B})
    cand = build_candidate(_doc(corpus_dir), _proposal(quote, []), run, today=TODAY, now=NOW)
    assert cand.unsupported == ["The widget shipped in March"]
    assert (
        f'unsupported fact: facts[0] quote "{quote}" not found: '
        "it cites no source to check it against"
    ) in cand.warnings


def test_the_quote_of_a_string_source_is_looked_up_at_its_address(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir).with_block(
        "oo-source-cache",
        {
            "last_updated": None,
            "sources": ["http://a.example/one First page", " https://b.example/two Second"],
            "facts": [],
        },
    )
    for sid, url in (("s1", "http://a.example/one"), ("s2", "https://b.example/two")):
        quote = f"the claim that page {sid} made"
        pages = PageTexts()
        pages.add(url, f"Here is {quote} in full.")
        proposal = validate_proposal(
            {
                "summary": "update",
                "sections": [],
                "facts": [{"text": f"Claim {sid}", "source_ids": [sid], "quote": quote}],
            }
        )
        cand = build_candidate(doc, proposal, _run(pages, [quote], url), today=TODAY, now=NOW)
        fact = cand.document.block_json("oo-source-cache")["facts"][-1]
        assert (fact["quote_found"], fact.get("quote_url")) == (True, url), sid


def test_a_quote_that_normalising_lengthens_is_still_cut_to_1000(corpus_dir: Path) -> None:
    quote = "\u0958" * 1000  # two characters each under NFC
    run = _run(PageTexts(), [quote], A, B)
    cand = build_candidate(_doc(corpus_dir), _proposal(quote, ["s90"]), run, today=TODAY, now=NOW)
    assert len(cand.document.block_json("oo-source-cache")["facts"][-1]["quote"]) == 1000
