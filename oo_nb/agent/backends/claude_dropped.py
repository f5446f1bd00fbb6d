"""What Claude Code changed in its scratch copy that an update does not take from it.

Claude Code edits a copy of the whole file; ``proposal_from_copy`` takes only the article's
sections, new or re-pointed sources, dropped sources, new facts and the new changelog entry's
summary. Anything else it changed (page code, the shell, the contract, the manifest, a past
changelog entry, a cached source's other fields, the References list, the article before its
first section) is dropped. Dropping is right (the agent may not write there), but the reviewer
is told what the agent tried to change: ``dropped_edits`` names each such region.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.article_model import Model, entries, read_model
from oo_nb.format.document import Document
from oo_nb.format.names import (
    CHANGELOG_BLOCK,
    CONTRACT_BLOCK,
    MANIFEST_BLOCK,
    SOURCE_CACHE_BLOCK,
)
from oo_nb.format.update_scope import outside_changes
from oo_nb.format.vocab import truncate

__all__ = ["dropped_edits", "taken_edits"]

_PATHS = 5  # changed values named per block
_SHOWN = 60


def dropped_edits(original: Document, edited: Document) -> list[str]:
    """One line per region of ``edited`` (the agent's copy) that differs from ``original`` and
    that the proposal does not take, naming the region (and line, outside the data)."""
    out = outside_changes(original, edited)
    out += _block_edits(original, edited)
    out += _article_edits(original, edited)
    return out


def taken_edits(original: Document, proposal: dict[str, Any]) -> list[str]:
    """The source-cache edits ``proposal`` took from the copy (``proposal_from_copy``: new or
    re-pointed sources, dropped sources, new facts), one line each in ``dropped_edits``'s words:
    with no article section changed nothing is written, so a refusal names these as dropped too
    (a cached source re-pointed to another site, alone, went unnamed)."""
    old = {s.get("id"): s for s in _list(_json(original, SOURCE_CACHE_BLOCK), "sources")}
    paths: list[str] = []
    for source in proposal.get("sources") or []:
        sid, url = source.get("id"), source.get("url")
        if isinstance(old.get(sid), dict):
            paths.append(
                f"{SOURCE_CACHE_BLOCK} {sid}.url {_brief(old[sid].get('url'))} -> {_brief(url)}"
            )
        else:
            paths.append(f"{SOURCE_CACHE_BLOCK}: new source {sid} {_brief(url)}")
    dropped = proposal.get("drop_sources") or []
    if dropped:
        paths.append(f"{SOURCE_CACHE_BLOCK}: source(s) {', '.join(map(str, dropped))} removed")
    facts = proposal.get("facts") or []
    if facts:
        paths.append(f"{SOURCE_CACHE_BLOCK}: {len(facts)} new fact(s)")
    return [f"a cached source: {_listed(paths)}"] if paths else []


# --------------------------------------------------------------------------- the blocks
def _json(doc: Document, name: str) -> Any:
    try:
        return doc.block_json(name)
    except OOError:
        return None


def _block_edits(original: Document, edited: Document) -> Iterator[str]:
    for name in (MANIFEST_BLOCK, CONTRACT_BLOCK):  # nothing of these is taken
        paths = list(_changed(_json(original, name), _json(edited, name), name))
        if paths:
            yield _listed(paths)
    before, after = _json(original, CHANGELOG_BLOCK), _json(edited, CHANGELOG_BLOCK)
    old_entries = _list(before, "entries")
    new_entries = _list(after, "entries")
    # (an entry appended after the old ones is where the summary is taken from)
    paths = list(
        _changed(old_entries, new_entries[: len(old_entries)], f"{CHANGELOG_BLOCK}.entries")
    )
    if len(new_entries) < len(old_entries):
        paths.append(f"{CHANGELOG_BLOCK}.entries: {len(old_entries) - len(new_entries)} removed")
    if paths:
        yield f"a past changelog entry: {_listed(paths)}"
    yield from _source_edits(_json(original, SOURCE_CACHE_BLOCK), _json(edited, SOURCE_CACHE_BLOCK))


def _source_edits(before: Any, after: Any) -> Iterator[str]:
    """A cached source whose URL is kept but whose other fields changed, and old facts changed
    or removed (new sources, re-pointed URLs, dropped sources and new facts are taken)."""
    old = {s.get("id"): s for s in _list(before, "sources") if isinstance(s, dict)}
    new = {s.get("id"): s for s in _list(after, "sources") if isinstance(s, dict)}
    paths = [
        path
        for sid, s in old.items()
        if sid in new and new[sid].get("url") == s.get("url")
        for path in _changed(s, new[sid], f"{SOURCE_CACHE_BLOCK} {sid}")
    ]
    kept = {_canon(f) for f in _list(after, "facts")}
    lost = sum(1 for f in _list(before, "facts") if _canon(f) not in kept)
    if lost:
        paths.append(f"{lost} existing fact(s) changed or removed")
    if paths:
        yield f"a cached source: {_listed(paths)}"


def _list(value: Any, key: str) -> list[Any]:
    got = value.get(key) if isinstance(value, dict) else None
    return got if isinstance(got, list) else []


def _changed(old: Any, new: Any, path: str) -> Iterator[str]:
    """The paths of the values that differ (dict keys and list items of equal length walked)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in dict.fromkeys([*old, *new]):
            yield from _changed(old.get(key), new.get(key), f"{path}.{key}")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            yield from _changed(a, b, f"{path}[{i}]")
    elif _canon(old) != _canon(new):
        yield f"{path} {_brief(old)} -> {_brief(new)}"


def _canon(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _brief(value: Any) -> str:
    return repr(truncate(json.dumps(value, ensure_ascii=False), _SHOWN))


def _listed(paths: list[str]) -> str:
    more = len(paths) - _PATHS
    return "; ".join(paths[:_PATHS]) + (f"; and {more} more" if more > 0 else "")


# --------------------------------------------------------------------------- the article
def _article_edits(original: Document, edited: Document) -> Iterator[str]:
    """The article before its first section and the References entries it already had (the
    list is the candidate's to write: entries added after the old ones are expected)."""
    before, after = read_model(original.article_html), read_model(edited.article_html)
    if _preamble(before) != _preamble(after):
        yield "the article before its first section"
    old, new = _entries(before), _entries(after)
    changed = [str(i) for i, (a, b) in enumerate(zip(old, new, strict=False), 1) if a != b]
    if len(new) < len(old):
        changed.append(f"{len(old) - len(new)} removed")
    if changed:
        yield f"the References list, entry {', '.join(changed[:_PATHS])} (the list is kept as it was)"


def _preamble(model: Model) -> str:
    sections = model.sections
    return " ".join(model.source[: sections[0].start if sections else None].split())


def _entries(model: Model) -> list[str]:
    """Each numbered References entry's markup, whitespace folded."""
    refs = model.reference_list()
    found = entries(refs) if refs is not None else []
    return [" ".join(model.source[li.start : li.end].split()) for li in found]
