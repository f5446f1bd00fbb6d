"""The References list of a candidate, edited in place: what the update did not change keeps
every byte.

- An existing ``<li>`` stays as written (its title, outlet and date text, its markup), unless its
  source left the cache in this update (dropped, or merged into a duplicate): then the item
  becomes a ``source removed`` placeholder, or goes when nothing follows it.
- A new source gets a new item appended in the shape of its neighbours: a leading ``[sN]`` when
  they have one, the link with their ``rel``/``target``, then what follows their link (``, domain``
  or `` — outlet, date`` with their dash and date form; the outlet is the source's domain, the
  date its access date).
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
from oo_nb.format.blocks import domain_of, parse_date
from oo_nb.format.sanitize import safe_http_url, sanitize_text

__all__ = ["RefItem", "update_references"]

_LIST = re.compile(r"<(ol|ul)\b[^>]*>", re.I)
_ITEM = re.compile(r"<li\b[^>]*>.*?</li\s*>", re.I | re.S)
_LEAD_ID = re.compile(r"^\s*\[(s\d+)\]\s*")
_HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_TAGS = re.compile(r"<[^>]*>")
_LINK = re.compile(r"(<a\b[^>]*>)(.*?)</a\s*>", re.I | re.S)
_ATTR = re.compile(r"""\b(rel|target)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_DASH_TAIL = re.compile(
    r"^(?P<sep>\s*(?:—|–|&mdash;|&ndash;|&#8212;|-)\s*)(?P<outlet>.*?)"
    r"(?:(?P<dsep>,\s*)(?P<date>[A-Z][a-z]+\.? \d{1,2}, \d{4}|[A-Z][a-z]+\.? \d{4}|\d{4}-\d{2}-\d{2}|\d{4}))?\s*$",
    re.S,
)
_PLACEHOLDER = "<em>source removed</em>"


@dataclass(frozen=True)
class RefItem:
    sid: str  # "[sN]" label, else the cached id of its link, else its position
    raw: str  # the whitespace before it and the <li>…</li>, exactly as written
    href: str
    labelled: bool  # starts with "[sN]"


def _item_id(body: str, k: int, by_url: Mapping[str, str | Sequence[str]]) -> tuple[str, str, bool]:
    lead = _LEAD_ID.match(html_lib.unescape(_TAGS.sub("", body)))
    href = _HREF.search(body)
    url = html_lib.unescape(next(g for g in href.groups() if g is not None)) if href else ""
    if lead:
        return lead.group(1), url, True
    found = by_url.get(url_key(url)) if url else None
    ids = (found,) if isinstance(found, str) else tuple(found or ())
    # one URL under two ids (real files have them): the entry is the source of its position
    # when that one has the URL, else the first id with it
    return (f"s{k}" if f"s{k}" in ids or not ids else ids[0]), url, False


def _parse(inner: str, by_url: Mapping[str, str | Sequence[str]]) -> tuple[list[RefItem], str]:
    items: list[RefItem] = []
    pos = 0
    # an <li> inside a comment is no entry (the browser does not count it): items are found in
    # the text with comments blanked, and their bytes taken from the text as written
    for k, m in enumerate(_ITEM.finditer(_blank_comments(inner)), start=1):
        sid, url, labelled = _item_id(inner[m.start() : m.end()], k, by_url)
        items.append(RefItem(sid, inner[pos : m.end()], url, labelled))
        pos = m.end()
    return items, inner[pos:]


class _Style:
    """How the neighbours write an item: learnt from the last linked item of the list."""

    def __init__(self, items: list[RefItem]) -> None:
        model = next((i for i in reversed(items) if i.href and "ref-missing" not in i.raw), None)
        self.gap = "\n"
        self.labelled = all(i.labelled for i in items)  # an empty list: oo_nb's own form
        self.li = "<li>"
        self.attrs = ""
        self.tail = ""  # what follows the link, with the source's domain/outlet/date in it
        self.dash: re.Match[str] | None = None
        self.domain_tail = False
        if items:
            gap = re.match(r"\s*", items[-1].raw)
            self.gap = gap.group(0) if gap else "\n"
        if model is None:
            self.domain_tail = True  # oo_nb's own form: ", domain"
            self.attrs = ' rel="noopener noreferrer"'
            return
        body = model.raw.lstrip()
        li = re.match(r"<li(?:\s+class=\"[\w -]*\")?\s*>", body, re.I)
        self.li = li.group(0) if li else "<li>"  # never a copied id: ids are unique
        link = _LINK.search(body)
        if link is None:
            return
        self.attrs = "".join(
            f' {m.group(1).lower()}="{m.group(2) if m.group(2) is not None else m.group(3)}"'
            for m in _ATTR.finditer(link.group(1))
        )
        after = re.sub(r"</li\s*>\s*$", "", body[link.end() :], flags=re.I)
        host = domain_of(model.href)
        if re.fullmatch(r",\s*" + re.escape(html_lib.escape(host, quote=False)) + r"\s*", after):
            self.domain_tail = True
        else:
            self.dash = _DASH_TAIL.match(after) if after.strip() else None

    def item(self, sid: str, source: Any, today: date) -> str:
        label = f"[{sid}] " if self.labelled else ""
        if isinstance(source, str):
            text = html_lib.escape(sanitize_text(source, max_len=500), quote=False)
            return f"{self.gap}{self.li}{label}{text}</li>"
        source = source if isinstance(source, dict) else {}
        url = safe_http_url(str(source.get("url") or ""))
        host = domain_of(url) if url else ""
        title = sanitize_text(str(source.get("title") or ""), max_len=500) or host or sid
        title_html = html_lib.escape(title, quote=False)
        if not url:
            return f"{self.gap}{self.li}{label}{title_html}</li>"
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
        return f"{self.gap}{self.li}{label}{link}{tail}</li>"

    def placeholder(self, sid: str) -> str:
        label = f"[{sid}] " if self.labelled else ""
        return f'{self.gap}<li class="ref-missing">{label}{_PLACEHOLDER}</li>'


def _date_like(example: str, when: date) -> str:
    """``when`` written as ``example`` is (``Feb 2026``, ``September 2025``, ``2026``...)."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", example):
        return when.isoformat()
    if re.fullmatch(r"\d{4}", example):
        return str(when.year)
    month = example.split(" ", 1)[0].rstrip(".")
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
    plain = _blank_comments(body)
    m = _LIST.search(plain)
    close = re.compile(rf"</{m.group(1)}\s*>", re.I).search(plain, m.end()) if m else None
    if m is None or close is None:
        ol, _ = references_html(dict(entries), cited)
        if not ol:
            return ReferencesUpdate(body, False, None)
        lead = body[: len(body) - len(body.lstrip())]
        if not body.strip():
            return ReferencesUpdate("\n" + ol + (lead or "\n\n"), True, None)
        return ReferencesUpdate(lead + ol + "\n" + body[len(lead) :], True, None)
    inner = body[m.end() : close.start()]
    items, tail = _parse(inner, old_urls)
    style = _Style(items)
    wrong = next((f"item {k} is {i.sid}" for k, i in enumerate(items, 1) if i.sid != f"s{k}"), None)
    out: list[str] = []
    made: list[bool] = []  # per item: a placeholder this update wrote
    for item in items:
        if item.sid in old_ids and item.sid not in entries:
            out.append(style.placeholder(item.sid))
            made.append(True)
        else:
            out.append(item.raw)
            made.append(False)
    listed = {i.sid for i in items}
    if wrong is None:
        numbers = [n for n in (id_number(s) for s in cited if s in entries) if n is not None]
        wanted = [f"s{n}" for n in range(len(items) + 1, max(numbers, default=0) + 1)]
    else:
        wanted = sorted(
            (s for s in cited if s in entries and s not in listed), key=lambda s: id_number(s) or 0
        )
    for sid in wanted:
        if sid in entries:
            out.append(style.item(sid, entries[sid], today))
            made.append(False)
        else:
            out.append(style.placeholder(sid))
            made.append(True)
    while made and made[-1]:  # a placeholder with nothing after it holds no place
        out.pop()
        made.pop()
    new_inner = "".join(out) + tail
    if new_inner == inner:
        return ReferencesUpdate(body, False, wrong)
    if not out:  # no item left: the list goes, the rest of the section stays
        rest = body[: m.start()].rstrip() + body[close.end() :]
        return ReferencesUpdate(rest, True, wrong)
    return ReferencesUpdate(body[: m.end()] + new_inner + body[close.start() :], True, wrong)


def _blank_comments(text: str) -> str:
    """``text`` with comments blanked (same length), so a list inside one is not found."""
    return re.sub(r"<!--.*?-->", lambda m: " " * len(m.group(0)), text, flags=re.S)
