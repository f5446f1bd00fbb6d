"""Projections of one document for people and programs: the ``oo show`` summary and JSON."""

from __future__ import annotations

from dataclasses import asdict
from datetime import date
from typing import Any

from oo_nb.format.blocks import Source
from oo_nb.format.document import Document
from oo_nb.format.manifest_log import ManifestNote, earlier_notes, manifest_notes
from oo_nb.format.sentinel_state import current_sentinel

__all__ = ["summary_json", "summary_text"]


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


def _source(s: Source) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": s.id,
        "url": s.url,
        "title": s.title,
        "tier": s.tier,
        "accessed": _iso(s.accessed),
        "domain": s.domain,
    }
    if s.form == "string":
        out["description"] = s.description
    if s.verified is not None:
        out["verified"] = s.verified
    return out


def summary_json(doc: Document) -> dict[str, Any]:
    """The normalised views of ``oo show --json`` (one JSON object)."""
    m, c, cache, log, art = doc.manifest, doc.contract, doc.source_cache, doc.changelog, doc.article
    sentinel = None
    now = current_sentinel(c.sentinel, log)
    if now is not None:
        sentinel = {
            **asdict(now),
            "criteria": list(now.criteria),
            "last_checked": _iso(now.last_checked),
        }
    return {
        "path": doc.file,
        "manifest": {
            "title": m.title,
            "version": m.version,
            "as_of": _iso(m.as_of),
            "cadence_days": m.cadence_days,
            "cadence_field": m.cadence_field,
        },
        "contract": {
            "subject": c.subject,
            "scope": c.scope,
            "audience": c.audience,
            "tone": c.tone,
            "intents": list(c.intents),
            "required_sections": list(c.required_sections),
            "prefer_domains": list(c.prefer_domains),
            "deny_domains": list(c.deny_domains),
            "require_https": c.require_https,
            "max_cost_usd": c.max_cost_usd,
            "model": c.model,
            "images": {**asdict(c.images), "prefer_sources": list(c.images.prefer_sources)},
            "instructions_form": c.instructions_form,
        },
        "source_cache": {
            "last_updated": _iso(cache.last_updated),
            "sources": [_source(s) for s in cache.sources],
            "facts": [
                {
                    "id": f.id,
                    "text": f.text,
                    "key": f.key,
                    "value": f.value,
                    "source_ids": list(f.source_ids),
                }
                for f in cache.facts
            ],
        },
        "changelog": {
            "form": log.form,
            "entries": [
                {"version": e.version, "timestamp": e.timestamp, "summary": e.summary, **e.extra}
                for e in log.entries
            ],
            # the manifest's notes of versions the block lacks (older documents), oldest first
            "earlier": [asdict(n) for n in _earlier(doc)],
        },
        "article": {
            "sections": [{"id": s.id, "title": s.title, "level": s.level} for s in art.sections],
            "pids": list(art.pids),
            "citations": list(art.cited_ids),
            "references": [
                {"position": r.position, "source_id": r.source_id, "url": r.url, "title": r.title}
                for r in art.references
            ],
            "figures": len(art.figures),
            "excerpt": art.excerpt,
            "is_stub": art.is_stub,
        },
        "layout": doc.layout,
        "sentinel": sentinel,
    }


def _earlier(doc: Document) -> list[ManifestNote]:
    notes = manifest_notes(doc.manifest.raw)
    return earlier_notes(notes, (e.version for e in doc.changelog.entries)) if notes else []


def _note_line(note: ManifestNote) -> str:
    head = f"v{note.version}" if note.version is not None else "-"
    return f"{head}{f' ({note.date})' if note.date else ''}: {note.summary[:200]}"


def summary_text(doc: Document) -> str:
    """A readable summary for a terminal."""
    m, c, cache, log, art = doc.manifest, doc.contract, doc.source_cache, doc.changelog, doc.article
    lines = [
        m.title or "(untitled)",
        "=" * max(8, min(len(m.title), 72)),
        f"version {m.version}, as of {_iso(m.as_of) or 'never updated'}, every {m.cadence_days} days"
        f" ({doc.layout} layout)",
        f"subject   {c.subject}",
        f"scope     {c.scope}",
        f"audience  {c.audience}",
        f"tone      {c.tone}",
        f"budget    ${c.max_cost_usd:.2f}" + (f", model {c.model}" if c.model else ""),
        f"sections  {', '.join(c.required_sections) or '-'}",
        f"intents   {len(c.intents)}; prefer {', '.join(c.prefer_domains) or '-'}; deny {', '.join(c.deny_domains) or '-'}",
    ]
    now = current_sentinel(c.sentinel, log)
    if now is not None:
        lines.append(f"sentinel  status {now.status}: {now.event[:100]}")
    lines += [
        f"article   {len([s for s in art.sections if s.level == 2])} sections, {len(art.paragraphs)} blocks,"
        f" {len(art.citations)} citations, {len(art.references)} references, {len(art.figures)} figures",
        f"cache     {len(cache.sources)} sources, {len(cache.facts)} facts"
        + (f", last updated {_iso(cache.last_updated)}" if cache.last_updated else ""),
        f"changelog {len(log.entries)} entries"
        + (f"; latest: {log.latest.summary[:100]}" if log.latest else ""),
    ]
    earlier = _earlier(doc)
    if earlier:
        lines.append(f"          {len(earlier)} earlier, kept in the manifest:")
        lines += [f"          {_note_line(n)}" for n in earlier]
    if art.excerpt:
        lines += ["", art.excerpt]
    return "\n".join(lines)
