"""Badges from the quote check (issue 16), put on hunks after the diff is made: a fact shows
whether its quote was found; a paragraph shows when it cites a source whose new fact's quote was
not found, and beside it the passages the API cited from the pages it cites (``cited_text``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from oo_nb.format.sanitize import sanitize_text
from oo_nb.format.vocab import citation_ids, url_key
from oo_nb.review.hunks import Hunk

__all__ = ["QUOTE_FOUND", "QUOTE_MISSING", "add_quote_badges", "unsupported_ids"]

QUOTE_FOUND = "quote found"
QUOTE_MISSING = "quote not found"
_MAX_CITED = 3  # passages shown beside one paragraph


def _facts(cache: Any) -> list[Any]:
    items = cache.get("facts") if isinstance(cache, dict) else None
    return items if isinstance(items, list) else []


def _verdict(fact: Any) -> bool | None:
    if isinstance(fact, dict) and isinstance(fact.get("quote"), str):
        found = fact.get("quote_found")
        return found if isinstance(found, bool) else None
    return None


def unsupported_ids(cache_before: Any, cache_after: Any) -> set[str]:
    """Source ids named by facts that are new in ``cache_after`` and whose quote was not found."""
    old = {repr(f) for f in _facts(cache_before)}
    out: set[str] = set()
    for f in _facts(cache_after):
        if _verdict(f) is False and repr(f) not in old:
            ids = f.get("source_ids")
            if isinstance(ids, list):
                out.update(s for s in ids if isinstance(s, str))
    return out


def _cited_by_url(run: dict[str, Any] | None) -> dict[str, list[str]]:
    raw = run.get("citations") if isinstance(run, dict) else None
    out: dict[str, list[str]] = {}
    for item in raw if isinstance(raw, list) else []:  # the saved run record: untrusted
        if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
            # page text shown in a terminal and a widget: no escapes, controls or bidi overrides
            text = sanitize_text(item[1], max_len=600)
            if text and text not in out.setdefault(url_key(item[0]), []):
                out[url_key(item[0])].append(text)
    return out


def _source_urls(cache: Any) -> dict[str, str]:
    items = cache.get("sources") if isinstance(cache, dict) else None
    return {
        s["id"]: s["url"]
        for s in (items if isinstance(items, list) else [])
        if isinstance(s, dict) and isinstance(s.get("id"), str) and isinstance(s.get("url"), str)
    }


def add_quote_badges(
    hunks: Iterable[Hunk], cache_before: Any, cache_after: Any, run: dict[str, Any] | None
) -> list[Hunk]:
    after_facts = _facts(cache_after)
    by_text = {(f.get("text") if isinstance(f, dict) else None): _verdict(f) for f in after_facts}
    flagged = unsupported_ids(cache_before, cache_after)
    cited = _cited_by_url(run)
    # the passages cited from each source's page; a source without a URL names no page (and a
    # citation saved without one is no source's: url_key("") is "/")
    passages_of = {
        sid: cited.get(url_key(url), []) for sid, url in _source_urls(cache_after).items() if url
    }
    out: list[Hunk] = []
    for h in hunks:
        badges: list[str] = []
        passages: list[str] = []
        if h.area == "facts" and h.kind in ("added", "changed"):
            verdict = by_text.get(h.after_text)
            if verdict is not None:
                badges.append(QUOTE_FOUND if verdict else QUOTE_MISSING)
        elif h.area == "article" and h.kind in ("added", "changed") and not h.derived:
            ids = citation_ids(h.after_html)
            bad = [s for s in ids if s in flagged]
            if bad:
                badges.append(f"{QUOTE_MISSING} for a fact citing {', '.join(bad)}")
            for sid in ids:
                for text in passages_of.get(sid, []):
                    if len(passages) < _MAX_CITED and f"[{sid}] {text}" not in passages:
                        passages.append(f"[{sid}] {text}")
        out.append(replace(h, badges=tuple(badges), cited=tuple(passages)))
    return out
