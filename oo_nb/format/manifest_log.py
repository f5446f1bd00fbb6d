"""The changelog an older document keeps inside its manifest (``manifest.changelog``: strings
``"v2: summary"`` / ``"v2 (2026-03-01): summary"``, or objects ``{version, date, summary}``),
beside or instead of the changelog block. Its notes for versions the block does not hold are the
document's earlier history: ``oo show`` and the library's changelog frame list them (they
showed neither). A note for a version the block holds too is the same change, told twice."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["ManifestNote", "earlier_notes", "manifest_notes"]

_STRING_NOTE = re.compile(r"^\s*v(\d{1,9})\b(?:\s*\((\d{4}-\d{2}-\d{2})[^)]*\))?\s*:?\s*")


@dataclass(frozen=True)
class ManifestNote:
    version: int | None
    date: str | None
    summary: str


def manifest_notes(manifest: Any) -> list[ManifestNote]:
    """The notes of ``manifest`` (the block's JSON), oldest first; anything else is skipped."""
    items = manifest.get("changelog") if isinstance(manifest, dict) else None
    notes = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str):
            m = _STRING_NOTE.match(item)
            if m is None:
                notes.append(ManifestNote(None, None, item))
            else:  # its version and date, and the summary after them
                notes.append(ManifestNote(int(m.group(1)), m.group(2), item[m.end() :]))
        elif isinstance(item, dict):
            version, when = item.get("version"), item.get("date") or item.get("timestamp")
            notes.append(
                ManifestNote(
                    version if type(version) is int else None,
                    when if isinstance(when, str) else None,
                    str(item.get("summary", "")),
                )
            )
    return notes


def earlier_notes(notes: list[ManifestNote], versions: Iterable[object]) -> list[ManifestNote]:
    """The ``notes`` the changelog block (its entries' ``versions``) does not hold: all of them
    when it is empty, else those of a version it has no entry for (a note without a version
    cannot be matched: it is kept)."""
    held = {v for v in versions if type(v) is int}
    return [n for n in notes if n.version is None or n.version not in held]
