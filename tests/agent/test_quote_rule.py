"""Issue 28 item 11: a quote must be specific enough to support its fact (``agent.quote_rule``),
with its false-positive rate measured on the demo and corpus documents' facts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.quote_rule import too_generic
from oo_nb.agent.quotes import PageTexts, quote_hits
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from tests.conftest import CORPUS
from tests.support.forged_pending import NOW, TODAY

DEMO = Path(__file__).resolve().parents[2] / "oo_nb" / "demo" / "data" / "documents"
BOILERPLATE = ("the company said", "the company said in a statement", "according to the report")


def _facts() -> list[tuple[str, str | None]]:
    """(fact text, its quote or None) of every fact of the demo and corpus documents."""
    out: list[tuple[str, str | None]] = []
    for path in [*DEMO.glob("*.o-o.html"), *CORPUS.glob("*.o-o.html")]:
        doc = Document.read(path)
        if not doc.has_block("oo-source-cache"):
            continue
        for fact in doc.block_json("oo-source-cache").get("facts") or []:
            if isinstance(fact, str):
                out.append((fact, None))
            elif fact.get("text"):
                out.append((fact["text"], fact.get("quote")))
            else:  # key/value facts
                out.append((f"{str(fact.get('key')).replace('_', ' ')}: {fact.get('value')}", None))
    return out


def test_false_positive_rate_on_the_demo_and_corpus_facts() -> None:
    facts = _facts()
    quoted = [(t, q) for t, q in facts if q]
    assert len(quoted) == 5 and [too_generic(q, t) for t, q in quoted] == [None] * 5
    # each fact quoted by its own words: none refused (0 of 48)
    assert len(facts) == 48 and [t for t, _ in facts if too_generic(t, t)] == []
    # and the boilerplate is refused for every fact
    assert all(too_generic(b, t) for t, _ in facts for b in BOILERPLATE)


def _proposal(quote: str) -> Any:
    return validate_proposal(
        {
            "summary": "update",
            "sections": [{"id": "q", "title": "Q", "html": "<p>Revenue doubled [s90].</p>"}],
            "sources": [{"id": "s90", "url": "https://a.example.com/r", "title": "A"}],
            "facts": [
                {"text": "Acme's revenue doubled to $4B in 2025", "source_ids": ["s90"],
                 "quote": quote}
            ],
        }
    )  # fmt: skip


def test_a_boilerplate_quote_found_on_the_page_supports_nothing() -> None:
    quote = "the company said"
    pages = PageTexts()
    pages.add("https://a.example.com/r", f"Weather was mild, {quote}. Nothing about revenue.")
    run = RunInfo("anthropic", "claude-sonnet-5-5", seen_urls={"https://a.example.com/r"})
    run.quote_hits = quote_hits([quote], pages)
    doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")
    cand = build_candidate(doc, _proposal(quote), run, today=TODAY, now=NOW)
    fact = cand.document.block_json("oo-source-cache")["facts"][-1]
    assert fact["quote_found"] is False and cand.unsupported
    assert any("too generic" in w for w in cand.warnings)
