"""What page text a quote is looked for in (``agent/quotes``): a fetched document's text whether
it comes as plain text or as content parts, markup reduced to its text, pages and the run capped
with the cap noted, short quotes refused, citations kept tidy and bounded."""

from __future__ import annotations

from typing import Any

from oo_nb.agent import quotes
from oo_nb.agent.quotes import MIN_QUOTE, PageTexts, api_texts, quote_hits

URL = "https://example.org/a"
KEY = "//example.org/a"


def _fetch(source: Any) -> dict[str, Any]:
    return {
        "type": "web_fetch_tool_result",
        "content": {"type": "web_fetch_result", "url": URL, "content": {"source": source}},
    }


def test_a_fetched_document_as_text_or_as_content_parts() -> None:
    pages = PageTexts()
    api_texts([_fetch({"type": "text", "data": "Plain words here."})], pages)
    assert pages.pages == {KEY: "plain words here."}
    parts = [{"text": "First part."}, {"type": "image"}, {"text": 5}, "x", {"text": "Second."}]
    pages = PageTexts()
    api_texts([_fetch({"type": "content", "content": parts})], pages)
    assert pages.pages == {KEY: "first part. second."}
    odd: Any
    for odd in ({"type": "text", "data": 7}, {"type": "base64", "data": "AAAA"}, "not a dict"):
        pages = PageTexts()
        api_texts([_fetch(odd)], pages)
        assert pages.pages == {}, odd


def test_markup_is_reduced_to_its_text_only_when_asked() -> None:
    pages = PageTexts()
    pages.add(URL, "<p>Tides <b>rise</b></p>", markup=True)
    assert pages.pages == {KEY: "tides rise"}
    plain = PageTexts()
    plain.add(URL, "a <b> tag")
    assert plain.pages == {KEY: "a <b> tag"}
    for url, text in (("", "text"), (URL, "")):
        empty = PageTexts()
        empty.add(url, text)
        assert empty.pages == {} and empty.total == 0


def test_a_second_text_of_a_page_is_added_on_its_own_line() -> None:
    pages = PageTexts()
    pages.add(URL, "One text.")
    pages.add(URL, "Another text.")
    pages.add(URL, "one text.")  # already held: not added twice
    assert pages.pages == {KEY: "one text.\nanother text."}
    assert pages.total == len("one text.") + 1 + len("another text.") + 1


def test_the_page_and_run_caps(monkeypatch: Any) -> None:
    monkeypatch.setattr(quotes, "MAX_PAGE_CHARS", 10)
    pages = PageTexts()
    pages.add(URL, "abcdefghijklmnop")
    assert pages.pages == {KEY: "abcdefghij"} and not pages.clipped
    pages.add(URL, "more")
    assert pages.clipped is True and pages.pages == {KEY: "abcdefghij"}
    monkeypatch.setattr(quotes, "MAX_PAGE_CHARS", 100)
    monkeypatch.setattr(quotes, "MAX_RUN_CHARS", 12)
    run = PageTexts()
    run.add(URL, "abcdefghij")
    run.add("https://example.org/b", "klmnopqrstu")
    assert run.pages["//example.org/b"] == "k" and run.total == 13
    run.add("https://example.org/c", "x")
    assert run.clipped is True and "//example.org/c" not in run.pages


def test_a_quote_shorter_than_the_minimum_is_found_nowhere() -> None:
    pages = PageTexts()
    text = "x" * (MIN_QUOTE + 5)
    pages.add(URL, text)
    assert pages.found_in("x" * MIN_QUOTE) == [KEY]
    assert pages.found_in("x" * (MIN_QUOTE - 1)) == []


def test_citations_are_kept_tidy_and_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(quotes, "MAX_CITATIONS", 2)
    pages = PageTexts()
    for n in range(3):
        pages.cite(URL, f"Cited\n\n  text {n}")
    assert pages.citations == [(URL, "Cited text 0"), (URL, "Cited text 1")]
    assert pages.found_in("cited text 2") == [KEY]  # read, though not kept for the review


def _fetched(content: Any, url: Any = URL, kind: str = "web_fetch_result") -> dict[str, Any]:
    return {
        "type": "web_fetch_tool_result",
        "content": {"type": kind, "url": url, "content": content},
    }


def test_an_html_page_is_read_as_text_and_plain_text_as_written() -> None:
    pages = PageTexts()
    html = {"source": {"type": "text", "data": "<html><p>Tides <i>rise</i></p></html>"}}
    api_texts([_fetched(html)], pages)
    assert pages.pages == {KEY: "tides rise"}
    pages = PageTexts()
    plain = {"source": {"type": "text", "data": "if a < b then b > a"}}
    api_texts([_fetched(plain)], pages)
    assert pages.pages == {KEY: "if a < b then b > a"}


def test_what_is_no_fetched_page_adds_nothing() -> None:
    doc = {"source": {"type": "text", "data": "Words on a page."}}
    for block in (
        _fetched("not a document"),
        _fetched(doc, url=7),
        _fetched(doc, kind="web_fetch_tool_error"),
        {"type": "web_fetch_tool_result", "content": "not a dict"},
        {"type": "server_tool_use", "content": _fetched(doc)["content"]},
    ):
        pages = PageTexts()
        api_texts([block], pages)
        assert pages.pages == {} and pages.citations == [], block


def test_citations_on_text_blocks_are_read() -> None:
    good = {"url": URL, "cited_text": "Tides rise twice a day."}
    odd = ["x", {"url": 5, "cited_text": "no url"}, {"url": URL, "cited_text": None}]
    pages = PageTexts()
    api_texts([{"type": "text", "text": "...", "citations": [*odd, good]}], pages)
    api_texts([{"type": "thinking", "citations": [good | {"url": "https://x.example/"}]}], pages)
    assert pages.pages == {KEY: "tides rise twice a day."}
    assert pages.citations == [(URL, "Tides rise twice a day.")]


def test_an_empty_quote_is_looked_up_nowhere() -> None:
    pages = PageTexts()
    pages.add(URL, "Tides rise twice a day.")
    assert quote_hits(["", "  ", "Tides rise twice a day.", "tides  rise twice a day."], pages) == {
        "tides rise twice a day.": [KEY]
    }
