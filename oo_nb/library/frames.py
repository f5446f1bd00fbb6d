"""Digests to tidy pandas frames with real dtypes: ``datetime64[ns]`` dates, nullable ``Int64`` /
``Float64`` / ``boolean``, ``string`` text and ``category`` for tier, layout and severity.
Columns are fixed (the changelog adds one column per extra recorded field), so an empty
library gives empty frames with the same columns and dtypes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

import numpy as np
import pandas as pd

from oo_nb.format.names import DOC_SUFFIX
from oo_nb.format.tiers import GROUPS, tier_group
from oo_nb.format.vocab import domain_patterns, matched_pattern
from oo_nb.library.digest import Digest, Failure

__all__ = [
    "changelog_frame",
    "citations_frame",
    "documents_frame",
    "errors_frame",
    "facts_frame",
    "make_frame",
    "sources_frame",
    "text_series",
]

_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()

DOCUMENT_COLUMNS = {
    "slug": "string",  # the document's name first: what every other frame calls ``doc``
    "title": "string",
    "version": "Int64",
    "as_of": "datetime64[ns]",
    "cadence_days": "Int64",
    "due": "datetime64[ns]",
    "overdue_days": "Int64",
    "is_stale": "boolean",
    "is_sentinel": "boolean",
    "sentinel_status": "string",
    "n_sources": "Int64",
    "n_facts": "Int64",
    "n_citations": "Int64",
    "n_figures": "Int64",
    "bytes": "Int64",
    "budget_usd": "Float64",
    "spent_usd": "Float64",
    "layout": "category",
    "path": "string",  # relative to the library's folder
}
SOURCE_COLUMNS = {
    "doc": "string",
    "source_id": "string",
    "url": "string",
    "domain": "string",
    "title": "string",
    "description": "string",
    "tier": "category",
    "tier_group": "category",  # the tier in a fixed vocabulary (oo_nb.format.tiers)
    "accessed": "datetime64[ns]",
    "age_days": "Int64",
    "cited": "bool",
    "n_citations": "Int64",
    "denied": "bool",
    "preferred": "bool",
    "verified": "boolean",
}
FACT_COLUMNS = {
    "doc": "string",
    "fact_id": "string",
    "text": "string",
    "key": "string",
    "value": "string",
    "source_ids": "object",
    "has_source": "bool",
    "quote": "string",
    "quote_found": "boolean",
}
CHANGELOG_COLUMNS = {
    "doc": "string",
    "version": "Int64",
    "timestamp": "datetime64[ns]",
    "summary": "string",
    "cost_usd": "Float64",
    "origin": "category",
}
CITATION_COLUMNS = {
    "doc": "string",
    "section": "string",
    "pid": "string",
    "source_id": "string",
    "resolves": "boolean",
}
ERROR_COLUMNS = {
    "path": "string",
    "error_type": "category",
    "message": "string",
    "line": "Int64",
    "column": "Int64",
    "block": "string",
}


def _dates(values: Sequence[date | None]) -> np.ndarray[Any, Any]:
    """Dates to ``datetime64[ns]`` without a Python-level parse per value."""
    days = np.fromiter(
        (v.toordinal() - _EPOCH_ORDINAL if v is not None else 0 for v in values),
        dtype="int64",
        count=len(values),
    )
    out = days.astype("datetime64[D]").astype("datetime64[ns]")
    out[np.fromiter((v is None for v in values), dtype=bool, count=len(values))] = np.datetime64(
        "NaT"
    )
    return out


def make_frame(rows: Iterable[Sequence[Any]], columns: dict[str, str]) -> pd.DataFrame:
    """A frame from row tuples, each column cast to its declared dtype."""
    rows = list(rows)
    transposed = list(zip(*rows, strict=True)) if rows else [() for _ in columns]
    return from_columns(dict(zip(columns, transposed, strict=True)), columns)


def from_columns(data: dict[str, Sequence[Any]], columns: dict[str, str]) -> pd.DataFrame:
    """A frame from one sequence per column, each cast to its declared dtype."""
    out: dict[str, Any] = {}
    for name, dtype in columns.items():
        values = data[name]
        if dtype == "datetime64[ns]":
            out[name] = pd.Series(_dates(values), dtype="datetime64[ns]")
        elif dtype == "object":
            out[name] = pd.Series(list(values), dtype="object")
        elif dtype == "category":
            out[name] = text_series(values).astype("category")
        elif dtype == "string":
            out[name] = text_series(values)
        else:
            out[name] = pd.Series(list(values), dtype=dtype)
    return pd.DataFrame(out, columns=list(columns))


def text_series(values: Iterable[Any]) -> pd.Series[Any]:
    """A ``string`` column: Arrow-backed (one buffer, no Python object per value), unless a
    value holds a lone surrogate (a file name that is not UTF-8), which Arrow's UTF-8 cannot
    hold: that column keeps Python strings, the name as it is."""
    values = list(values)
    try:
        return pd.Series(values, dtype="string")
    except UnicodeEncodeError:
        return pd.Series(values, dtype=pd.StringDtype("python"))


def _spent(d: Digest) -> float | None:
    costs = [e["cost_usd"] for e in d.changelog if _number(e.get("cost_usd")) is not None]
    return float(sum(costs)) if costs else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


# --------------------------------------------------------------------------- frames
def documents_frame(digests: Sequence[Digest], today: date) -> pd.DataFrame:
    rows = []
    for d in digests:
        due: date | None = None
        overdue: int | None = None
        stale: bool | None = None  # unknown when the manifest cannot be read
        if d.cadence_days is not None:
            stale = True  # never updated
            if d.as_of is not None:
                due = date.fromordinal(d.as_of.toordinal() + d.cadence_days)
                overdue = max(0, (today - due).days)
                stale = today >= due  # FORMAT.md §5: fresh while age < cadence
        cache_known = d.cache_read
        rows.append(
            (
                d.slug,
                d.title,
                d.version,
                d.as_of,
                d.cadence_days,
                due,
                overdue,
                stale,
                d.is_sentinel,
                d.sentinel_status,
                len(d.sources) if cache_known else None,
                len(d.facts) if cache_known else None,
                len(d.cite_ids),
                d.figures,
                d.nbytes,
                d.budget_usd,
                _spent(d),
                d.layout,
                _relative_path(d),
            )
        )
    return make_frame(rows, DOCUMENT_COLUMNS)


def _relative_path(d: Digest) -> str:
    """The file's path relative to the library's folder: the slug is that path without the
    suffix (``store.discover`` finds only NAME.o-o.html files; a library of one file names it)."""
    return d.slug + DOC_SUFFIX if d.path.endswith(DOC_SUFFIX) else d.slug


def sources_frame(digests: Sequence[Digest], today: date) -> pd.DataFrame:
    rows = []
    ordinal = today.toordinal()
    for d in digests:
        cited = d.cite_counts
        deny, prefer = domain_patterns(d.deny), domain_patterns(d.prefer)
        slug = d.slug
        for sid, url, domain, title, description, tier, accessed, verified, _form in d.sources:
            n = cited.get(sid, 0)
            rows.append(
                (
                    slug,
                    sid,
                    url or None,
                    domain or None,
                    title or None,
                    description or None,
                    tier or None,
                    None,  # tier_group: filled per distinct tier below
                    accessed,
                    ordinal - accessed.toordinal() if accessed else None,
                    n > 0,
                    n,
                    bool(domain) and matched_pattern(domain, deny) is not None,
                    bool(domain) and matched_pattern(domain, prefer) is not None,
                    verified,
                )
            )
    frame = make_frame(rows, SOURCE_COLUMNS)
    tiers = frame["tier"].cat.categories
    groups = {t: tier_group(t) for t in tiers}
    frame["tier_group"] = pd.Categorical(
        frame["tier"].astype(object).map(groups), categories=list(GROUPS)
    )
    return frame


def facts_frame(digests: Sequence[Digest]) -> pd.DataFrame:
    rows = []
    for d in digests:
        quotes = {fid: (q, found) for fid, q, found in d.quotes}
        known = {s[0] for s in d.sources}
        for fid, text, key, value, sids, _form in d.facts:
            quote, found = quotes.get(fid, (None, None))
            # a source it names that the cache holds: an id of no source is no source
            has_source = any(sid in known for sid in sids)
            rows.append((d.slug, fid, text, key, value, list(sids), has_source, quote, found))
    return make_frame(rows, FACT_COLUMNS)


def citations_frame(digests: Sequence[Digest]) -> pd.DataFrame:
    # Columnar: a library holds hundreds of thousands of citations.
    doc: list[str] = []
    section: list[str | None] = []
    pid: list[str | None] = []
    sid: list[str] = []
    resolves: list[bool | None] = []
    for d in digests:
        n = len(d.cite_ids)
        if not n:
            continue
        doc.extend([d.slug] * n)
        section.extend(d.cite_sections)
        pid.extend(d.cite_pids)
        sid.extend(d.cite_ids)
        if d.cache_read:
            known = {s[0] for s in d.sources}
            resolves.extend([x in known for x in d.cite_ids])
        else:
            resolves.extend(
                [None] * n
            )  # an unreadable cache: whether a citation resolves is unknown
    section = [x or None for x in section]
    data: dict[str, Sequence[Any]] = {
        "doc": doc,
        "section": section,
        "pid": pid,
        "source_id": sid,
        "resolves": resolves,
    }
    return from_columns(data, CITATION_COLUMNS)


def changelog_frame(digests: Sequence[Digest]) -> pd.DataFrame:
    fixed = list(CHANGELOG_COLUMNS)
    extras: dict[str, None] = {}
    records = []
    for d in digests:
        for entry in d.changelog:
            for key in entry:
                if key not in CHANGELOG_COLUMNS and key != "doc":
                    extras.setdefault(key, None)
            records.append((d.slug, entry))
    rows = [
        (
            slug,
            _int(e.get("version")),
            None,
            e.get("summary"),
            _number(e.get("cost_usd")),
            e.get("origin"),
        )
        for slug, e in records
    ]
    frame = make_frame(rows, CHANGELOG_COLUMNS)
    stamps = pd.to_datetime(
        pd.Series([e.get("timestamp") for _, e in records], dtype="object"),
        errors="coerce",
        utc=True,
        format="ISO8601",
    )
    frame["timestamp"] = stamps.dt.tz_convert(None).astype("datetime64[ns]")
    for key in extras:
        column = pd.Series([e.get(key) for _, e in records], dtype="object")
        if not column.map(lambda v: isinstance(v, (list, dict))).any():
            column = column.convert_dtypes()
        frame[key] = column
    return frame[fixed + list(extras)]


def errors_frame(digests: Sequence[Digest], failures: Sequence[Failure]) -> pd.DataFrame:
    rows: list[tuple[Any, ...]] = [
        (f.path, f.error_type, f.message, f.line, f.column, f.block) for f in failures
    ]
    rows.extend(
        (d.path, p.error_type, p.message, p.line, p.column, p.block)
        for d in digests
        for p in d.problems
    )
    return make_frame(rows, ERROR_COLUMNS)
