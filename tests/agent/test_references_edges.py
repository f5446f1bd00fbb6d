"""Plausible References bugs that once went unnoticed (issue 28, round two): a hand-added entry
(an id the cache never held) turned into "source removed"; the footer after ``</ol>`` deleted
when every listed source is dropped; a new entry's URL not re-checked. And the write paths
(--yes, --auto) run the review's own scope check, so a ``javascript:`` link that the review
refuses is never written unattended."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.candidate import Candidate
from oo_nb.agent.references import update_references
from oo_nb.agent.run import UpdateResult, write_result
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from tests.conftest import CORPUS

TODAY = date(2026, 12, 4)
S1 = {"url": "https://one.example/a", "title": "One"}
S2 = {"url": "https://two.example/b", "title": "Two"}
LI1 = '<li>[s1] <a href="https://one.example/a" rel="noopener noreferrer">One</a>, one.example</li>'
LI2 = '<li>[s2] <a href="https://two.example/b" rel="noopener noreferrer">Two</a>, two.example</li>'
HAND = "<li>[s3] A letter in the town archive, 1911</li>"
FOOTER = '<p class="doc-footer">Compiled by hand.</p>'


def _update(body: str, entries: dict[str, Any], old_ids: set[str], cited: set[str]) -> Any:
    old_urls = {"//one.example/a": "s1", "//two.example/b": "s2"}
    return update_references(body, entries, old_ids, old_urls, cited, TODAY)


def test_a_hand_added_entry_is_never_a_removed_source() -> None:
    body = f"\n<ol>\n{LI1}\n{LI2}\n{HAND}\n</ol>\n"
    kept = _update(body, {"s1": S1, "s2": S2}, {"s1", "s2"}, {"s1", "s2"})
    assert not kept.changed and kept.body == body
    dropped = _update(body, {"s1": S1}, {"s1", "s2"}, {"s1"})
    assert dropped.body == (
        f'\n<ol>\n{LI1}\n<li class="ref-missing">[s2] <em>source removed</em></li>\n{HAND}\n</ol>\n'
    )


def test_the_footer_stays_when_every_listed_source_is_dropped() -> None:
    body = f"\n<ol>\n{LI1}\n{LI2}\n</ol>\n{FOOTER}\n"
    update = _update(body, {}, {"s1", "s2"}, set())
    assert update.changed and "<ol>" not in update.body and "<li" not in update.body
    assert update.body.strip() == FOOTER


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "data:text/html,x", "https://x.example/\"onclick='a'"]
)
def test_a_new_entrys_url_is_checked(url: str) -> None:
    body = f"\n<ol>\n{LI1}\n</ol>\n"
    update = _update(body, {"s1": S1, "s2": {"url": url, "title": "Click"}}, {"s1"}, {"s1", "s2"})
    assert update.body == f"\n<ol>\n{LI1}\n<li>[s2] Click</li>\n</ol>\n"


def _result(path: Path, candidate: Document) -> UpdateResult:
    run = RunInfo("anthropic", "claude-sonnet-5-5", cost_usd=0.1, budget_usd=0.5)
    return UpdateResult(
        path,
        "proposed",
        "",
        path.read_bytes(),
        "anthropic",
        "claude-sonnet-5-5",
        0.5,
        run=run,
        candidate=Candidate(candidate, [], []),
        auto_write=True,
    )


@pytest.mark.parametrize(("yes", "auto"), [(True, False), (False, True)], ids=["yes", "auto"])
def test_the_write_paths_refuse_what_the_review_refuses(
    yes: bool, auto: bool, tmp_path: Path
) -> None:
    path = tmp_path / "agi-declared.o-o.html"
    shutil.copyfile(CORPUS / path.name, path)
    before = path.read_bytes()
    doc = Document.read(path)
    html = doc.article_html
    at = html.find("</p>")
    bad = doc.with_article(html[:at] + ' <a href="javascript:alert(1)">x</a>' + html[at:])
    result = write_result(_result(path, bad), yes=yes, auto=auto)
    assert result.written is None and path.read_bytes() == before
    assert result.pending is not None and result.pending.is_file()  # paid for: kept, not lost
    assert any("javascript:alert(1)" in w and "not written" in w for w in result.warnings)
    assert any("javascript:alert(1)" in r for r in result.kept_because)
    # an update within scope is still written
    good = doc.with_article(html[:at] + " More." + html[at:])
    assert write_result(_result(path, good), yes=yes, auto=auto).written == path


def test_a_section_without_a_list_gets_ours_before_what_it_holds() -> None:
    from oo_nb.agent.sources import references_html

    ol, _ = references_html({"s1": S1}, {"s1"})
    assert ol
    empty = _update("", {"s1": S1}, set(), {"s1"})
    assert (empty.body, empty.changed, empty.out_of_order) == ("\n" + ol + "\n\n", True, None)
    kept = _update("\n\n" + FOOTER + "\n", {"s1": S1}, set(), {"s1"})
    assert (kept.body, kept.changed, kept.out_of_order) == (
        "\n\n" + ol + "\n" + FOOTER + "\n",
        True,
        None,
    )
    nothing = _update("\n" + FOOTER + "\n", {}, set(), set())
    assert (nothing.body, nothing.changed, nothing.out_of_order) == (
        "\n" + FOOTER + "\n",
        False,
        None,
    )
