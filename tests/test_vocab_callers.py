"""The audit, the library's frames, the agent and the review answer the vocabulary's table of
cases (tests/format/test_vocab.py) the same way: which URLs name one page, which domains a deny
list covers. Each through its own entry point, so a caller that grows its own rule again fails."""

from __future__ import annotations

import fcntl
import json
import os
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from oo_nb.agent.ledger import SourceLedger
from oo_nb.agent.proposal import ProposedSource
from oo_nb.agent.quotes import normalise
from oo_nb.edit.contract import Edit, plan_edits
from oo_nb.format.document import Document
from oo_nb.format.sanitize import safe_http_url, sanitize_text
from oo_nb.library.library import Library
from oo_nb.review.hunks import Hunk
from oo_nb.review.quotes import add_quote_badges
from oo_nb.review.summary import run_notices
from oo_nb.store.proposals import awaiting_review
from oo_nb.store.research_claim import RESEARCH_LOCK, claim_research
from oo_nb.store.store import history_dir
from tests.format.test_vocab import DOMAIN_CASES, ENTRIES, OTHER_PAGE, SAME_PAGE, UNSAFE
from tests.support.tiny_docs import page

PAIRS = [(a, b, True) for a, b in SAME_PAGE] + [(a, b, False) for a, b in OTHER_PAGE]


def _source(sid: str, url: str) -> dict[str, Any]:
    return {"id": sid, "url": url, "title": f"Page {sid}", "accessed": "2026-01-01"}


def _denying(entry: str, doc: Document) -> Document:
    def deny(contract: dict[str, Any]) -> None:
        contract["research"]["source_policy"]["deny_domains"] = [entry]

    return doc.edit_block("oo-contract", deny)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    """One document per case: two cached sources (a, b), or one source under a deny entry."""
    root: Path = tmp_path_factory.mktemp("vocab")
    para = [("00000001", "Tides [s1] [s2].")]
    for i, (a, b, _same) in enumerate(PAIRS):
        doc = page(para, [_source("s1", a), _source("s2", b)])
        (root / f"pair-{i}.o-o.html").write_text(doc.text, "utf-8")
    for i, (entry, url, _covered) in enumerate(DOMAIN_CASES):
        doc = _denying(entry, page([("00000001", "Tides [s1].")], [_source("s1", url)]))
        (root / f"deny-{i}.o-o.html").write_text(doc.text, "utf-8")
    return Library(root, today=date(2026, 3, 1), workers=1)


@pytest.fixture(scope="module")
def findings(library: Library) -> pd.DataFrame:
    return library.audit(all=True)


def _flagged(findings: pd.DataFrame, doc: str, code: str) -> bool:
    return bool(((findings["doc"] == doc) & (findings["code"] == code)).any())


@pytest.mark.parametrize(("i", "case"), list(enumerate(PAIRS)))
def test_the_audit_calls_two_urls_one_page_as_the_table_does(
    findings: pd.DataFrame, i: int, case: tuple[str, str, bool]
) -> None:
    assert _flagged(findings, f"pair-{i}", "duplicate-url") is case[2]


@pytest.mark.parametrize(("i", "case"), list(enumerate(PAIRS)))
def test_the_agent_merges_a_proposed_source_as_the_table_does(
    i: int, case: tuple[str, str, bool]
) -> None:
    a, b, same = case
    doc = page([("00000001", "Tides.")])
    ledger = SourceLedger(
        {"sources": [_source("s1", a)]}, doc.contract, set(), "2026-03-01", [], []
    )
    ledger.load(doc.article)
    ledger.merge(doc.article, [ProposedSource("s9", b, "Page")], [])
    assert (ledger.target("s9") == "s1") is same


@pytest.mark.parametrize(("i", "case"), list(enumerate(PAIRS)))
def test_the_review_shows_a_cited_passage_as_the_table_does(
    i: int, case: tuple[str, str, bool]
) -> None:
    a, b, same = case
    cache = {"sources": [_source("s1", a)], "facts": []}
    hunk = Hunk("h1", 0, "article", "added", "Tides", after_html="<p>Rose [s1].</p>")
    (out,) = add_quote_badges([hunk], cache, cache, {"citations": [[b, "the tide rose"]]})
    assert bool(out.cited) is same


@pytest.mark.parametrize(("i", "case"), list(enumerate(DOMAIN_CASES)))
def test_the_audit_and_the_sources_frame_deny_as_the_table_does(
    library: Library, findings: pd.DataFrame, i: int, case: tuple[str, str, bool]
) -> None:
    covered = case[2]
    assert _flagged(findings, f"deny-{i}", "denied-domain") is covered
    sources = library.sources
    assert sources.loc[sources["doc"] == f"deny-{i}", "denied"].tolist() == [covered]


@pytest.mark.parametrize(("i", "case"), list(enumerate(DOMAIN_CASES)))
def test_the_agent_rejects_a_source_as_the_table_does(i: int, case: tuple[str, str, bool]) -> None:
    entry, url, covered = case
    doc = _denying(entry, page([("00000001", "Tides.")]))
    warnings: list[str] = []
    ledger = SourceLedger({"sources": []}, doc.contract, set(), "2026-03-01", warnings, [])
    ledger.load(doc.article)
    ledger.merge(doc.article, [ProposedSource("s1", url, "Page")], [])
    assert (ledger.target("s1") is None) is covered
    if safe_http_url(url) is not None:  # else refused before the deny list is asked ("\\" in it)
        assert any("deny list" in w for w in warnings) is covered


@pytest.mark.parametrize("char", UNSAFE)
def test_text_kept_or_shown_never_carries_an_unsafe_character(char: str) -> None:
    text = f"tide{char}rose"
    # a title or a caption, stored in the document; a run's warning, reviewed later
    for shown in (sanitize_text(text), *run_notices({"warnings": [text]})):
        assert shown in ("tide rose", "tiderose")  # (nh3 drops NUL before sanitize_text looks)
    if not char.isspace() and ord(char) > 0x9F:  # bidi and zero-width: invisible in a quote too
        assert normalise(text) == "tiderose"


@pytest.mark.parametrize("entry", ENTRIES)
def test_oo_contract_stores_an_entry_as_the_domain_the_others_match(entry: str) -> None:
    # ".reddit.com" was refused here while the agent honoured it and the audit never matched it
    doc = _denying("quora.com", page([("00000001", "Tides.")]))
    doc, _changes, _notes = plan_edits(doc, [Edit("add", "deny", entry)])
    assert doc.contract.deny_domains == ("quora.com", "reddit.com")


@pytest.mark.parametrize("char", [*UNSAFE, "\t", "\n"])
def test_a_hand_editable_note_printed_on_one_line_carries_no_unsafe_character(
    char: str, tmp_path: Path
) -> None:
    """Who holds a document's research (the lock's note) and when a saved proposal was made
    (its ``created``) come from files anyone can edit and are printed to terminals and cron
    logs: each unsafe character, bidi and zero-width ones too, shows as "?"."""
    doc = tmp_path / "tides.o-o.html"
    doc.write_text("not parsed here")
    history = history_dir(doc)
    history.mkdir(parents=True)
    (history / "pending.json").write_text(json.dumps({"created": f"tide{char}rose", "run": {}}))
    (history / RESEARCH_LOCK).write_text(f"pid 7 tide{char}rose")
    fd = os.open(history / RESEARCH_LOCK, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # "another run" holds it
    try:
        holder = claim_research(doc)
    finally:
        os.close(fd)
    pending = awaiting_review(doc)
    assert pending is not None and pending.created == "tide?rose"
    assert holder == "pid 7 tide?rose"
