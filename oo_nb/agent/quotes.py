"""Quotes checked against what the run read: the text of fetched pages, search results and
citations, kept per page while the run goes on, then looked up for each quoted fact.

Rules (issue 16):

- A quote is found only in the text of one of the fact's OWN sources, matched by ``url_key`` as
  source verification is: a quote from page A backing a fact that cites page B is not found.
- Matching ignores case, runs of whitespace, the kind of quote mark (curly, guillemets, primes)
  and of dash (en, em, minus, hyphen variants), and invisible format characters (soft hyphens,
  zero-width spaces and joiners, bidi marks, BOM), which pages carry where readers see nothing;
  nothing else. Compatibility forms are folded (NFKC: ligatures, full-width letters) except
  superscripts, which stay apart as ``^…``: "10⁶" is a million, not "106". A quote shorter than
  ``MIN_QUOTE`` characters proves nothing and is refused with a warning.
- Everything here is bounded: a page keeps at most ``MAX_PAGE_CHARS`` characters, a run
  ``MAX_RUN_CHARS``; citations are capped too. Text past a cap is not searched, so a quote from
  it is "not found" (the honest verdict for text the harness did not keep).

Only the verdicts travel with a saved proposal (``RunInfo.quote_hits``: normalised quote → the
page keys it was found in), not the pages.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from oo_nb.agent.proposal import LIMITS, QUOTE_MIN
from oo_nb.format.vocab import url_key

__all__ = [
    "MAX_CITATIONS",
    "MAX_CITED_CHARS",
    "MAX_PAGE_CHARS",
    "MAX_QUOTE",
    "MAX_RUN_CHARS",
    "MIN_QUOTE",
    "PageTexts",
    "api_texts",
    "normalise",
    "quote_hits",
]

MAX_QUOTE = LIMITS["fact.quote"]  # one or two sentences; longer is refused, not truncated
MIN_QUOTE = QUOTE_MIN
MAX_PAGE_CHARS = 400_000
MAX_RUN_CHARS = 8_000_000
MAX_CITATIONS = 200
MAX_CITED_CHARS = 600

_QUOTES = dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032\u2035`\u00b4"), "'")
_QUOTES |= dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033\u2036"), '"')
_DASHES = dict.fromkeys(
    map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-"
)
_WS = re.compile(r"\s+")
# Unicode format characters (category Cf) that show nothing: a quote copied as a page shows
# must match the page's text with them, and they must not make a quote of their own
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb]"
)
_SUPERSCRIPT = re.compile("[\u00b2\u00b3\u00b9\u2070-\u207f]+")
_TAGS = re.compile(r"<[^>]{0,2000}>")


def normalise(text: str) -> str:
    """Text reduced for matching: invisible characters dropped, NFKC, quote marks and dashes
    unified, case folded, whitespace collapsed to single spaces."""
    out = _SUPERSCRIPT.sub(lambda m: "^" + m.group(0), _INVISIBLE.sub("", text))
    out = unicodedata.normalize("NFKC", out)
    out = out.translate(_QUOTES).translate(_DASHES)
    return _WS.sub(" ", out.casefold()).strip()


@dataclass
class PageTexts:
    """The text each page of this run showed, normalised, by ``url_key``; and the API's
    citations (URL, cited text) in the order they came. In memory only."""

    pages: dict[str, str] = field(default_factory=dict)
    citations: list[tuple[str, str]] = field(default_factory=list)
    total: int = 0
    clipped: bool = False

    def add(self, url: str, text: str, *, markup: bool = False) -> None:
        if not url or not text:
            return
        if markup:
            text = _TAGS.sub(" ", text)
        key = url_key(url)
        have = self.pages.get(key, "")
        room = min(MAX_PAGE_CHARS - len(have), MAX_RUN_CHARS - self.total)
        if room <= 0:
            self.clipped = True
            return
        piece = normalise(text[: room * 2])[:room]
        if piece and piece in have:
            return
        self.pages[key] = f"{have}\n{piece}" if have else piece
        self.total += len(piece) + 1

    def cite(self, url: str, cited: str) -> None:
        """One API citation: its text counts as read from ``url``, and is kept for the review."""
        self.add(url, cited)
        if len(self.citations) < MAX_CITATIONS:
            self.citations.append((url, _WS.sub(" ", cited).strip()[:MAX_CITED_CHARS]))

    def found_in(self, quote: str) -> list[str]:
        """The page keys whose text holds ``quote`` (normalised)."""
        q = normalise(quote)
        if len(q) < MIN_QUOTE:
            return []
        return sorted(k for k, text in self.pages.items() if q in text)


def _document_text(doc: Any) -> str:
    """The text of a web_fetch ``document`` (plain text sources; PDFs come base64 and are not
    searched)."""
    if not isinstance(doc, dict):
        return ""
    source = doc.get("source")
    if isinstance(source, dict) and source.get("type") == "text":
        data = source.get("data")
        return data if isinstance(data, str) else ""
    if isinstance(source, dict) and source.get("type") == "content":
        parts = source.get("content")
        return "\n".join(
            p["text"] for p in parts or [] if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def api_texts(blocks: Iterable[dict[str, Any]], into: PageTexts) -> None:
    """Take the readable text of one assistant turn: fetched documents by their URL, and the
    ``cited_text`` of citations (on text blocks and inside fetched documents) by theirs."""
    for block in blocks:
        kind = block.get("type")
        content = block.get("content")
        if kind == "web_fetch_tool_result" and isinstance(content, dict):
            url = content.get("url")
            if content.get("type") == "web_fetch_result" and isinstance(url, str):
                text = _document_text(content.get("content"))
                into.add(url, text, markup="<" in text[:2000] and "</" in text)
        elif kind == "text":
            for c in block.get("citations") or []:
                if (
                    isinstance(c, dict)
                    and isinstance(c.get("url"), str)
                    and isinstance(c.get("cited_text"), str)
                ):
                    into.cite(c["url"], c["cited_text"])


def quote_hits(quotes: Sequence[str], pages: PageTexts) -> dict[str, list[str]]:
    """For each quote (normalised), the page keys it was found in; quotes found nowhere map to
    an empty list. Bounded by the proposal's own fact limit."""
    out: dict[str, list[str]] = {}
    for quote in quotes:
        q = normalise(quote)
        if q and q not in out:
            out[q] = pages.found_in(q)
    return out
