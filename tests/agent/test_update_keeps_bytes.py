"""Issue 26: an update that edits a section keeps every byte it did not change. Built from the
original ai-model-landscape document (pid comments before ``<h3>`` headings, ``<br/>``, blank
lines), with a table carrying a pid written into one section: the proposal echoes the section as
the model saw it (``compact_article``) with one paragraph appended or one rewritten."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.context import compact_article
from oo_nb.agent.pending import open_review
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.cli.main import main
from oo_nb.format.article_model import read_model
from oo_nb.format.document import Document
from oo_nb.review.session import ReviewSession
from tests.conftest import DOC_NAMES
from tests.support.agent_helpers import MARKER, start_mock
from tests.support.mock_api import MockAPI
from tests.support.mock_scenarios import research_scenario

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)
TABLE = (
    "\n<!-- pid:pricing:7ab1e000 -->\n"
    '<table class="price">\n<tr><th>Model</th><th>Input</th></tr>\n'
    "<tr><td>GPT-5</td><td>$10<br/>per M</td></tr>\n</table>\n"
)
NEW_PARAGRAPH = "<p>Prices fell again in March [s8].</p>"
PID_COMMENT = re.compile(r"<!--\s*(pid:\S+?)\s*-->")


@pytest.fixture
def doc(corpus_dir: Path) -> Document:
    """ai-model-landscape with a pid-marked table after Pricing Comparison's first paragraph."""
    original = Document.read(corpus_dir / "ai-model-landscape.o-o.html")
    html = original.article_html
    at = html.index("\n", html.index("<p>Output tokens consistently cost")) + 1
    return original.with_article(html[:at] + TABLE + html[at:])


def section_as_seen(doc: Document, sid: str) -> str:
    """The section's body as the model saw it: compacted, pid comments kept, heading cut."""
    compact, _ = compact_article(doc.article_html)
    start = compact.index(f'<h2 id="{sid}">')
    start = compact.index("</h2>", start) + len("</h2>")
    nxt = re.compile(r"(?:<!--[^>]*-->\s*)?<h2\b").search(compact, start)
    return compact[start : nxt.start() if nxt else len(compact)]


def update(doc: Document, sid: str, title: str, html: str) -> Candidate:
    raw: dict[str, Any] = {"summary": "u", "sections": [{"id": sid, "title": title, "html": html}]}
    run = RunInfo(backend="anthropic", model="claude-test", seen_urls=set())
    return build_candidate(doc, validate_proposal(raw), run, today=TODAY, now=NOW, pid_seed="x")


def inserted_lines(before: str, after: str) -> list[str]:
    """The lines ``after`` adds to ``before``; fails if it changes or removes any line."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        assert op in ("equal", "insert"), (op, a[i1:i2], b[j1:j2])
        out += b[j1:j2] if op == "insert" else []
    return out


def appended(doc: Document) -> Candidate:
    body = section_as_seen(doc, "pricing-comparison") + NEW_PARAGRAPH
    return update(doc, "pricing-comparison", "Pricing Comparison", body)


def test_appending_a_paragraph_keeps_every_other_byte(doc: Document) -> None:
    cand = appended(doc)
    added = inserted_lines(doc.article_html, cand.document.article_html)
    assert "".join(added).strip().endswith(NEW_PARAGRAPH)
    assert len(PID_COMMENT.findall("".join(added))) == 1  # the new paragraph's own pid
    old_pids = PID_COMMENT.findall(doc.article_html)
    assert PID_COMMENT.findall(cand.document.article_html).count("pid:pricing:7ab1e000") == 1
    assert set(old_pids) <= set(PID_COMMENT.findall(cand.document.article_html))


def test_rewriting_one_paragraph_changes_that_block_only(doc: Document) -> None:
    seen = section_as_seen(doc, "benchmarks-rankings")
    old = "For the coding-specific leaderboard, Claude Opus 4.5 (thinking) leads at 1510 Elo [s7]."
    assert old in seen
    cand = update(
        doc, "benchmarks-rankings", "Benchmarks & Rankings", seen.replace(old, "Now 1520 [s7].")
    )
    before, after = doc.article_html, cand.document.article_html
    assert after == before.replace(old, "Now 1520 [s7].")  # the pid, <br/> and blank lines stay
    session = ReviewSession(doc, cand.document)
    article = [h for h in session.diff.decidable if h.area == "article"]
    assert [(h.kind, h.pid) for h in article] == [("changed", "pid:benchmarks:e4f5a6b7")]


def test_the_review_lists_only_the_real_change(doc: Document) -> None:
    session = ReviewSession(doc, appended(doc).document)
    article = [h for h in session.diff.decidable if h.area == "article"]
    assert [(h.kind, h.tag) for h in article] == [("added", "p")]


def test_rejecting_everything_gives_the_original_bytes(doc: Document) -> None:
    session = ReviewSession(doc, appended(doc).document)
    session.reject_all()
    assert session.apply().article_html == doc.article_html


def test_rejecting_any_article_change_never_writes_a_heading_twice(doc: Document) -> None:
    cand = appended(doc).document
    for hunk in [h for h in ReviewSession(doc, cand).diff.decidable if h.area == "article"]:
        session = ReviewSession(doc, cand)
        session.accept_all()
        session.reject(hunk.id)
        ids = re.findall(r'<h[2-6] id="([^"]+)"', session.apply().article_html)
        assert len(ids) == len(set(ids)), hunk.title


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch, doc: Document) -> Iterator[MockAPI]:
    """The loopback mock answering with the Pricing Comparison section echoed as the model saw
    it, plus one paragraph citing the new source; no source dropped."""
    echoed = section_as_seen(doc, "pricing-comparison")

    def edit(submitted: dict[str, Any]) -> dict[str, Any]:
        new_id = submitted["sources"][0]["id"]
        html = echoed + f"<p>Prices fell again in March [{new_id}].</p>"
        submitted["sections"] = [
            {"id": "pricing-comparison", "title": "Pricing Comparison", "html": html}
        ]
        submitted["drop_sources"] = []
        return submitted

    mock = start_mock()
    mock.responder = research_scenario(
        base_url=lambda: mock.base_url, with_image=False, proposal=edit
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    yield mock
    mock.stop()


def test_through_the_update_command_only_the_new_paragraph_and_its_entry_are_new(
    api: MockAPI, doc: Document, tmp_path: Path
) -> None:
    path = tmp_path / "ai-model-landscape.o-o.html"
    path.write_bytes(doc.to_bytes())
    assert main(["update", str(path), "--force"]) == 0  # a proposal, saved for review
    review = open_review(path)
    added = inserted_lines(doc.article_html, review.candidate.article_html)
    assert [line for line in added if line.strip()][-2:][0].startswith("<p>Prices fell again")
    assert len([line for line in added if "<li>" in line]) == 1  # its References entry
    session = ReviewSession(review.original, review.candidate, review.run)
    article = [h for h in session.diff.decidable if h.area == "article"]
    assert [(h.kind, h.tag) for h in article] == [("added", "p")]
    session.reject_all()
    assert session.apply().article_html == doc.article_html


@pytest.mark.parametrize("name", DOC_NAMES)
def test_echoing_every_section_as_seen_changes_no_byte(corpus_dir: Path, name: str) -> None:
    original = Document.read(corpus_dir / name)
    kept = [s for s in read_model(original.article_html).sections if s.id != "references"]
    ids = [s.id for s in kept]
    sections = [
        {"id": s.id, "title": s.title, "html": section_as_seen(original, s.id)} for s in kept
    ]
    # a fact, so that the proposal changes something (one that changes nothing makes no version)
    fact = {
        "text": "An echo keeps every byte.",
        "source_ids": [original.article.citations[0].source_id],
    }
    raw: dict[str, Any] = {"summary": "u", "sections": sections, "facts": [fact]}
    run = RunInfo(backend="anthropic", model="claude-test", seen_urls=set())
    cand = build_candidate(original, validate_proposal(raw), run, today=TODAY, now=NOW)
    # an echoed section is no edit: none is recorded as replaced (no "edited" for nothing)
    assert len(ids) >= 3 and cand.sections_replaced == []
    assert cand.document.article_html == original.article_html
