"""Attacks on issue 16 in the agent: text the model wrote itself never counts as read; the
prompt never proposes a moved link the contract forbids."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from oo_nb.agent.backends.claude_code import parse_output
from oo_nb.agent.link_notes import link_notes
from oo_nb.agent.quotes import PageTexts
from oo_nb.agent.sources import url_key
from oo_nb.format.document import Document
from oo_nb.store import clock
from oo_nb.store.link_store import LinkRow, write_links
from tests.support.attacks_evidence import fetch_stream
from tests.support.link_server import library_with_sources

CLAIM = "the unicorn population doubled in 2025"


def _stream(query: str) -> str:
    """Claude Code's stream-json for one WebSearch: its result echoes the query first."""
    echo = (
        f'Web search results for query: "{query}"\n\n'
        'Links: [{"title":"Zoo news","url":"https://zoo.example/a"}]\n\n'
        "No result says anything about unicorns."
    )
    events = [
        {"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t1", "name": "WebSearch", "input": {"query": query}}]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": echo}]},
         "tool_use_result": {"query": query, "results": [
             {"content": [{"title": "Zoo news", "url": "https://zoo.example/a"}]}]}},
        {"type": "result", "subtype": "success", "result": "done"},
    ]  # fmt: skip
    return "\n".join(json.dumps(e) for e in events)


def test_a_search_query_echoed_in_its_result_is_not_page_text() -> None:
    # the query is the model's own words: with a URL in it, the text after the URL counted as
    # that page's text (the quote "found") and the URL as seen (the source "verified")
    pages = PageTexts()
    _result, urls = parse_output(_stream(f"https://evil.example/x {CLAIM}"), pages)
    assert pages.found_in(CLAIM) == []
    assert url_key("https://evil.example/x") not in {url_key(u) for u in urls}
    assert url_key("https://zoo.example/a") in {url_key(u) for u in urls}  # real hits still count


def test_a_moved_link_is_not_proposed_where_the_contract_forbids_its_new_url(
    tmp_path: Path,
) -> None:
    # the prompt told the model to cite an http: URL under require_https, and a URL on the
    # deny list: the ledger then rejects what the prompt asked for
    folder = library_with_sources(
        tmp_path, ["https://a.example/1", "https://b.example/2", "https://c.example/3"]
    )
    path = next(folder.glob("*.o-o.html"))
    doc = Document.read(path)
    contract = doc.block_json("oo-contract")
    policy = contract.setdefault("research", {}).setdefault("source_policy", {})
    policy["require_https"] = True
    policy["deny_domains"] = ["spam.example"]
    path.write_bytes(doc.with_block("oo-contract", contract).to_bytes())
    now = clock.now().isoformat()  # within the reuse age (issue 28: older rows are not read)
    write_links(folder, [
        LinkRow("https://a.example/1", 200, "http://a.example/1", False, "moved", True, None, now),
        LinkRow("https://b.example/2", 200, "https://www.spam.example/2", False, "moved", True,
                None, now),
        LinkRow("https://c.example/3", 200, "https://c2.example/3", False, "moved", True, None, now),
    ])  # fmt: skip
    notes = "\n".join(link_notes(Document.read(path)))
    assert "http://a.example/1" not in notes
    assert "https://www.spam.example/2" not in notes
    assert "deny list" in notes and "requires" in notes
    assert "https://c2.example/3" in notes
    assert "s1 (https://a.example/1)" in notes  # still named: it needs a replacement


def test_invisible_characters_neither_hide_nor_fake_a_quote() -> None:
    # pages carry soft hyphens (&shy;) and zero-width spaces/joiners the reader never sees: a
    # quote copied as shown was "not found" and the fact flagged unsupported
    pages = PageTexts()
    page = "https://news.example/census"
    pages.add(
        page, "The uni\u00adcorn popu\u200blation dou\u2060bled in 2025, the \ufeffcensus says."
    )
    assert pages.found_in("the unicorn population doubled in 2025") == [url_key(page)]
    # and a quote stuffed with them matches only what it says once they are gone
    assert pages.found_in("the uni\u200bcorn popu\u200dlation doubled in 2025") == [url_key(page)]
    assert pages.found_in("the unicorn population halved\u200b in 2025") == []
    # nothing but invisible characters is no quote at all
    assert pages.found_in("\u200b" * 40) == []


def test_a_superscript_is_not_read_as_a_digit() -> None:
    # NFKC made "10⁶" (a million) into "106": a quote misreading the magnitude was "found"
    pages = PageTexts()
    page = "https://news.example/growth"
    pages.add(page, "The network reached 10⁶ users in 2025 and 2⁻³ of them paid.")
    assert pages.found_in("The network reached 106 users in 2025") == []
    assert pages.found_in("and 2-3 of them paid") == []
    assert pages.found_in("The network reached 10^6 users in 2025") == [url_key(page)]
    assert pages.found_in("reached 10⁶ users") == [url_key(page)]


def test_the_search_summary_is_not_the_last_links_page() -> None:
    # Claude Code's WebSearch result is the query, a JSON list of links (title and URL), then a
    # summary its search model wrote: that summary counted as the text of whichever link came
    # last, so a quote from it "supported" a fact citing that page
    links = [
        {"title": "Zoo annual report 2025", "url": "https://zoo.example/report"},
        {"title": "Unrelated blog", "url": "https://blog.example/post"},
    ]
    content = (
        'Web search results for query: "unicorn census"\n\n'
        f"Links: {json.dumps(links)}\n\n"
        f"According to the zoo, {CLAIM} across the park."
    )
    events = [
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1",
            "name": "WebSearch", "input": {"query": "unicorn census"}}]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": content}]}},
    ]  # fmt: skip
    pages = PageTexts()
    _result, urls = parse_output("\n".join(json.dumps(e) for e in events), pages)
    assert pages.found_in(CLAIM) == []
    assert pages.found_in("Zoo annual report 2025") == [url_key("https://zoo.example/report")]
    assert {url_key(u) for u in urls} >= {url_key(x["url"]) for x in links}


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_link_results_someone_else_planted_above_the_document_are_not_read(
    tmp_path: Path,
) -> None:
    # the prompt reads the nearest .oo-cache/links.sqlite up to six folders above the document:
    # in a shared folder such as /tmp another user's file told the model to cite their URL
    folder = library_with_sources(tmp_path, ["https://real.example/a"])
    doc_dir = folder / "mine"
    doc_dir.mkdir()
    path = doc_dir / "doc.o-o.html"
    next(folder.glob("*.o-o.html")).rename(path)
    row = LinkRow("https://real.example/a", 200, "https://attacker.example/", False, "moved",
                  True, None, "2026-12-01T12:00:00+00:00")  # fmt: skip
    write_links(folder, [row])
    assert "attacker.example" in "\n".join(link_notes(Document.read(path)))  # own file: read
    for item in (folder / ".oo-cache", folder / ".oo-cache" / "links.sqlite"):
        os.chown(item, 4321, 4321)
    assert link_notes(Document.read(path)) == []


def test_a_fetch_answer_that_echoes_its_prompt_is_not_page_text() -> None:
    # issue 28 item 10: the prompt is the model's words; echoed, it made a made-up quote
    # "found" on the fetched page and a URL never fetched "seen"
    page = "https://zoo.example/report"
    prompt = f'Does this page say "{CLAIM}"? Compare https://evil.example/login too.'
    answer = f"Prompt: {prompt}\n\nThe page describes the zoo's opening hours only."
    pages = PageTexts()
    _result, urls = parse_output(fetch_stream(page, prompt, answer), pages)
    assert pages.found_in(CLAIM) == []
    assert url_key("https://evil.example/login") not in {url_key(u) for u in urls}
    assert url_key(page) in {url_key(u) for u in urls}  # the page it fetched still counts
    assert pages.found_in("describes the zoo's opening hours") == [url_key(page)]
    # the answer repeating only the quoted passage is no page text either
    pages = PageTexts()
    parse_output(fetch_stream(page, prompt, f"Yes: {CLAIM}."), pages)
    assert pages.found_in(CLAIM) == []
