"""Defects of a source cache's sources that both ``oo check`` and the library audit report:
one id naming two entries (which page does ``[s1]`` cite?), a URL that is not a web page's (the
page links it: ``javascript:`` runs), an access date after today (its age would be negative).

Rows are ``blocks.SourceRow``s, so the audit (which reads digests) and check judge alike.
``odd_source_fields`` reads the raw block, which only check has: values the views read as
missing (``verified: "false"``, ``accessed: "soon"``) are named there."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date
from typing import Any

from oo_nb.format.article_script import url_scheme
from oo_nb.format.blocks import SourceRow, parse_date
from oo_nb.format.vocab import truncate

__all__ = ["odd_source_fields", "source_row_problems"]

_WEB_SCHEMES = ("http", "https")


def source_row_problems(rows: Sequence[SourceRow], today: date) -> Iterator[tuple[str, str, str]]:
    """(code, where, message) for each defect of the sources ``rows``, as of ``today``."""
    places: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        places.setdefault(row[0], []).append(i)
    for sid, at in places.items():
        if len(at) > 1:
            entries = "; ".join(
                f"sources[{i}] {truncate(rows[i][1], 60) or '(no url)'}" for i in at
            )
            yield (
                "duplicate-source-id",
                sid,
                f"[{sid}] names {len(at)} cached sources ({entries}): which one a citation "
                "means is unknown; give each its own id",
            )
    for sid, url, *_rest, accessed, _verified, _form in rows:
        scheme = url_scheme(url) if url else None
        if scheme is not None and scheme not in _WEB_SCHEMES:
            yield (
                "non-http-source",
                sid,
                f"{truncate(url, 60)!r} is a {scheme}: URL, not a web page's (the page links it)",
            )
        if accessed is not None and accessed > today:
            yield (
                "future-accessed",
                sid,
                f"accessed {accessed.isoformat()}, after today ({today.isoformat()})",
            )


def odd_source_fields(raw: Any) -> Iterator[tuple[str, str]]:
    """(where, message) for each source field of the raw cache ``raw`` whose value is read as
    missing though one is there: ``verified`` not true/false, ``accessed`` not a date."""
    sources = raw.get("sources") if isinstance(raw, dict) else None
    for i, item in enumerate(sources if isinstance(sources, list) else []):
        if not isinstance(item, dict):
            continue
        where = f"sources[{i}]"
        verified = item.get("verified")
        if verified is not None and not isinstance(verified, bool):
            yield (
                where,
                f"verified is {truncate(repr(verified), 40)}, not true or false: read as unknown",
            )
        accessed = item.get("accessed")
        if accessed not in (None, "") and parse_date(accessed) is None:
            yield where, f"accessed is {truncate(repr(accessed), 40)}, not a date: read as unknown"
