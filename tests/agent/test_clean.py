"""`agent/clean.py`: why a proposal may not be written unattended (--auto), one reason each."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from oo_nb.agent.candidate import Candidate
from oo_nb.agent.clean import unclean_reasons
from oo_nb.agent.run import UpdateResult
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from tests.conftest import CORPUS

NAME = "agi-declared.o-o.html"


def _result(candidate: Document, **kw: Any) -> UpdateResult:
    original = (CORPUS / NAME).read_bytes()
    run = RunInfo("anthropic", "claude-sonnet-5-5", cost_usd=kw.pop("cost", 0.1), budget_usd=0.5)
    run.overspent = kw.pop("overspent", False)
    return UpdateResult(
        Path(NAME),
        "proposed",
        "",
        original,
        "anthropic",
        "claude-sonnet-5-5",
        0.5,
        run=run,
        candidate=Candidate(candidate, [], kw.pop("unverified", [])),
        warnings=kw.pop("warnings", []),
    )


def _doc() -> Document:
    return Document.read(CORPUS / NAME)


def test_an_unchanged_candidate_is_clean() -> None:
    assert unclean_reasons(_result(_doc())) == []


def test_each_reason_is_named() -> None:
    reasons = unclean_reasons(
        _result(
            _doc(),
            unverified=["s20"],
            overspent=True,
            cost=0.61,
            warnings=[
                "unverified sources (URL not seen in this run's search or fetch results): s20",
                "the run spent $0.6100, over its $0.50 budget (…)",
                "image 1 skipped: not an image",
            ],
        )
    )
    assert reasons[0].startswith("new source(s) not verified") and reasons[0].endswith("s20")
    assert reasons[1] == "over budget: $0.6100 of $0.50"
    # the warnings that restate the checks above are not counted twice
    assert reasons[2] == "1 run warning(s): image 1 skipped: not an image"
    assert len(reasons) == 3


def test_spending_more_than_the_budget_is_unclean_even_unflagged() -> None:
    assert unclean_reasons(_result(_doc(), cost=0.51)) == ["over budget: $0.5100 of $0.50"]


def test_a_section_the_candidate_lacks_is_a_removal() -> None:
    doc = _doc()
    html = doc.article_html
    start = html.index('<h2 id="leading-candidates">')
    end = html.index("<h2 ", start + 1)
    without = doc.with_article(html[:start] + html[end:])
    assert unclean_reasons(_result(without)) == ["section(s) removed: leading-candidates"]


def test_sections_the_proposal_says_it_removes_count_too() -> None:
    result = _result(_doc())
    assert result.candidate is not None
    result.candidate.sections_removed = ["status"]  # type: ignore[attr-defined]
    assert unclean_reasons(result) == ["section(s) removed: status"]


def test_drop_sections_in_the_saved_proposal_count_too() -> None:
    result = _result(_doc())
    result.proposal_data = {"summary": "x", "drop_sections": ["status", "status"]}
    assert unclean_reasons(result) == ["section(s) removed: status"]
    result.proposal_data = {"drop_sections": "not a list"}
    assert unclean_reasons(result) == []


def _with_quote(doc: Document, found: bool | None) -> Document:
    def change(cache: dict[str, Any]) -> None:
        fact: dict[str, Any] = {"text": "A lab said so.", "source_ids": ["s1"], "quote": "we did"}
        if found is not None:
            fact["quote_found"] = found
        cache["facts"].append(fact)

    return doc.edit_block("oo-source-cache", change)


def test_a_new_quote_not_found_in_its_source_is_unclean() -> None:
    assert unclean_reasons(_result(_with_quote(_doc(), True))) == []
    for found in (False, None):
        assert unclean_reasons(_result(_with_quote(_doc(), found))) == [
            "1 quote(s) not found in their source: we did"
        ]


def test_an_unsupported_quote_the_document_already_had_is_not_this_updates() -> None:
    before = _with_quote(_doc(), False)
    result = _result(before)
    result.original = before.to_bytes()
    assert unclean_reasons(result) == []


def test_no_candidate_is_never_clean() -> None:
    result = _result(_doc())
    result.candidate = None
    assert unclean_reasons(result) == ["there is no proposal"]
    assert all(re.match(r"^[a-z0-9]", r) for r in unclean_reasons(result))


def test_a_new_inline_link_the_run_never_saw_is_not_clean() -> None:
    # issue 28 item 11: a made-up login page in a new paragraph's <a href> was written by --auto
    doc = _doc()
    html = doc.article_html
    at = html.find("</p>")
    link = '<a href="https://made-up.example/login">sign in</a>'
    result = _result(doc.with_article(html[:at] + " " + link + html[at:]))
    reasons = unclean_reasons(result)
    assert any("made-up.example/login" in r and "did not read" in r for r in reasons), reasons
    assert result.run is not None
    result.run.seen_urls = {"https://made-up.example/login"}  # a search listed it: not read
    assert any("made-up.example" in r for r in unclean_reasons(result))
    result.run.read_urls = {"https://made-up.example/login"}  # its page fetched
    assert not any("made-up.example" in r for r in unclean_reasons(result))
    # links the document already held are not new
    assert unclean_reasons(_result(_doc())) == []
