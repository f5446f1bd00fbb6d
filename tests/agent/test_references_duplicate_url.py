"""Real o-o files hold one URL under two ids. An unlabelled References entry whose URL two
sources share is the source of its position when that one has the URL: the list was flagged
"not in source order (item 14 is s2)" (a false warning, which also kept the proposal from
``--auto``), and a duplicate merged away kept its entry while the other's was replaced."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from oo_nb.agent.references import update_references
from oo_nb.agent.sources import url_key
from oo_nb.format.document import Document

FIXTURE = Path(__file__).parents[1] / "fixtures" / "issue12" / "refs-duplicate-url.o-o.html"
NEW = {
    "id": "s17",
    "url": "https://news.example.com/x",
    "title": "Latest",
    "accessed": "2026-11-28",
}
CITED = {f"s{n}" for n in range(1, 18) if n != 12}


def _setup() -> tuple[str, dict[str, dict[str, str]], dict[str, list[str]]]:
    doc = Document.read(FIXTURE)
    html = doc.article_html
    body = html[html.index('<h2 id="references">References</h2>') + 36 :]
    old = {s["id"]: s for s in doc.block_json("oo-source-cache")["sources"]}
    urls: dict[str, list[str]] = {}  # as the candidate passes them: every id of a URL
    for sid, s in old.items():
        urls.setdefault(url_key(s["url"]), []).append(sid)
    assert old["s2"]["url"] == old["s14"]["url"]
    return body, old, urls


def _items(body: str) -> list[str]:
    return re.findall(r"<li\b.*?</li>", body[: body.index("</ol>")], re.S)


def test_a_shared_url_does_not_make_the_list_out_of_order() -> None:
    body, old, urls = _setup()
    up = update_references(body, {**old, "s17": NEW}, set(old), urls, CITED, date(2026, 12, 1))
    assert up.out_of_order is None
    items = _items(up.body)
    assert len(items) == 17 and "news.example.com/x" in items[16]
    assert _items(body) == items[:16]  # every entry kept byte for byte


def test_the_entry_of_the_duplicate_that_left_is_the_one_replaced() -> None:
    body, old, urls = _setup()
    kept = {k: v for k, v in old.items() if k != "s14"}  # s14 merged into s2
    up = update_references(body, kept, set(old), urls, CITED - {"s14"}, date(2026, 12, 1))
    items, before = _items(up.body), _items(body)
    assert items[1] == before[1]  # s2 keeps its entry
    assert "source removed" in items[13]  # s14's place holds the placeholder


def test_an_update_of_a_document_with_a_shared_url() -> None:
    """Through the candidate: the cache's duplicate s14 of s2 is not merged (issue 26), so
    every entry keeps its bytes, the new one is appended; the list is not flagged."""
    from oo_nb.agent.candidate import build_candidate
    from oo_nb.agent.proposal import validate_proposal
    from oo_nb.agent.types import RunInfo

    doc = Document.read(FIXTURE)
    proposal = validate_proposal(
        {
            "summary": "New section.",
            "sections": [{"id": "news", "title": "News", "html": "<p>New [s17].</p>"}],
            "sources": [NEW],
        }
    )
    run = RunInfo(backend="anthropic", model="claude-sonnet-5-5", seen_urls={NEW["url"]})
    built = build_candidate(doc, proposal, run, today=date(2026, 12, 1), pid_seed="t")
    assert not [w for w in built.warnings if "source order" in w], built.warnings
    after = built.document.article_html
    body = after[after.index('<h2 id="references">References</h2>') + 36 :]
    items, before = _items(body), _items(_setup()[0])
    assert items[:16] == before[:16]
    assert "news.example.com/x" in items[16]
