"""The four JSON blocks after an update, each edited in its own shape (keys we do not know kept).

- manifest: ``version + 1``, ``as_of`` today; the cadence field is left as it was. A manifest
  ``changelog`` list gets one more item in its shape: ``{version, date, summary}`` when it holds
  objects, else a ``"vN: summary"`` string (the originals' form, also used for an empty list);
  a manifest without the key gets none.
- changelog: one entry appended to ``{"entries": [...]}`` or to the bare array: version, date,
  summary, the run's figures (model, tokens, searches, cost), what changed. The date takes the
  form the existing entries use: a bare date (today) when every one of them is a bare date, else
  a full UTC timestamp (also for an empty changelog); under ``date`` when they all use that key.
- source cache: sources, facts, ``last_updated`` today.
- contract: a structured ``sentinel`` object gets ``status``, ``last_checked`` and ``evidence``;
  an original sentinel document (marked only by ``instructions.sentinel``) is not restructured,
  the status goes into the changelog entry instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from oo_nb.agent.proposal import ProposedSentinel
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from oo_nb.format.names import CHANGELOG_BLOCK, CONTRACT_BLOCK, MANIFEST_BLOCK, SOURCE_CACHE_BLOCK
from oo_nb.format.sanitize import sanitize_text

__all__ = ["BlockUpdate", "update_blocks"]


@dataclass
class BlockUpdate:
    today: date
    now: datetime
    version: int
    summary: str
    run: RunInfo
    sources: list[Any]
    facts: list[Any]
    sentinel: ProposedSentinel | None
    changes: dict[str, Any]  # sections / sources_added / ... recorded in the changelog entry


_BARE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _timestamp(now: datetime) -> str:
    utc = now.astimezone(UTC) if now.tzinfo else now.replace(tzinfo=UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def _dated(entries: list[Any], today: date, now: datetime) -> tuple[str, str]:
    """The key and value dating a new entry, in the form the existing entries use (each entry
    is dated by its ``timestamp``, else its ``date``, as the model reads it)."""
    stamps: list[tuple[str, str]] = []
    for e in entries:
        if not isinstance(e, dict):
            continue
        key = next(
            (k for k in ("timestamp", "date") if isinstance(e.get(k), str) and e[k].strip()), None
        )
        if key is not None:
            stamps.append((key, e[key].strip()))
    key = "date" if stamps and all(k == "date" for k, _ in stamps) else "timestamp"
    bare = bool(stamps) and all(_BARE_DATE.fullmatch(v) for _, v in stamps)
    return key, today.isoformat() if bare else _timestamp(now)


def update_blocks(doc: Document, u: BlockUpdate, warnings: list[str], notes: list[str]) -> Document:
    summary = sanitize_text(u.summary, max_len=4000)

    def manifest(m: Any) -> Any:
        m["version"] = u.version
        m["as_of"] = u.today.isoformat()
        log = m.get("changelog")
        if isinstance(log, list):
            if all(isinstance(x, str) for x in log):  # also an empty list: the originals' form
                log.append(f"v{u.version}: {sanitize_text(summary, max_len=300)}")
            else:
                log.append(
                    {
                        "version": u.version,
                        "date": u.today.isoformat(),
                        "summary": sanitize_text(summary, max_len=300),
                    }
                )
        return m

    def changelog(c: Any) -> Any:
        entries = c if isinstance(c, list) else c.setdefault("entries", [])
        if entries and all(isinstance(x, str) for x in entries):
            entries.append(f"v{u.version} ({u.today.isoformat()}): {summary}")
            return c
        key, when = _dated(entries, u.today, u.now)
        entry: dict[str, Any] = {"version": u.version, key: when, "summary": summary}
        entry.update(u.run.changelog_fields())
        entry.update({k: v for k, v in u.changes.items() if v})
        entries.append(entry)
        return c

    def cache(c: Any) -> Any:
        c["last_updated"] = u.today.isoformat()
        c["sources"] = u.sources
        c["facts"] = u.facts
        return c

    out = doc.edit_block(MANIFEST_BLOCK, manifest)
    out = out.edit_block(CHANGELOG_BLOCK, changelog)
    out = out.edit_block(SOURCE_CACHE_BLOCK, cache)
    if u.sentinel is not None:
        out = _sentinel(out, u, warnings, notes)
    return out


def _sentinel(doc: Document, u: BlockUpdate, warnings: list[str], notes: list[str]) -> Document:
    assert u.sentinel is not None
    contract = doc.contract
    evidence = sanitize_text(u.sentinel.evidence, max_len=2000)
    if contract.sentinel is None:
        notes.append(
            "the proposal reports a sentinel status, but this is not a sentinel document: ignored"
        )
        return doc
    if u.sentinel.status == "occurred":
        warnings.append(
            "SENTINEL EVENT REPORTED AS OCCURRED — check the evidence before accepting: "
            + (evidence or "(none given)")
        )
    if not contract.sentinel.structured:
        return doc

    def edit(c: Any) -> Any:
        s = c["sentinel"]
        s["status"] = u.sentinel.status if u.sentinel else s.get("status")
        s["last_checked"] = u.today.isoformat()
        s["evidence"] = evidence
        return c

    return doc.edit_block(CONTRACT_BLOCK, edit)
