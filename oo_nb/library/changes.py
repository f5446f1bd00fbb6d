"""What changed, as data: one row per change to a fact, a source, a section or a sentinel's
status, read from the history every write already keeps (``store.history``: the snapshots and
``log.jsonl`` under ``.oo-history/NAME/``).

Each pair of consecutive kept states of a document (the current file last) is compared. A state
whose snapshot is missing, damaged or unreadable is stepped over: the next readable one is
compared with the last readable one, so nothing is reported twice and nothing invented. States
of two documents at one name (one deleted, then a new one made) are never compared. A
document with no history (only its current file) has no rows: there is nothing to compare.

Columns (``COLUMNS``, with their dtypes):

=========  ================  ==========================================================
document   string            the document's name (its path under the library, no suffix)
path       string            the document's file
seq        Int64             the history seq of the state the change arrived in
version    Int64             that state's version
date       datetime64[ns]    that state's as-of date (the write's date when it has none)
saved_at   datetime64[ns]    when the change was written (UTC, from the history log)
kind       string            fact, source, section or sentinel
change     string            added, removed or changed
item       string            the fact's key (or text), the source's URL, the section's id,
                             ``status`` for a sentinel
before     string            the old value (NA when added)
after      string            the new value (NA when removed)
sources    string            the URLs that back the change, space-separated (NA: none)
evidence   string            a sentinel's evidence after the change (NA otherwise)
=========  ================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.format.sentinel_state import current_sentinel
from oo_nb.format.vocab import citation_ids
from oo_nb.store.history import HistoryEntry, entry_bytes, read_history

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "Change", "changes_frame", "document_changes"]

COLUMNS: dict[str, str] = {
    "document": "string",
    "path": "string",
    "seq": "Int64",
    "version": "Int64",
    "date": "datetime64[ns]",
    "saved_at": "datetime64[ns]",
    "kind": "string",
    "change": "string",
    "item": "string",
    "before": "string",
    "after": "string",
    "sources": "string",
    "evidence": "string",
}
_SECTION_CHARS = 300  # a changed section shows this much of its text (a frame, not a diff)


@dataclass(frozen=True)
class Change:
    """One row of ``changes_frame`` (see the module's column list)."""

    document: str
    path: str
    seq: int
    version: int | None
    date: date | None
    saved_at: datetime | None
    kind: str
    change: str
    item: str
    before: str | None
    after: str | None
    sources: tuple[str, ...] = ()
    evidence: str | None = None


@dataclass(frozen=True)
class _State:
    """What one kept state says, in the terms rows compare."""

    entry: HistoryEntry
    as_of: date | None
    facts: dict[str, tuple[str, tuple[str, ...]]]  # key -> (text, source URLs)
    sources: dict[str, str]  # URL (or id) -> title
    sections: dict[str, tuple[str, str]]  # id -> (title, text)
    status: str | None
    evidence: str
    evidence_urls: tuple[str, ...]


def _read_state(path: Path, entry: HistoryEntry) -> _State | None:
    """The state of one history entry, or None when its bytes cannot be had or read."""
    try:
        data = entry_bytes(path, entry)  # checked, and never through a link
        doc = Document.parse(data, path=path)
        if doc.kind != "document":
            return None
        cache, contract, article = doc.source_cache, doc.contract, doc.article
        manifest = doc.manifest
    except (OSError, OOError):
        return None
    urls = {s.id: s.url or s.id for s in cache.sources}
    facts = {}
    for fact in cache.facts:
        key = fact.key or fact.text
        facts[key] = (fact.text, tuple(urls.get(i, i) for i in fact.source_ids))
    texts: dict[str, list[str]] = {}
    for para in article.paragraphs:
        texts.setdefault(para.section, []).append(para.text.strip())
    sections = {
        s.id: (s.title, " ".join(t for t in texts.get(s.id, []) if t))
        for s in article.sections
        if s.level == 2 and s.id
    }
    # an original o-o sentinel keeps its status in the changelog's reports, not the contract
    try:
        sentinel = current_sentinel(contract.sentinel, doc.changelog)
    except OOError:  # a changelog that cannot be read reports no status
        sentinel = contract.sentinel
    evidence = sentinel.evidence if sentinel else ""
    return _State(
        entry=entry,
        as_of=manifest.as_of,
        facts=facts,
        sources={s.url or s.id: s.title for s in cache.sources},
        sections=sections,
        status=sentinel.status if sentinel else None,
        evidence=evidence,
        evidence_urls=tuple(urls.get(i, i) for i in citation_ids(evidence)),
    )


def _short(text: str) -> str:
    return text if len(text) <= _SECTION_CHARS else text[:_SECTION_CHARS] + "…"


def _diff(
    old: _State, new: _State
) -> Iterator[tuple[str, str, str, str | None, str | None, tuple[str, ...]]]:
    """(kind, change, item, before, after, sources) for every difference, in a stable order."""
    if old.status != new.status and new.status is not None:
        yield "sentinel", "changed", "status", old.status, new.status, new.evidence_urls
    for key in sorted(old.facts.keys() | new.facts.keys()):
        before, after = old.facts.get(key), new.facts.get(key)
        if before is None and after is not None:
            yield "fact", "added", key, None, after[0], after[1]
        elif after is None and before is not None:
            yield "fact", "removed", key, before[0], None, before[1]
        elif before is not None and after is not None and before[0] != after[0]:
            yield "fact", "changed", key, before[0], after[0], after[1]
    for url in sorted(old.sources.keys() | new.sources.keys()):
        if url not in old.sources:
            yield "source", "added", url, None, new.sources[url] or url, (url,)
        elif url not in new.sources:
            yield "source", "removed", url, old.sources[url] or url, None, (url,)
    for sid in list(old.sections) + [s for s in new.sections if s not in old.sections]:
        before_s, after_s = old.sections.get(sid), new.sections.get(sid)
        if before_s is None and after_s is not None:
            yield "section", "added", sid, None, _short(after_s[1]) or after_s[0], ()
        elif after_s is None and before_s is not None:
            yield "section", "removed", sid, _short(before_s[1]) or before_s[0], None, ()
        elif before_s is not None and after_s is not None and before_s != after_s:
            yield "section", "changed", sid, _short(before_s[1]), _short(after_s[1]), ()


def _when(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is not None:  # stored naive, in UTC: one zone for every row
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def document_changes(path: str | Path, name: str | None = None) -> list[Change]:
    """Every change across the kept states of one document.

    Parameters
    ----------
    path : str or Path
        The document; its history is read from ``.oo-history/NAME/`` beside it.
    name : str, optional
        What the rows call it (default: the file name).

    Returns
    -------
    list of Change
        Oldest first; states whose snapshot is missing, damaged or unreadable are stepped over.
    """
    p = Path(path)
    label = name or p.name
    rows: list[Change] = []
    previous: _State | None = None
    for entry in read_history(p):
        state = _read_state(p, entry)
        if state is None:
            continue
        # a deleted document's last state and the first of a new one at its name: no change
        if previous is not None and previous.entry.document == entry.document:
            # the previous state's log row says when, and by what, it was replaced
            written = _when(previous.entry.saved_at)
            day = state.as_of or (written.date() if written else None)
            for kind, change, item, before, after, urls in _diff(previous, state):
                rows.append(
                    Change(
                        document=label,
                        path=str(p),
                        seq=entry.seq,
                        version=entry.version,
                        date=day,
                        saved_at=written,
                        kind=kind,
                        change=change,
                        item=item,
                        before=before,
                        after=after,
                        sources=urls,
                        evidence=state.evidence or None if kind == "sentinel" else None,
                    )
                )
        previous = state
    return rows


def changes_frame(
    documents: Iterable[tuple[Path, str]], *, since: date | str | None = None
) -> pd.DataFrame:
    """The changes of many documents as one frame.

    Parameters
    ----------
    documents : iterable of (Path, str)
        Each document's path and the name its rows carry.
    since : date or str, optional
        Keep the rows dated on or after this day.

    Returns
    -------
    pandas.DataFrame
        ``COLUMNS`` with their dtypes, ordered by date, document and seq.

    Raises
    ------
    OOError
        ``since`` is not a date.
    """
    import pandas as pd

    day = _since(since)
    rows: list[dict[str, Any]] = []
    for path, name in documents:
        for c in document_changes(path, name):
            if day is not None and (c.date is None or c.date < day):
                continue
            row = dict(c.__dict__)
            row["sources"] = " ".join(c.sources) or None
            row["date"] = pd.Timestamp(c.date) if c.date else pd.NaT
            rows.append(row)
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame = frame.astype(COLUMNS)
    if len(frame):
        frame = frame.sort_values(["date", "document", "seq"], kind="stable")
    return frame.reset_index(drop=True)


def _since(since: date | str | None) -> date | None:
    if since is None or isinstance(since, date):
        return since.date() if isinstance(since, datetime) else since
    try:
        return date.fromisoformat(str(since).strip())
    except ValueError:
        raise OOError(f"--since must be a date YYYY-MM-DD, not {since!r}", key="since") from None
