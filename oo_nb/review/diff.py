"""Compare a document with its candidate, as data: the article unit by unit (aligned by pid,
then heading id, then position) and the four JSON blocks field by field. Nothing here decides
or writes; ``session.py`` applies decisions to the result."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from oo_nb.format.document import Document
from oo_nb.format.names import CHANGELOG_BLOCK, CONTRACT_BLOCK, MANIFEST_BLOCK, SOURCE_CACHE_BLOCK
from oo_nb.review.align import Item, Slot, align
from oo_nb.review.blocks import (
    DERIVED_CACHE_KEYS,
    DERIVED_MANIFEST_KEYS,
    SeqPlan,
    changelog_entries,
    changelog_hunk,
    fact_hunks,
    field_hunks,
    source_hunks,
    source_ids,
)
from oo_nb.review.hunks import Hunk, Kind
from oo_nb.review.images import ImageRef, ImageTable
from oo_nb.review.quotes import add_quote_badges
from oo_nb.review.refs import entry_lines, out_of_order, parse_refs
from oo_nb.review.summary import DiffSummary, summarise
from oo_nb.review.units import Unit, split_units, text_of

__all__ = ["ArticlePlan", "DiffSummary", "DocumentDiff", "Hunk", "diff_documents"]


@dataclass(frozen=True)
class ArticlePlan:
    """The article's units on both sides and their merged order; ``hunk_ids[n]`` names the
    hunk deciding slot ``n`` (None: unchanged, the original text stays)."""

    before: tuple[Unit, ...]
    after: tuple[Unit, ...]
    after_tail: str
    slots: tuple[Slot, ...]
    hunk_ids: tuple[str | None, ...]


@dataclass(frozen=True)
class DocumentDiff:
    original: Document
    candidate: Document
    hunks: tuple[Hunk, ...]
    article: ArticlePlan
    facts: SeqPlan
    images: ImageTable
    images_added: tuple[ImageRef, ...]
    images_removed: tuple[ImageRef, ...]
    summary: DiffSummary

    def hunk(self, hunk_id: str) -> Hunk:
        return self._by_id[hunk_id]

    @cached_property
    def _by_id(self) -> dict[str, Hunk]:
        # a review looks hunks up by id on every click: a thousand-source proposal must not
        # make that a walk through the list
        out: dict[str, Hunk] = {}
        for h in self.hunks:
            out.setdefault(h.id, h)  # ids are unique; the first one is what the walk found
        return out

    @cached_property
    def decidable(self) -> tuple[Hunk, ...]:
        return tuple(h for h in self.hunks if h.decidable)

    @property
    def is_empty(self) -> bool:
        return not self.hunks

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary.to_dict(),
            "hunks": [h.to_dict() for h in self.hunks],
            "images_added": [
                {"ref": i.ref, "mime": i.mime, "bytes": i.size_bytes} for i in self.images_added
            ],
            "images_removed": [
                {"ref": i.ref, "mime": i.mime, "bytes": i.size_bytes} for i in self.images_removed
            ],
        }


class _Maker:
    def __init__(self) -> None:
        self.hunks: list[Hunk] = []

    def __call__(self, **fields: Any) -> Hunk:
        hunk = Hunk(index=len(self.hunks), **fields)
        self.hunks.append(hunk)
        return hunk


def diff_documents(
    original: Document, candidate: Document, run: dict[str, Any] | None = None
) -> DocumentDiff:
    """All changes from ``original`` to ``candidate``. ``run`` (the agent's run record) only
    supplies the cost when the candidate's changelog entry does not carry one."""
    make = _Maker()
    images = ImageTable()
    before_html, after_html = original.article_html, candidate.article_html
    shrunk_b, refs_b = images.shrink(before_html)
    shrunk_a, refs_a = images.shrink(after_html)
    cache_b, cache_a = _block(original, SOURCE_CACHE_BLOCK), _block(candidate, SOURCE_CACHE_BLOCK)
    plan = _article_hunks(make, images, before_html, after_html, (_urls(cache_b), _urls(cache_a)))
    source_hunks(make, cache_b, cache_a)
    _, facts = fact_hunks(make, cache_b, cache_a)
    if isinstance(cache_b, dict) and isinstance(cache_a, dict):
        rest_b = {k: v for k, v in cache_b.items() if k not in ("sources", "facts")}
        rest_a = {k: v for k, v in cache_a.items() if k not in ("sources", "facts")}
        field_hunks(make, "source-cache", SOURCE_CACHE_BLOCK, rest_b, rest_a, DERIVED_CACHE_KEYS)
    field_hunks(
        make,
        "manifest",
        MANIFEST_BLOCK,
        _block(original, MANIFEST_BLOCK),
        _block(candidate, MANIFEST_BLOCK),
        DERIVED_MANIFEST_KEYS,
    )
    field_hunks(
        make,
        "contract",
        CONTRACT_BLOCK,
        _block(original, CONTRACT_BLOCK),
        _block(candidate, CONTRACT_BLOCK),
    )
    changelog_hunk(make, _block(original, CHANGELOG_BLOCK), _block(candidate, CHANGELOG_BLOCK))
    _page_hunk(make, original, candidate)
    added = tuple(r for r in refs_a if r not in refs_b)
    removed = tuple(r for r in refs_b if r not in refs_a)
    del shrunk_a, shrunk_b
    hunks = tuple(add_quote_badges(make.hunks, cache_b, cache_a, run))
    summary = summarise(
        original, candidate, hunks, len(added), len(removed), _cost(original, candidate, run)
    )
    return DocumentDiff(original, candidate, hunks, plan, facts, images, added, removed, summary)


def _block(doc: Document, name: str) -> Any:
    return doc.block_json(name) if doc.has_block(name) else {}


# --------------------------------------------------------------------------- article
def _items(units: list[Unit]) -> list[Item]:
    seen: dict[str, int] = {}
    items = []
    for u in units:
        key = (
            "refs"
            if u.is_references
            else f"pid:{u.pid}"
            if u.pid
            else f"hid:{u.heading_id}"
            if u.heading_id
            else None
        )
        if key is not None:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > 1:
                key = f"{key}#{seen[key]}"
        items.append(Item(key, u.tag, u.norm))
    return items


def _article_hunks(
    make: _Maker,
    images: ImageTable,
    before_html: str,
    after_html: str,
    urls: tuple[list[tuple[str, str]], list[tuple[str, str]]] = ([], []),
) -> ArticlePlan:
    before, _ = split_units(before_html)
    after, tail_a = split_units(after_html)
    items_b, items_a = _items(before), _items(after)
    slots = align(items_b, items_a)
    ids: list[str | None] = [None] * len(slots)
    count = 0
    for n, slot in enumerate(slots):
        if ids[n] is not None:
            continue
        group = _removed_section(slots, n, before)
        if group:
            count += 1
            hunk = _section_hunk(make, images, f"a{count}", [before[i] for i in group])
            for m, s in enumerate(slots):
                if s.before in group:
                    ids[m] = hunk.id
            continue
        b = before[slot.before] if slot.before is not None else None
        a = after[slot.after] if slot.after is not None else None
        if slot.pair is not None:
            other = slots[slot.pair]
            b = b or (before[other.before] if other.before is not None else None)
            a = a or (after[other.after] if other.after is not None else None)
        elif (
            slot.before is not None
            and slot.after is not None
            and items_b[slot.before].content == items_a[slot.after].content
        ):
            continue
        count += 1
        hunk = _unit_hunk(make, images, f"a{count}", b, a, moved=slot.pair is not None, urls=urls)
        ids[n] = hunk.id
        if slot.pair is not None:
            ids[slot.pair] = hunk.id
    return ArticlePlan(tuple(before), tuple(after), tail_a, tuple(slots), tuple(ids))


def _removed_section(slots: list[Slot], n: int, before: list[Unit]) -> list[int]:
    """The before-side units of a section the candidate removes whole (its h2 and every unit
    up to the next h2, none moved elsewhere), when slot ``n`` is that h2; else []."""
    slot = slots[n]
    if slot.before is None or slot.after is not None or slot.pair is not None:
        return []
    if before[slot.before].tag != "h2" or before[slot.before].is_references:
        return []
    end = slot.before + 1
    while end < len(before) and before[end].tag != "h2":
        end += 1
    group = list(range(slot.before, end))
    gone = {s.before for s in slots if s.after is None and s.pair is None}
    return group if all(i in gone for i in group) else []


def _section_hunk(make: _Maker, images: ImageTable, hid: str, units: list[Unit]) -> Hunk:
    """A removed section as one change: its heading and its text, decided together."""
    head = units[0]
    shrunk = [images.shrink(u.body) for u in units]
    body = "\n".join(h for h, _ in shrunk)
    name = text_of(shrunk[0][0]) or head.heading_id or ""
    return make(
        id=hid,
        area="article",
        kind="removed",
        title=f"removed section · {name}",
        section=head.section,
        tag="h2",
        key=head.heading_id,
        before_html=body,
        before_text="\n".join(t for t in (text_of(h) for h, _ in shrunk) if t),
        images=tuple(dict.fromkeys(r for _, refs in shrunk for r in refs)),
        whole_section=True,
    )


_TAG_WORDS = {
    "p": "paragraph",
    "h3": "subheading",
    "h4": "subheading",
    "h5": "subheading",
    "h6": "subheading",
    "ul": "list",
    "ol": "list",
    "dl": "list",
    "figure": "figure",
    "img": "image",
    "table": "table",
    "blockquote": "quotation",
    "pre": "preformatted text",
    "div": "block",
}
_REFS_TITLE = "References list (kept in step with the sources you keep)"


def _unit_hunk(
    make: _Maker,
    images: ImageTable,
    hid: str,
    b: Unit | None,
    a: Unit | None,
    *,
    moved: bool,
    urls: tuple[list[tuple[str, str]], list[tuple[str, str]]] = ([], []),
) -> Hunk:
    main = a if a is not None else b
    assert main is not None
    html_b, imgs_b = images.shrink(b.body) if b else ("", ())
    html_a, imgs_a = images.shrink(a.body) if a else ("", ())
    derived = b is not None and a is not None and b.is_references and a.is_references
    kind: Kind = "added" if b is None else "removed" if a is None else "changed"
    if derived:
        assert b is not None and a is not None
        return _refs_hunk(make, b, a, urls)
    pid = main.pid
    # in the reader's words: what it is and where (the pid and the tag name are the file's)
    if main.tag == "h2":
        title = f"heading of section “{main.section}”"
    else:
        where = f"in section “{main.section}”" if main.section else "at the top of the article"
        title = f"{_TAG_WORDS.get(main.tag, 'block')} {where}"
    return make(
        id="refs" if derived else hid,
        area="article",
        kind=kind,
        title=(_REFS_TITLE if derived else title) + (" · moved" if moved else ""),
        section=main.section,
        pid=pid,
        tag=main.tag,
        key=main.heading_id,
        before_html=html_b,
        after_html=html_a,
        before_text=text_of(html_b),
        after_text=text_of(html_a),
        images=tuple(dict.fromkeys((*imgs_b, *imgs_a))),
        moved=moved,
        derived=derived,
    )


def _refs_hunk(
    make: _Maker, b: Unit, a: Unit, urls: tuple[list[tuple[str, str]], list[tuple[str, str]]]
) -> Hunk:
    """The References list follows the source decisions entry by entry, so it is shown that
    way: one line per entry added or removed, never one word diff of the whole list."""
    refs_b, refs_a = parse_refs(b.body, urls[0]), parse_refs(a.body, urls[1])
    removed, added = entry_lines(refs_b, refs_a)
    kind: Kind = "changed" if removed and added else "removed" if removed else "added"
    title = _REFS_TITLE
    where = out_of_order(refs_b)
    if where is not None:
        title += f"; not in source order ({where}): left as it is, [sN] links follow positions"
    return make(
        id="refs",
        area="article",
        kind=kind,
        title=title,
        section=a.section,
        tag=a.tag,
        before_html=b.body,
        after_html=a.body,
        before_text="\n".join(removed),
        after_text="\n".join(added),
        derived=True,
        lines=True,
    )


def _urls(cache: Any) -> list[tuple[str, str]]:
    if not isinstance(cache, dict) or not isinstance(cache.get("sources"), list):
        return []
    return [
        (sid, item["url"])
        for sid, item in zip(source_ids(cache), cache["sources"], strict=False)
        if isinstance(item, dict) and isinstance(item.get("url"), str)
    ]


# --------------------------------------------------------------------------- the rest
def _outside(doc: Document) -> str:
    """The page without the article and the blocks: what an update should leave alone."""
    spans = sorted(
        [*doc.blocks.values(), *([doc.article_span] if doc.article_span else [])],
        key=lambda s: s.start,
    )
    parts, pos = [], 0
    for span in spans:
        parts.append(doc.text[pos : span.start])
        pos = span.end
    parts.append(doc.text[pos:])
    return "\x00".join(parts)


def _page_hunk(make: _Maker, original: Document, candidate: Document) -> None:
    b, a = _outside(original), _outside(candidate)
    if b == a:
        return
    lines_b, lines_a = b.replace("\x00", "\n").splitlines(), a.replace("\x00", "\n").splitlines()
    old: list[str] = []
    new: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, lines_b, lines_a, autojunk=False
    ).get_opcodes():
        if op != "equal":
            old.extend(lines_b[i1:i2])
            new.extend(lines_a[j1:j2])
    make(
        id="page",
        area="page",
        kind="changed",
        title="page outside the article (title, header, shell): comes with the update",
        before_text="\n".join(old),
        after_text="\n".join(new),
        derived=True,
    )


def _cost(original: Document, candidate: Document, run: dict[str, Any] | None) -> float | None:
    before = changelog_entries(_block(original, CHANGELOG_BLOCK))
    after = changelog_entries(_block(candidate, CHANGELOG_BLOCK))
    if len(after) > len(before) and isinstance(after[-1], dict):
        value = after[-1].get("cost_usd")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    value = (run or {}).get("cost_usd")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
