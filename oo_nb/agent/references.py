"""The References list of a candidate, edited in place: what the update did not change keeps
every byte.

- The list and its entries are the ones the page numbers, read as a browser reads them
  (``article_model``): a list inside an attribute or a comment is no list, a sublist is part of
  its entry.
- An existing ``<li>`` stays as written (its title, outlet and date text, its markup), unless its
  source was dropped in this update: then exactly that ``<li>`` becomes a ``source removed``
  placeholder (a comment before it stays), or goes when nothing follows it.
- A new source gets our own entry, filled with escaped values, in the shape of its neighbours: a
  leading ``[sN]`` when they have one, a new-tab link and the known ``rel`` words when theirs
  has them (never their attribute text), then ``, domain`` or `` — outlet, date`` with their
  dash and date form (the outlet is the source's domain, the date its access date).
- The browser links ``[sN]`` to the N-th item: items are appended up to the highest cited id, an
  uncited source in between is listed too, a missing one gets a placeholder. A list that is not
  in that order is left as it is (new items appended at the end) and a warning says so.
- Anything else in the section (a footer paragraph, a note) stays.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from oo_nb.agent.sources import id_number, references_html, url_key
from oo_nb.format.article_model import Node, entries, first_list, read_model
from oo_nb.format.blocks import domain_of, parse_date
from oo_nb.format.sanitize import safe_http_url, sanitize_text
from oo_nb.format.vocab import entry_source, entry_source_id, linked_entry

__all__ = ["RefItem", "update_references"]

# rel keywords a new entry may carry when its neighbours use them; any other text is dropped
_REL_WORDS = ("noopener", "noreferrer", "nofollow", "external", "ugc", "sponsored")
_DASH_TAIL = re.compile(
    r"^(?P<sep>\s*(?:—|–|&mdash;|&ndash;|&#8212;|-)\s*)(?P<outlet>.*?)"
    r"(?:(?P<dsep>,\s*)(?P<date>[A-Z][a-z]+\.? \d{1,2}, \d{4}|[A-Z][a-z]+\.? \d{4}|\d{4}-\d{2}-\d{2}|\d{4}))?\s*$",
    re.S,
)
_PLACEHOLDER = "<em>source removed</em>"


@dataclass(frozen=True)
class RefItem:
    sid: str  # "[sN]" label, else the cached id of its link, else its position
    lead: str  # what precedes the <li> since the previous entry (whitespace, comments)
    li: str  # the <li>…</li>, exactly as written
    href: str
    labelled: bool  # starts with "[sN]"
    node: Node
    link: Node | None

    @property
    def raw(self) -> str:
        return self.lead + self.li


def _link_of(li: Node) -> Node | None:
    return next((a for a in li.elements("a") if a.attr("href") is not None), None)


def _parse(
    body: str, lst: Node, by_url: Mapping[str, str | Sequence[str]]
) -> tuple[list[RefItem], str]:
    """The entries the page numbers (the list's ``<li>`` children, as a browser reads them:
    a sublist, a comment or an attribute holding ``</li>`` ends none), and what follows the
    last one inside the list."""
    items: list[RefItem] = []
    ids_by_url = {u: (i,) if isinstance(i, str) else i for u, i in by_url.items()}
    pos = lst.open_end
    for k, li in enumerate(entries(lst), start=1):
        link = _link_of(li)
        href = (link.attr("href") or "") if link is not None else ""
        label = entry_source(li.text)
        sid, labelled = entry_source_id(label, k, href, ids_by_url), label is not None
        items.append(
            RefItem(sid, body[pos : li.start], body[li.start : li.end], href, labelled, li, link)
        )
        pos = li.end
    return items, body[pos : lst.close_start]


class _Style:
    """How the neighbours write an entry, learnt from the last linked one: its shape only (a
    leading label, a new-tab link, the separators and date form after the link), never its
    attribute text. A new entry is our own template filled with escaped values."""

    def __init__(self, body: str, items: list[RefItem]) -> None:
        # the last entry with a link (an empty href is none) that is not a placeholder
        model = next(
            (
                (i, i.link)
                for i in reversed(items)
                if i.link is not None
                and i.href
                and "ref-missing" not in (i.node.attr("class") or "")
            ),
            None,
        )
        last_lead = items[-1].lead if items else ""
        self.gap = last_lead[len(last_lead.rstrip()) :] or "\n"  # the whitespace before it
        self.labelled = all(i.labelled for i in items)  # an empty list: oo_nb's own form
        self.dash: re.Match[str] | None
        if model is None:
            self.domain_tail = True  # oo_nb's own form: ", domain"
            self.attrs = ' rel="noopener noreferrer"'
            self.dash = None
            return
        item, link = model
        self.attrs = "".join(_safe_attr(a.name, a.value) for a in link.attrs or ())
        after = body[link.end : item.node.close_start]
        host = domain_of(item.href)
        self.domain_tail = bool(
            re.fullmatch(r",\s*" + re.escape(html_lib.escape(host, quote=False)) + r"\s*", after)
        )
        # None when no dash follows the link
        self.dash = None if self.domain_tail else _DASH_TAIL.match(after)

    def item(self, sid: str, source: Any, today: date) -> str:
        label = f"[{sid}] " if self.labelled else ""
        if isinstance(source, str):
            text = html_lib.escape(sanitize_text(source, max_len=500), quote=False)
            return f"{self.gap}<li>{label}{text}</li>"
        source = source if isinstance(source, dict) else {}
        url = safe_http_url(str(source.get("url") or ""))
        host = domain_of(url) if url else ""
        title = sanitize_text(str(source.get("title") or ""), max_len=500) or host or sid
        title_html = html_lib.escape(title, quote=False)
        if not url:
            return f"{self.gap}<li>{label}{title_html}</li>"
        link = f'<a href="{html_lib.escape(url)}"{self.attrs}>{title_html}</a>'
        host_html = html_lib.escape(host, quote=False)
        tail = ""
        if self.domain_tail:
            tail = f", {host_html}"
        elif self.dash is not None:
            d = self.dash
            tail = d.group("sep") + host_html
            if d.group("date"):
                when = parse_date(str(source.get("accessed") or "")) or today
                tail += d.group("dsep") + _date_like(d.group("date"), when)
        return f"{self.gap}<li>{label}{link}{tail}</li>"

    def placeholder(self, sid: str, gap: str | None = None) -> str:
        label = f"[{sid}] " if self.labelled else ""
        return (
            f'{self.gap if gap is None else gap}<li class="ref-missing">{label}{_PLACEHOLDER}</li>'
        )


def _linked(sid: str, items: Sequence[RefItem], entries: Mapping[str, Any]) -> bool:
    """Whether the entry the page links ``[sid]`` to (``linked_entry``: by its position when no
    entry carries the label) links that source's URL: it is the source's entry under another
    label (``[s9]`` first, linking s1's URL), and a second one would list the source twice."""
    k = linked_entry(sid, [i.sid if i.labelled else None for i in items])
    source = entries.get(sid)
    url = str(source.get("url") or "") if isinstance(source, dict) else ""
    return k is not None and bool(url and items[k].href) and url_key(items[k].href) == url_key(url)


def _safe_attr(name: str, value: str) -> str:
    """A link attribute of ours matching a neighbour's: ``target="_blank"`` and the known
    ``rel`` keywords it names; nothing else, and never its text."""
    if name == "target" and value.strip().lower() == "_blank":
        return ' target="_blank"'
    if name == "rel":
        words = [w for w in _REL_WORDS if w in value.lower().split()]
        return f' rel="{" ".join(words)}"' if words else ""
    return ""


def _date_like(example: str, when: date) -> str:
    """``when`` written as ``example`` is (``Feb 2026``, ``September 2025``, ``2026``...)."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", example):
        return when.isoformat()
    if re.fullmatch(r"\d{4}", example):
        return str(when.year)
    month = example.partition(" ")[0].rstrip(".")
    name = when.strftime("%B") if len(month) > 3 else when.strftime("%b")
    if re.fullmatch(r"\S+ \d{1,2}, \d{4}", example):
        return f"{name} {when.day}, {when.year}"
    return f"{name} {when.year}"


@dataclass
class ReferencesUpdate:
    body: str  # the section's body after the heading
    changed: bool
    out_of_order: str | None  # e.g. "item 3 is s5", when the list is not in sN order


def update_references(
    body: str,
    entries: Mapping[str, Any],
    old_ids: Collection[str],
    old_urls: Mapping[str, str | Sequence[str]],
    cited: Collection[str],
    today: date,
) -> ReferencesUpdate:
    """The References section body with the list following ``entries`` (the new cache, id ->
    source). ``old_ids``: the ids the cache had before the update; ``old_urls``: url_key -> the id
    (or every id, in order) of the old cache with that URL (to recognise unlabelled items); ``cited``: the ids the article cites."""
    lst = first_list(read_model(body).root.children)
    if lst is None:
        ol, _ = references_html(dict(entries), cited)
        if not ol:
            return ReferencesUpdate(body, False, None)
        lead = body[: len(body) - len(body.lstrip())]
        if not body.strip():
            return ReferencesUpdate("\n" + ol + (lead or "\n\n"), True, None)
        return ReferencesUpdate(lead + ol + "\n" + body[len(lead) :], True, None)
    inner = body[lst.open_end : lst.close_start]
    items, tail = _parse(body, lst, old_urls)
    style = _Style(body, items)
    wrong = next((f"item {k} is {i.sid}" for k, i in enumerate(items, 1) if i.sid != f"s{k}"), None)
    out: list[str] = []
    kept = 0  # how many come up to the last entry kept as it was
    for item in items:
        if item.sid in old_ids and item.sid not in entries:
            out.append(style.placeholder(item.sid, gap=item.lead))  # only its <li> changes
        else:
            out.append(item.raw)
            kept = len(out)
    listed = {i.sid for i in items}
    if wrong is None:
        numbers = [n for n in (id_number(s) for s in cited if s in entries) if n is not None]
        # the highest cited number is in entries: a placeholder written here is never last
        wanted = [f"s{n}" for n in range(len(items) + 1, max(numbers, default=0) + 1)]
    else:
        wanted = sorted(
            (
                s
                for s in cited
                if s in entries and s not in listed and not _linked(s, items, entries)
            ),
            key=lambda s: id_number(s) or 0,
        )
    for sid in wanted:
        out.append(
            style.item(sid, entries[sid], today) if sid in entries else style.placeholder(sid)
        )
    if not wanted:  # a placeholder with nothing after it holds no place (a comment before it
        # stays: only its <li> goes)
        out[kept:] = [
            items[k].lead.rstrip() if items[k].lead.strip() else "" for k in range(kept, len(items))
        ]
    new_inner = "".join(out) + tail
    if new_inner == inner:
        return ReferencesUpdate(body, False, wrong)
    if not kept and not wanted:  # no item left: the list goes, the rest of the section stays
        rest = body[: lst.start].rstrip() + body[lst.end :]
        return ReferencesUpdate(rest, True, wrong)
    return ReferencesUpdate(body[: lst.open_end] + new_inner + body[lst.close_start :], True, wrong)
