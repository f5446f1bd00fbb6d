"""The two checks that keep invented or hostile citations out of a document: the URL check (only
absolute http(s) URLs with a host) and verification (a source counts as seen only when this run
saw that page, as ``url_key`` names pages — never because its host was seen)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.sources import url_key
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from oo_nb.format.sanitize import safe_http_url

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)

# schemes that carry a host but are not the web, and the ways to disguise them
HOSTILE_URLS = [
    "javascript://example.com/%0Aalert(document.title)",
    "JavaScript://example.com/%0Aalert(1)",
    "  javascript://example.com/%0Aalert(1)",
    "\x01javascript://example.com/%0Aalert(1)",
    "java\tscript://example.com/%0Aalert(1)",
    "java\nscript://example.com/%0Aalert(1)",
    "data://example.com/text/html,<script>alert(1)</script>",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "VBScript://example.com/x",
    "ftp://example.com/file.txt",
    "file:///etc/passwd",
    "//example.com/scheme-relative",
    "https:example.com/no-host",
    "http:/example.com/one-slash",
]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_the_url_check_refuses_every_scheme_but_http_and_https(url: str) -> None:
    assert safe_http_url(url) is None


@pytest.mark.parametrize(
    "url", ["https://example.com/a", "HTTP://Example.com/a?b=1#c", "  https://example.com/  "]
)
def test_the_url_check_keeps_http_and_https(url: str) -> None:
    assert safe_http_url(url) == url.strip()


def _run(*seen: str) -> RunInfo:
    return RunInfo(backend="anthropic", model="claude-test", seen_urls=set(seen))


def _build(doc: Document, sources: list[dict[str, Any]], *seen: str) -> Candidate:
    cites = " ".join(f"Claim [{s['id']}]." for s in sources)
    raw = {
        "summary": "update",
        "sections": [{"id": "checks", "title": "Checks", "html": f"<p>{cites}</p>"}],
        "sources": sources,
        "facts": [{"text": "A claim the source backs", "source_ids": [s["id"]]} for s in sources],
    }
    return build_candidate(doc, validate_proposal(raw), _run(*seen), today=TODAY, now=NOW)


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_a_hostile_source_reaches_neither_references_nor_cache_nor_facts(
    corpus_dir: Path, url: str
) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")  # require_https is off here
    cand = _build(doc, [{"id": "s90", "url": url, "title": "Looks fine"}], url)
    new = cand.document
    cache = new.block_json("oo-source-cache")
    number = len(doc.block_json("oo-source-cache")["sources"])
    assert len(cache["sources"]) == number  # nothing added
    assert "s90" not in json.dumps(cache["facts"])  # the fact is kept, citing nothing
    assert [r.url for r in new.article.references] == [r.url for r in doc.article.references]
    for scheme in ("javascript", "vbscript", "data:", "ftp:", "file:"):
        assert scheme not in new.article_html.lower().replace(" ", "")
    assert "[s90]" not in new.article_html
    assert any("not an absolute http(s) URL" in w for w in cand.warnings)


SEEN = "https://www.reuters.com/technology/real-story/?utm_source=feed"
SAME_PAGE = [
    "https://www.reuters.com/technology/real-story",
    "http://reuters.com/technology/real-story/",
    "https://reuters.com/technology/real-story#section-2",
    "https://WWW.Reuters.com/technology/real-story?utm_medium=x",
    "https://reuters.com:443/technology/real-story",
]
OTHER_PAGE = [
    "https://www.reuters.com/technology/does-not-exist",
    "https://www.reuters.com/technology/real-story/comments",
    "https://www.reuters.com/technology/real-story?page=2",
    "https://www.reuters.com/technology",
    "https://www.reuters.com/",
    "https://reuters.com.evil.example/technology/real-story",
    "https://www.reuters.com:8443/technology/real-story",
]


@pytest.mark.parametrize(
    ("url", "same"), [(u, True) for u in SAME_PAGE] + [(u, False) for u in OTHER_PAGE]
)
def test_a_source_is_verified_only_when_url_key_calls_it_the_seen_page(
    corpus_dir: Path, url: str, same: bool
) -> None:
    """A variant of the seen address counts as seen; another page on the seen host does not."""
    assert (url_key(url) == url_key(SEEN)) is same
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    cand = _build(doc, [{"id": "s90", "url": url, "title": "Real" if same else "Made up"}], SEEN)
    added = [s for s in cand.document.block_json("oo-source-cache")["sources"] if s["url"] == url]
    assert [s["verified"] for s in added] == [same]
    assert cand.unverified == ([] if same else [added[0]["id"]])
    assert any("UNVERIFIED" in w for w in cand.warnings) is not same
