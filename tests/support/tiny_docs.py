"""Small o-o documents built to order for review tests: a handful of paragraphs, their sources,
a References list (any order, numbered or not), facts, and whatever follows References."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from oo_nb.edit.new import NewSpec, render_new
from oo_nb.format.document import Document

__all__ = ["li", "page", "source", "updated"]

_BLANK = Document(render_new(NewSpec("Tides"), "tides.o-o.html", today=date(2026, 1, 1)))
NO_REFS: Sequence[str] = ("NO-REFERENCES",)


def source(n: int, title: str | None = None) -> dict[str, Any]:
    return {
        "id": f"s{n}",
        "url": f"https://example.org/{n}",
        "title": title or f"Report {n}",
        "tier": "secondary",
        "accessed": "2026-01-01",
    }


def li(src: dict[str, Any], numbered: bool = False) -> str:
    lead = f"[{src['id']}] " if numbered else ""
    return f'<li>{lead}<a href="{src["url"]}">{src["title"]}</a></li>'


def page(
    paras: Iterable[tuple[str, str]],
    sources: Sequence[dict[str, Any]] = (),
    *,
    refs: Sequence[str] | None = None,
    facts: Sequence[Any] | None = (),
    tail: str = "",
    version: int = 1,
    entry: dict[str, Any] | None = None,
    cache_sources: bool = True,
) -> Document:
    """``paras``: (8 hex digits, inner HTML) of each paragraph of one section; ``refs``: the
    References items (default: one per source, in order; ``NO_REFS``: no References list);
    ``facts=None``: a cache without a ``facts`` key; ``cache_sources=False``: sources only in
    the References list; ``entry``: fields of the last changelog entry."""
    html = '\n<!-- pid:tides:00000000 -->\n<h2 id="tides">Tides</h2>\n'
    html += "".join(f"\n<!-- pid:tides:{pid} -->\n<p>{text}</p>\n" for pid, text in paras)
    items = [li(s) for s in sources] if refs is None else list(refs)
    if items != list(NO_REFS):
        html += '\n<h2 id="references">References</h2>\n<ol>\n'
        html += "".join(f"{item}\n" for item in items) + "</ol>\n"
    doc = _BLANK.with_article(html + tail)
    cache: dict[str, Any] = {
        "last_updated": f"2026-01-0{version}",
        "sources": list(sources) if cache_sources else [],
    }
    if facts is not None:
        cache["facts"] = list(facts)
    doc = doc.with_block("oo-source-cache", cache)
    doc = doc.edit_block("oo-manifest", lambda m: m.update(version=version))
    entries = [
        {
            "version": n + 1,
            "timestamp": f"2026-01-0{n + 1}T09:00:00Z",
            "summary": f"Update {n + 1}.",
        }
        for n in range(version)
    ]
    entries[-1].update(entry or {})
    return doc.with_block("oo-changelog", {"entries": entries})


def updated(*args: Any, **kwargs: Any) -> Document:
    """``page`` one version on, as a candidate from an update (version 2, with its entry)."""
    kwargs.setdefault("version", 2)
    return page(*args, **kwargs)
