"""Source-cache merging for a proposal: ids, duplicates, verification, drops, facts, References.

Decisions (documented for the review and the format notes):

- **Ids.** Existing ids never change meaning. New sources are numbered from one above the highest
  id used anywhere in the document (cache, References list, article citations), in the order the
  proposal lists them; when the model picked another id (one already taken, or a gap), the
  proposal's own citations and facts are rewritten to the new number and a note says so. Under an
  id already taken, a paragraph the proposal kept keeps its citations of the cached source, and
  a source whose citations cannot be told from the cached one's is refused
  (``SourceLedger._kept_citations``).
- **Duplicates.** URLs are compared normalised (scheme, ``www.``, default port, fragment,
  trailing slash and tracking parameters ignored). A proposal source whose URL is already cached
  becomes that cached id (the lowest one with it). Ids already sharing a URL in the cache are
  never merged by an update: that would rewrite paragraphs it did not touch (issue 26).
- **References.** The browser links ``[sN]`` to the N-th list item, so position N holds ``sN``:
  the list runs from s1 to the highest cited id, uncited sources in between are listed too, and
  an id that no longer has a source gets a placeholder item. Each item is
  ``<li>[sN] <a href="URL" rel="noopener noreferrer">Title</a>, domain</li>``.
- **Facts** are written in the cache's own form: strings get trailing ``[sN]`` markers
  (``"text [s17] [s18]"``); objects are ``{"text", "source_ids"}``. An empty list gets objects.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Collection
from typing import Any

from oo_nb.format.blocks import domain_of, fact_source_ids
from oo_nb.format.sanitize import safe_http_url, sanitize_text
from oo_nb.format.vocab import CITATION_WITH_SPACE, cited_id, url_key

__all__ = [
    "fact_ids",
    "id_number",
    "references_html",
    "remap_citations",
    "url_key",  # vocab's, still imported from here by agent/references
]


def id_number(source_id: str) -> int | None:
    m = re.fullmatch(r"s([0-9]{1,6})", source_id)
    return int(m.group(1)) if m else None


def remap_citations(
    text: str, mapping: dict[str, str | None], keep: Collection[int] = ()
) -> tuple[str, list[str]]:
    """Rewrite ``[sN]`` (and ``[SN]``) tokens in one pass: ``mapping[id]`` is the new id (written
    ``[sM]``), or None to remove the token (with the space before it). Returns the text and the
    removed ids. A token starting at an offset in ``keep`` is left as it is."""
    removed: list[str] = []

    def swap(m: re.Match[str]) -> str:
        sid = cited_id(m)  # "[S3]" and "[s03]" cite s3
        if sid not in mapping or m.start(2) - 1 in keep:
            return m.group(0)
        new = mapping[sid]
        if new is None:
            removed.append(sid)
            return ""
        return f"{m.group(1)}[{new}]"

    out = CITATION_WITH_SPACE.sub(swap, text)
    return out, removed


def fact_ids(fact: Any) -> list[str]:
    """The source ids a raw fact names (string markers or object keys)."""
    return list(fact_source_ids(fact))


def _reference_item(sid: str, source: Any) -> str:
    if isinstance(source, str):
        return (
            f"<li>[{sid}] {html_lib.escape(sanitize_text(source, max_len=500), quote=False)}</li>"
        )
    url = safe_http_url(str(source.get("url") or ""))
    title = sanitize_text(str(source.get("title") or ""), max_len=500) or (
        domain_of(url) if url else sid
    )
    title_html = html_lib.escape(title, quote=False)
    if not url:
        return f"<li>[{sid}] {title_html}</li>"
    domain = html_lib.escape(domain_of(url), quote=False)
    href = html_lib.escape(url)
    return f'<li>[{sid}] <a href="{href}" rel="noopener noreferrer">{title_html}</a>, {domain}</li>'


def references_html(sources: dict[str, Any], cited: Collection[str]) -> tuple[str, list[str]]:
    """The ``<ol>`` of the References section (see the module notes) and the cited ids that
    have no source."""
    numbers = [n for n in (id_number(s) for s in cited if s in sources) if n is not None]
    last = max(numbers, default=0)
    items = []
    for n in range(1, last + 1):
        sid = f"s{n}"
        if sid in sources:
            items.append(_reference_item(sid, sources[sid]))
        else:
            items.append(f'<li class="ref-missing">[{sid}] <em>source removed</em></li>')
    missing = sorted((s for s in cited if s not in sources), key=lambda s: id_number(s) or 0)
    if not items:
        return "", missing
    return "<ol>\n" + "\n".join(items) + "\n</ol>", missing
