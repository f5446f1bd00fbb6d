"""What an update may change: a candidate that did not come from this process (an older saved
proposal) is checked region by region, block by block, and its article against the allow-list."""

from __future__ import annotations

from typing import Any

import pytest

from oo_nb.format.document import Document
from oo_nb.format.update_scope import scope_problems
from tests.conftest import CORPUS
from tests.support.agent_helpers import DOCS
from tests.support.review_samples import synthetic_candidate


def _doc(name: str = "agi-declared.o-o.html") -> Document:
    return Document.read(CORPUS / name)


@pytest.mark.parametrize("name", DOCS)
def test_a_real_update_is_within_scope(name: str) -> None:
    doc = _doc(name)
    candidate, _ = synthetic_candidate(doc)
    assert scope_problems(doc, candidate) == []
    assert scope_problems(doc, doc) == []


def _text_edit(doc: Document, old: str, new: str, where: str = "") -> Document:
    at = doc.text.index(where) if where else 0
    assert old in doc.text[at:]
    return Document(doc.text[:at] + doc.text[at:].replace(old, new, 1))


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (
            lambda d: _text_edit(d, "set -euo pipefail", "touch x\nset -euo pipefail"),
            "the shell after the heredoc",
        ),
        (lambda d: _text_edit(d, ": << 'OO_HTML'", "touch x\n: << 'OO_HTML'"), "the shell header"),
        (lambda d: _text_edit(d, "<title>", "<title>x"), "the page outside the article"),
        (lambda d: _text_edit(d, "window.stop();", "alert(1);"), "the page outside the article"),
    ],
)
def test_a_change_outside_the_data_is_named(edit: Any, named: str) -> None:
    doc = _doc()
    problems = scope_problems(doc, edit(doc))
    assert len(problems) == 1 and named in problems[0] and "line " in problems[0]


@pytest.mark.parametrize(
    ("block", "change", "named"),
    [
        (
            "oo-contract",
            lambda c: c["budget"].update(max_cost_usd=999),
            "budget.max_cost_usd: 5.0 → 999",
        ),
        ("oo-contract", lambda c: c.update(identity={}), "oo-contract identity"),
        ("oo-contract", lambda c: c.pop("budget"), "budget: {"),
        (
            "oo-manifest",
            lambda m: m.update(title="<img src=x onerror=alert(1)>"),
            "oo-manifest title",
        ),
        ("oo-manifest", lambda m: m.update(version=1), "is not a newer version"),
        ("oo-manifest", lambda m: m.update(as_of="<b>"), "is not a date"),
        ("oo-source-cache", lambda c: c.update(note="x"), "oo-source-cache note"),
        (
            "oo-source-cache",
            lambda c: c["sources"].append(
                {"id": "s99", "url": "javascript:alert(1)", "title": "t"}
            ),
            "is not an http(s) address",
        ),
        (
            "oo-source-cache",
            lambda c: c["facts"].append({"text": "&lt;img src=x onerror=alert(1)&gt;"}),
            "holds markup",
        ),
        (
            "oo-changelog",
            lambda c: c["entries"][0].update(summary="rewritten"),
            "earlier entries changed",
        ),
        (
            "oo-changelog",
            lambda c: c["entries"].append({"summary": "<script>x</script>"}),
            "holds markup",
        ),
    ],
)
def test_a_block_change_an_update_never_makes_is_named(block: str, change: Any, named: str) -> None:
    doc = _doc()
    candidate = doc.edit_block(block, change)
    problems = scope_problems(doc, candidate)
    assert problems and any(named in p for p in problems), problems


def test_a_structured_sentinels_status_may_change_and_nothing_else_of_the_contract() -> None:
    doc = _doc().edit_block(
        "oo-contract",
        lambda c: c.update(sentinel={"event": "AGI", "status": "unknown", "criteria": ["a"]}),
    )
    ok = doc.edit_block(
        "oo-contract",
        lambda c: c["sentinel"].update(
            status="not_occurred", last_checked="2026-11-29", evidence="none [s1]"
        ),
    )
    assert scope_problems(doc, ok) == []
    bad = doc.edit_block("oo-contract", lambda c: c["sentinel"].update(criteria=[]))
    assert scope_problems(doc, bad) == ['oo-contract sentinel criteria: ["a"] → []']
    hostile = doc.edit_block(
        "oo-contract", lambda c: c["sentinel"].update(evidence="<img src=x onerror=y>")
    )
    assert "holds markup" in scope_problems(doc, hostile)[0]


@pytest.mark.parametrize(
    ("html", "named"),
    [
        ("<script>alert(1)</script>", "a <script> element"),
        ("<p><img src=x onerror=alert(1)></p>", "onerror"),
        ('<p><a href="javascript:alert(1)">x</a></p>', "only http(s) and in-page links"),
        ('<p><a href="jav&#x09;ascript:alert(1)">x</a></p>', "only http(s) and in-page links"),
        ('<p><img src="https://evil.example/x.png"></p>', "only embedded raster images"),
        ('<div id="toc">x</div>', "an id the page itself uses"),
        ("<svg><script>alert(1)</script></svg>", "a <svg> element"),
        ('<p style="background:url(https://evil.example/)">x</p>', "attribute not allowed"),
        ('<iframe src="https://evil.example/"></iframe>', "a <iframe> element"),
    ],
)
def test_article_html_the_sanitiser_would_remove_is_named(html: str, named: str) -> None:
    doc = _doc()
    problems = scope_problems(doc, doc.with_article(doc.article_html + html))
    assert problems and any(named in p for p in problems), problems


def test_what_the_article_already_held_is_not_held_against_the_update() -> None:
    doc = _doc()
    odd = doc.with_article(doc.article_html + '<p style="color: red">Old styled text.</p>\n')
    candidate, _ = synthetic_candidate(odd)
    assert scope_problems(odd, candidate) == []


def test_heading_text_the_original_script_turns_into_markup() -> None:
    doc = _doc("yc-w26-batch.o-o.html")  # still on the original page script
    html = doc.article_html.replace("</h2>", " &lt;img src=x onerror=alert(1)&gt;</h2>", 1)
    problems = scope_problems(doc, doc.with_article(html))
    assert any("the original page script turns into markup" in p for p in problems), problems


def test_a_candidate_without_the_article_or_with_other_blocks_is_refused() -> None:
    doc = _doc()
    assert "no article" in scope_problems(doc, Document(": << 'OO_HTML'\n<p>x</p>\nOO_HTML\n"))[0]
