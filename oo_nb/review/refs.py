"""The References list as items keyed by source id, so it can follow the source decisions.
An item's id is its leading ``[sN]``, else the cache id of its link, else its position (the
browser numbers references by position)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from oo_nb.format.article_model import entries, read_model
from oo_nb.format.vocab import LEADING_CITATION, entry_source, entry_source_id, url_key
from oo_nb.review.units import text_of

__all__ = ["RefList", "Side", "entry_lines", "merge_refs", "out_of_order", "parse_refs"]

Side = Literal["before", "after"] | None


@dataclass(frozen=True)
class RefList:
    opening: str
    items: tuple[tuple[str, str], ...]  # (source id, exact text of the item)
    closing: str

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(i for i, _ in self.items)


def parse_refs(body: str, urls: Iterable[tuple[str, str]] = ()) -> RefList:
    """``urls`` are (source id, url) pairs from the source cache, to key unnumbered items
    (``entry_source_id``, as the References edit keys them)."""
    by_url: dict[str, list[str]] = {}
    for sid, url in urls:
        by_url.setdefault(url_key(url), []).append(sid)
    lst = next((n for n in read_model(body).root.children if n.kind == "element"), None)
    if lst is None or lst.name not in ("ol", "ul") or body[: lst.start].strip():
        return RefList(body, (), "")
    items: list[tuple[str, str]] = []
    seen: set[str] = set()
    pos = lst.open_end
    for k, li in enumerate(entries(lst)):
        label = entry_source(li.text)
        link = next((a for a in li.elements("a") if a.attr("href") is not None), None)
        url = (link.attr("href") or "") if link is not None else ""
        sid = entry_source_id(label, k + 1, url, by_url)
        if sid in seen:  # two items claim one id: fall back to position
            sid = f"s{k + 1}" if f"s{k + 1}" not in seen else f"#{k + 1}"
        seen.add(sid)
        items.append((sid, body[pos : li.end]))
        pos = li.end
    return RefList(body[: lst.open_end], tuple(items), body[pos:])


def merge_refs(
    before: RefList, after: RefList, side_of: Callable[[str], Side]
) -> list[tuple[str, str]]:
    """The items of the final list: before's order, then new ones in the candidate's order."""
    after_map = dict(after.items)
    before_ids = set(before.ids)
    out: list[tuple[str, str]] = []
    for sid, raw in before.items:
        side = side_of(sid)
        if side == "before":
            out.append((sid, raw))
        elif sid in after_map:  # taken, or removed: the candidate's placeholder keeps its place
            out.append((sid, after_map[sid]))
    out.extend(
        (sid, raw) for sid, raw in after.items if sid not in before_ids and side_of(sid) == "after"
    )
    return out


def _line(sid: str, raw: str) -> str:
    text = text_of(raw)
    return text if LEADING_CITATION.match(text) else f"[{sid}] {text}"


def entry_lines(before: RefList, after: RefList) -> tuple[list[str], list[str]]:
    """The entries a review shows, one line each: those only ``before`` has (or has otherwise),
    and those only ``after`` has (or has otherwise); unchanged entries are not shown."""
    b, a = dict(before.items), dict(after.items)
    removed = [
        _line(sid, raw) for sid, raw in before.items if a.get(sid, "").strip() != raw.strip()
    ]
    added = [_line(sid, raw) for sid, raw in after.items if b.get(sid, "").strip() != raw.strip()]
    return removed, added


def out_of_order(refs: RefList) -> str | None:
    """Where the list stops holding sN at position N (the page links [sN] by position)."""
    for k, sid in enumerate(refs.ids, start=1):
        if sid != f"s{k}":
            return f"item {k} is {sid}"
    return None
