"""Attacks on the quote check (issue 16): text the model wrote itself never counts as read."""

from __future__ import annotations

import json

from oo_nb.agent.backends.claude_code import parse_output
from oo_nb.agent.quotes import PageTexts
from oo_nb.agent.sources import url_key

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
