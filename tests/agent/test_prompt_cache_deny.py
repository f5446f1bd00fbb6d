"""The contract's deny list, kept out of the cached tool definitions, is still enforced: results
from denied domains are dropped from each answer before the model continues, and a proposed
source on a denied domain is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from oo_nb.agent.backends.deny_filter import drop_denied
from oo_nb.agent.run import UpdateOptions, prepare_update
from oo_nb.format.vocab import domain_patterns
from tests.support.agent_helpers import MARKER, backend, copy_doc, run_backend, start_mock
from tests.support.mock_scenarios import fetch_result, research_scenario, search_result

DENY = list(domain_patterns(("reddit.com", "*.quora.com")))


def test_search_results_on_denied_domains_are_dropped() -> None:
    block = search_result(
        "s1",
        [
            ("https://ok.example.com/a", "A"),
            ("https://old.Reddit.com/r/x", "subdomain, any case"),
            ("https://reddit.com/r/y", "the domain"),
            ("https://notreddit.com/z", "another domain"),
            ("https://www.quora.com/q", "wildcard entry"),
        ],
    )
    text = {"type": "text", "text": "see reddit.com"}
    (kept, same), dropped = drop_denied([block, text], DENY)
    assert [r["url"] for r in kept["content"]] == [
        "https://ok.example.com/a",
        "https://notreddit.com/z",
    ]
    assert same is text
    assert dropped == {
        "https://old.Reddit.com/r/x",
        "https://reddit.com/r/y",
        "https://www.quora.com/q",
    }
    assert drop_denied([block], []) == ([block], set())  # no deny list: untouched


def test_a_fetch_of_a_denied_url_becomes_the_apis_error_block() -> None:
    denied = fetch_result("f1", "https://reddit.com/r/x", "T", "secret text")
    allowed = fetch_result("f2", "https://example.com/a", "T", "fine")
    (err, ok), dropped = drop_denied([denied, allowed], DENY)
    assert err == {
        "type": "web_fetch_tool_result",
        "tool_use_id": "f1",
        "content": {"type": "web_fetch_tool_result_error", "error_code": "url_not_allowed"},
    }
    assert "secret text" not in json.dumps(err) and ok is allowed
    assert dropped == {"https://reddit.com/r/x"}


def test_a_citation_of_a_denied_url_is_taken_off_its_text() -> None:
    ok = {"type": "web_search_result_location", "url": "https://example.com/a", "cited_text": "a"}
    bad = {"type": "web_search_result_location", "url": "https://reddit.com/r/x", "cited_text": "b"}
    both = {"type": "text", "text": "claim", "citations": [ok, bad]}
    only_bad = {"type": "text", "text": "claim", "citations": [bad]}
    (first, second), dropped = drop_denied([both, only_bad], DENY)
    assert first == {"type": "text", "text": "claim", "citations": [ok]}
    assert second == {"type": "text", "text": "claim", "citations": None}
    assert dropped == {"https://reddit.com/r/x"}


def test_the_next_request_never_carries_a_denied_result() -> None:
    """The scripted search returns a reddit.com result (denied by the corpus contract): the
    continuation request does not send it back, and the URL counts as unseen."""
    mock = start_mock(research_scenario(pauses=1, with_image=False))
    try:
        _, run, _ = run_backend(backend(mock))
    finally:
        mock.stop()
    first, second = mock.message_requests[:2]
    assert all("blocked_domains" not in t for t in first.body["tools"])
    assert "reddit.com" in first.body["system"][1]["text"]  # the prompt still names it
    answer = json.dumps(second.body["messages"][1:])  # the paused turn sent back (the first
    assert "https://www.example.org/background" in answer  # message is the document, whose
    assert "reddit.com" not in answer  # contract names the deny list)
    assert "https://reddit.com/r/none" not in run.seen_urls
    # silent, as the API's blocked_domains was: a warning would hold an unattended update
    assert not any("reddit.com" in w for w in run.warnings)


def test_a_proposed_source_on_a_denied_domain_is_refused(tmp_path: Path) -> None:
    def cite_reddit(submitted: dict[str, Any]) -> dict[str, Any]:
        submitted["sources"][0]["url"] = "https://reddit.com/r/none"
        return submitted

    mock = start_mock(research_scenario(with_image=False, proposal=cite_reddit))
    try:
        opts = UpdateOptions(
            force=True,
            agent="anthropic",
            api_key=MARKER,
            base_url=mock.base_url,
            download_images=False,
            budget_usd=5.0,
        )
        result = prepare_update(copy_doc(tmp_path), opts)
    finally:
        mock.stop()
    assert result.candidate is not None
    assert "https://reddit.com/r/none" not in result.candidate.document.text
    assert any("reddit.com is on the contract's deny list" in w for w in result.candidate.warnings)
