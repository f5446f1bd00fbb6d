"""Diffs of the four JSON blocks: sources by id (per field), facts in order, manifest and
contract per leaf field, the new changelog entries. Works on the blocks' raw JSON so every key
is seen, known or not."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from oo_nb.format.blocks import SourceCache
from oo_nb.format.names import BLOCK_WORDS
from oo_nb.review.align import Item, Slot, align
from oo_nb.review.hunks import FieldChange, Hunk, Kind, pretty_json

__all__ = [
    "DERIVED_CACHE_KEYS",
    "DERIVED_MANIFEST_KEYS",
    "MISSING",
    "SeqPlan",
    "changelog_entries",
    "changelog_hunk",
    "fact_hunks",
    "field_hunks",
    "get_path",
    "leaf_changes",
    "source_hunks",
    "source_ids",
]

# Fields that move with the update itself: they change only if something is accepted.
DERIVED_MANIFEST_KEYS = frozenset(("version", "as_of", "changelog"))
DERIVED_CACHE_KEYS = frozenset(("last_updated",))


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
Make = Callable[..., Hunk]


@dataclass(frozen=True)
class SeqPlan:
    """How a list (facts) was aligned: slots in merged order and the hunk of each slot."""

    slots: tuple[Slot, ...]
    hunk_ids: tuple[str | None, ...]


def _canon(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# --------------------------------------------------------------------------- sources
def source_ids(cache_raw: Any) -> list[str]:
    """Ids of the raw ``sources`` list, position by position (string sources get s1, s2...)."""
    if not isinstance(cache_raw, dict):
        return []
    return [s.id for s in SourceCache.from_json(cache_raw).sources]


def _sources(cache_raw: Any) -> dict[str, Any]:
    items = cache_raw.get("sources") if isinstance(cache_raw, dict) else None
    if not isinstance(items, list):
        return {}
    out: dict[str, Any] = {}
    for sid, item in zip(source_ids(cache_raw), items, strict=True):
        out.setdefault(sid, item)  # a duplicated id: the first one is the one citations reach
    return out


def source_hunks(make: Make, before_raw: Any, after_raw: Any) -> list[Hunk]:
    before, after = _sources(before_raw), _sources(after_raw)
    hunks: list[Hunk] = []
    for sid in [*before, *(k for k in after if k not in before)]:
        b, a = before.get(sid, MISSING), after.get(sid, MISSING)
        if b is not MISSING and a is not MISSING and _canon(b) == _canon(a):
            continue
        kind: Kind = "added" if b is MISSING else "removed" if a is MISSING else "changed"
        fields = tuple(leaf_changes(_as_obj(b), _as_obj(a)))
        label = _source_label(a if a is not MISSING else b)
        hunks.append(
            make(
                id=f"src:{sid}",
                area="sources",
                kind=kind,
                title=f"source {sid}: {label}",
                key=sid,
                before_text="" if b is MISSING else pretty_json(b),
                after_text="" if a is MISSING else pretty_json(a),
                fields=fields,
                unverified=kind == "added" and isinstance(a, dict) and a.get("verified") is False,
            )
        )
    return hunks


def _as_obj(value: Any) -> Any:
    if value is MISSING:
        return {}
    return value if isinstance(value, dict) else {"text": value}


def _source_label(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("title") or item.get("url") or "")
    return str(item)


# --------------------------------------------------------------------------- facts
def _facts(cache_raw: Any) -> list[Any]:
    items = cache_raw.get("facts") if isinstance(cache_raw, dict) else None
    return items if isinstance(items, list) else []


def _fact_item(value: Any, seen: set[str]) -> Item:
    key = None
    if isinstance(value, dict):
        raw = value.get("id") or value.get("key")
        if isinstance(raw, str) and raw and raw not in seen:
            key = raw
            seen.add(raw)
    return Item(key, "fact", _canon(value))


def _fact_key(value: Any) -> str | None:
    if isinstance(value, dict):
        raw = value.get("id") or value.get("key")
        return raw if isinstance(raw, str) else None
    return None


def _fact_text(value: Any) -> str:
    if isinstance(value, dict):
        if "text" in value:
            return str(value["text"])
        if "key" in value:
            return f"{value.get('key')}: {value.get('value')}"
    return value if isinstance(value, str) else _canon(value)


def fact_hunks(make: Make, before_raw: Any, after_raw: Any) -> tuple[list[Hunk], SeqPlan]:
    before, after = _facts(before_raw), _facts(after_raw)
    seen_b: set[str] = set()
    seen_a: set[str] = set()
    slots = align([_fact_item(v, seen_b) for v in before], [_fact_item(v, seen_a) for v in after])
    hunks: list[Hunk] = []
    ids: list[str | None] = [None] * len(slots)
    for n, slot in enumerate(slots):
        if ids[n] is not None:
            continue
        b = before[slot.before] if slot.before is not None else MISSING
        a = after[slot.after] if slot.after is not None else MISSING
        if slot.pair is not None:  # moved: one hunk for both places
            other = slots[slot.pair]
            b = before[other.before] if other.before is not None else b
            a = after[other.after] if other.after is not None else a
        if b is not MISSING and a is not MISSING and _canon(b) == _canon(a) and slot.pair is None:
            continue
        kind: Kind = "added" if b is MISSING else "removed" if a is MISSING else "changed"
        hid = f"fact:{len(hunks) + 1}"
        text_b = "" if b is MISSING else _fact_text(b)
        text_a = "" if a is MISSING else _fact_text(a)
        hunks.append(
            make(
                id=hid,
                area="facts",
                kind=kind,
                title=f"fact: {(text_a or text_b)[:80]}",
                key=_fact_key(a if a is not MISSING else b),
                before_text=text_b,
                after_text=text_a,
                fields=tuple(leaf_changes(_as_obj(b), _as_obj(a))) if kind == "changed" else (),
                moved=slot.pair is not None,
            )
        )
        ids[n] = hid
        if slot.pair is not None:
            ids[slot.pair] = hid
    return hunks, SeqPlan(tuple(slots), tuple(ids))


# --------------------------------------------------------------------------- leaf fields
def _leaves(value: Any, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    if isinstance(value, dict) and (value or not prefix):
        out: dict[tuple[str, ...], Any] = {}
        for k, v in value.items():
            out.update(_leaves(v, (*prefix, str(k))))
        return out
    return {prefix: value}


def get_path(value: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


def leaf_changes(before: Any, after: Any, skip: frozenset[str] = frozenset()) -> list[FieldChange]:
    """Changed leaves between two JSON objects. Where one side has a leaf and the other has an
    object below it, the change is reported at that leaf's level."""
    lb, la = _leaves(before), _leaves(after)
    paths: dict[tuple[str, ...], None] = {}
    for path in [*lb, *la]:
        other = la if path in lb else lb
        cut = next((path[:n] for n in range(len(path)) if path[:n] in other), path)
        paths.setdefault(cut, None)
    out: list[FieldChange] = []
    for path in paths:
        if not path or path[0] in skip:
            continue
        b, a = get_path(before, path), get_path(after, path)
        if b is not MISSING and a is not MISSING and _canon(b) == _canon(a):
            continue
        kind: Kind = "added" if b is MISSING else "removed" if a is MISSING else "changed"
        out.append(
            FieldChange(path, kind, None if b is MISSING else b, None if a is MISSING else a)
        )
    return out


def field_hunks(
    make: Make,
    area: Any,
    block: str,
    before: Any,
    after: Any,
    derived: frozenset[str] = frozenset(),
) -> list[Hunk]:
    """One hunk per changed leaf of a manifest, contract or source-cache object."""
    hunks: list[Hunk] = []
    for change in leaf_changes(before, after):
        is_derived = change.path[0] in derived
        hunks.append(
            make(
                id=f"{area}:{change.name}",
                area=area,
                kind=change.kind,
                title=f"{BLOCK_WORDS.get(block, block)}: {change.name.replace('.', ' › ')}",
                key=change.name,
                before_text="" if change.kind == "added" else pretty_json(change.before),
                after_text="" if change.kind == "removed" else pretty_json(change.after),
                fields=(change,),
                derived=is_derived,
            )
        )
    return hunks


# --------------------------------------------------------------------------- changelog
def changelog_entries(raw: Any) -> list[Any]:
    if isinstance(raw, list):
        return raw
    if isinstance(raw, dict) and isinstance(raw.get("entries"), list):
        return list(raw["entries"])
    return []


def changelog_hunk(make: Make, before_raw: Any, after_raw: Any) -> Hunk | None:
    if _canon(before_raw) == _canon(after_raw):
        return None
    before, after = changelog_entries(before_raw), changelog_entries(after_raw)
    appended = len(after) >= len(before) and all(
        _canon(x) == _canon(y) for x, y in zip(before, after, strict=False)
    )
    new = after[len(before) :] if appended else after
    return make(
        id="changelog",
        area="changelog",
        kind="added" if appended else "changed",
        title="change log: new entry" if appended and len(new) == 1 else "change log",
        before_text="" if appended else pretty_json(before_raw),
        after_text=pretty_json(new if appended else after_raw),
        derived=True,
    )
