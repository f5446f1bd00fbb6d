"""The library index page from scanned data: cards, the sortable table, the errors note; and
the update of an existing index, which touches only its INDEX-CONTENT region and its count
and last-scan stamps (every other byte of an original o-o index stays as it was)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from oo_nb.errors import FormatError, OOError
from oo_nb.format.display import as_named, render_html, wants_html
from oo_nb.format.document import Document
from oo_nb.format.names import INDEX_CONTENT_END, INDEX_CONTENT_START, INDEX_NAME
from oo_nb.format.surrogates import replaced
from oo_nb.format.template.render import render_index
from oo_nb.library.index_data import DocEntry, Scan, scan
from oo_nb.store import clock, store

__all__ = [
    "CARD_COUNT",
    "CONTENT_END",
    "CONTENT_START",
    "INDEX_NAME",
    "IndexResult",
    "human_size",
    "nice_date",
    "render_content",
    "stamp_text",
    "update_index_text",
    "write_index",
]

# the format's names (format.names), under the names this module has always exported
CONTENT_START = INDEX_CONTENT_START
CONTENT_END = INDEX_CONTENT_END
CARD_COUNT = 8
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _e(text: object) -> str:
    """For attribute values. A file name that is not UTF-8 shows U+FFFD for its bad bytes (the
    page must be writable as UTF-8; one such name never stops the index)."""
    return html.escape(replaced(str(text)), quote=True)


def _t(text: object) -> str:
    """For element text (quotes need no escaping there)."""
    return html.escape(replaced(str(text)), quote=False)


def nice_date(day: date) -> str:
    """``Feb 16, 2026`` whatever the locale."""
    return f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"


def human_size(n: int, *, kb_only: bool = False) -> str:
    """``154 KB``, ``1.2 MB``. ``kb_only`` keeps every size in KB, for index pages whose own
    script sorts the column by the number it reads from the text."""
    if kb_only or n < 1024 * 1024:
        kb = n / 1024
        if kb_only:
            return f"{max(1, round(kb)) if n else 0} KB"
        return f"{kb:.1f} KB" if kb < 10 else f"{round(kb)} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def _href(entry: DocEntry) -> str:
    # relative to the index folder: sub-folders keep working; a byte that was not UTF-8 in the
    # file name becomes its %XX, so the link still opens that file
    return _e(quote(entry.rel, errors="surrogateescape"))


def _status_text(status: str) -> str:
    return status.replace("_", " ")


def _badges(entry: DocEntry, today: date) -> str:
    if entry.as_of is None:
        badge = '<span class="card-badge new" title="Not researched yet">New</span>'
    else:
        stale = entry.is_stale(today)
        every = "every day" if entry.cadence_days == 1 else f"every {entry.cadence_days} days"
        tip = f"Updated {entry.as_of.isoformat()}; updates {every}" + ("; due now" if stale else "")
        badge = (
            f'<span class="card-badge {"stale" if stale else "fresh"}" title="{_e(tip)}">'
            f"{_t(nice_date(entry.as_of))}</span>"
        )
    if entry.sentinel_status is not None:
        occurred = " occurred" if entry.sentinel_status == "occurred" else ""
        badge += f' <span class="card-badge sentinel{occurred}">Sentinel: {_t(_status_text(entry.sentinel_status))}</span>'
    return badge


def _card(entry: DocEntry, today: date) -> str:
    return (
        f'    <a class="card" href="{_href(entry)}">\n'
        f'      <span class="card-title">{_t(entry.title)}</span>\n'
        f'      <span class="card-badges">{_badges(entry, today)}</span>\n'
        f'      <span class="card-excerpt">{_t(entry.excerpt)}</span>\n'
        "    </a>\n"
    )


def _row(entry: DocEntry, kb_only: bool) -> str:
    folder = entry.rel.rsplit("/", 1)[0] + "/" if "/" in entry.rel else ""
    where = f'<span class="doc-path">{_t(folder)}</span>' if folder else ""
    as_of = entry.as_of.isoformat() if entry.as_of else "\u2014"
    sentinel = (
        _status_text(entry.sentinel_status) if entry.sentinel_status is not None else "\u2014"
    )
    cls = ' class="status-occurred"' if entry.sentinel_status == "occurred" else ""
    return (
        "<tr>\n"
        f'  <td data-sort="{_e(entry.title.casefold())}"><a href="{_href(entry)}">{_t(entry.title)}</a>{where}</td>\n'
        f'  <td class="num" data-sort="{entry.bytes}">{_t(human_size(entry.bytes, kb_only=kb_only))}</td>\n'
        f'  <td data-sort="{_e(as_of if entry.as_of else "")}">{_t(as_of)}</td>\n'
        f'  <td class="num">{entry.version}</td>\n'
        f'  <td class="num">{entry.n_sources}</td>\n'
        f"  <td{cls}>{_t(sentinel)}</td>\n"
        "</tr>\n"
    )


def _recent_first(entries: tuple[DocEntry, ...]) -> list[DocEntry]:
    return sorted(
        entries, key=lambda e: (e.as_of or date.min, e.mtime, e.title.casefold()), reverse=True
    )


def render_content(scan: Scan, today: date, *, kb_only: bool = False) -> str:
    """What goes between the INDEX-CONTENT markers (FORMAT.md §4, plus Sources and Sentinel
    columns and an errors note)."""
    parts: list[str] = []
    cards = _recent_first(scan.entries)[:CARD_COUNT]
    parts.append('  <div class="card-grid" id="card-grid">\n')
    parts.extend(_card(e, today) for e in cards)
    parts.append("  </div>\n")
    if scan.entries:
        rows = sorted(scan.entries, key=lambda e: (e.title.casefold(), e.rel))
        parts.append(
            "  <table>\n"
            "    <thead>\n"
            "      <tr>\n"
            '        <th class="sortable" data-type="text">Title</th>\n'
            '        <th class="sortable num" data-type="number">Size</th>\n'
            '        <th class="sortable" data-type="date">Last Updated</th>\n'
            '        <th class="sortable num" data-type="number">Version</th>\n'
            '        <th class="sortable num" data-type="number">Sources</th>\n'
            '        <th class="sortable" data-type="text">Sentinel</th>\n'
            "      </tr>\n"
            "    </thead>\n"
            "    <tbody>\n"
        )
        parts.extend(_row(e, kb_only) for e in rows)
        parts.append("    </tbody>\n  </table>\n")
    else:
        parts.append(
            '  <div class="empty-state">\n'
            "    <p><strong>No documents here yet.</strong></p>\n"
            '    <p>Create one with <code>oo new "Title / scope"</code> '
            'or <code>bash index.o-o.html --new "Title / scope"</code>.</p>\n'
            "  </div>\n"
        )
    if scan.errors:
        parts.append(
            '  <div class="index-errors">\n'
            f"    <p><strong>{len(scan.errors)} file{'s' if len(scan.errors) != 1 else ''} could not be read</strong> "
            "(check them with <code>oo check FILE</code>):</p>\n    <ul>\n"
        )
        parts.extend(
            f"      <li><code>{_t(err.rel)}</code>: {_t(err.message)}</li>\n" for err in scan.errors
        )
        parts.append("    </ul>\n  </div>\n")
    return "".join(parts)


# --------------------------------------------------------------------------- existing pages
def _content_region(doc: Document) -> tuple[int, int]:
    """Offsets of the text strictly between the two content markers, inside the first heredoc
    (the original's shell repeats the markers in its own code after the terminator)."""
    start = doc.text.find(CONTENT_START, doc.html.start, doc.html.end)
    end = doc.text.find(CONTENT_END, start + 1 if start >= 0 else doc.html.start, doc.html.end)
    if start < 0 or end < 0:
        raise FormatError(
            f"is not an index page this version can update: no {CONTENT_START} ... {CONTENT_END} in its page",
            file=doc.file,
        )
    return start + len(CONTENT_START), end


def honours_data_sort(doc: Document) -> bool:
    """Whether the page's own script sorts by ``data-sort`` (ours does; the original read the
    cell text, so its Size column must show plain KB numbers)."""
    start, end = _content_region(doc)
    return (
        "data-sort" in doc.text[doc.html.start : start]
        or "data-sort" in doc.text[end : doc.html.end]
    )


def _stamp_match(doc: Document, element_id: str) -> re.Match[str] | None:
    pattern = re.compile(
        r"(<(?P<tag>[a-zA-Z][a-zA-Z0-9]*)\b[^>]*\bid\s*=\s*[\"']"
        + re.escape(element_id)
        + r"[\"'][^>]*>)"
        r"(?P<inner>[^<]*)(</(?P=tag)\s*>)"
    )
    start, end = _content_region(doc)
    for lo, hi in ((doc.html.start, start), (end, doc.html.end)):
        m = pattern.search(doc.text, lo, hi)
        if m:
            return m
    return None


def _stamp(doc: Document, element_id: str, value: str) -> Document:
    m = _stamp_match(doc, element_id)
    if m is None:
        return doc
    return doc.replace_range(m.start("inner"), m.end("inner"), html.escape(value))


def stamp_text(doc: Document, element_id: str) -> str | None:
    """The current text of a stamp such as ``last-scan`` (None when the page has none)."""
    m = _stamp_match(doc, element_id)
    return html.unescape(m.group("inner")) if m else None


def update_index_text(doc: Document, content: str, count: int, last_scan: str) -> Document:
    """An existing index with new content between its markers and new count and last-scan
    stamps; every other byte is kept."""
    start, end = _content_region(doc)
    # keep the original's layout: content on its own lines, END marker indented like START
    line_start = doc.text.rfind("\n", 0, start - len(CONTENT_START)) + 1
    indent = doc.text[line_start : start - len(CONTENT_START)]
    indent = indent if not indent.strip() else ""
    new = doc.replace_range(start, end, "\n" + content + indent)
    new = _stamp(new, "doc-count", str(count))
    return _stamp(new, "last-scan", last_scan)


def scan_stamp(now: datetime | None = None) -> str:
    return (now or clock.now().astimezone()).strftime("%Y-%m-%d %H:%M")


# --------------------------------------------------------------------------- writing
@dataclass
class IndexResult:
    path: Path
    scan: Scan
    today: date
    created: bool
    page_html: str  # the page part (no shell), for previews
    changed: bool = True  # False: the page already listed exactly this; nothing was written
    exit_code: int = 0

    @property
    def value(self) -> Path:
        return self.path

    def to_text(self) -> str:
        entries = self.scan.entries
        stale = sum(1 for e in entries if e.is_stale(self.today))
        new = sum(1 for e in entries if e.is_new)
        verb = "written" if self.created else "updated" if self.changed else "already up to date"
        lines = [
            f"{as_named(self.path)}: {verb}; {len(entries)} document{'s' if len(entries) != 1 else ''}"
            f" ({stale} stale, {new} never updated)"
        ]
        if self.scan.errors:
            lines.append(f"{len(self.scan.errors)} file(s) could not be read (listed on the page):")
            lines += [f"  {err.rel}: {err.message}" for err in self.scan.errors]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        # The same preview as `%oo index` (content cleaned, CSP, sandboxed frame: a raw original
        # index page could still load remote images or refresh inside a bare sandbox), drawn by
        # the notebook layer through the display seam.
        bundle: dict[str, Any] = {"text/plain": self.to_text()}
        if wants_html(include, exclude) and (page := render_html(self)) is not None:
            bundle["text/html"] = page
        return bundle

    def __repr__(self) -> str:
        return self.to_text()


def write_index(
    folder: str | Path,
    *,
    title: str | None = None,
    today: date | None = None,
    now: datetime | None = None,
) -> IndexResult:
    """Write ``folder/index.o-o.html``: our own page when there is none; an existing index
    (ours or an original) is updated only inside its content markers and stamps."""
    root = Path(folder)
    if not root.is_dir():
        raise OOError("is not a folder", file=str(root))
    day = today or (now.date() if now else clock.today())
    stamp = scan_stamp(now)
    found = scan(root)
    target = root / INDEX_NAME
    if target.exists():
        old = Document.read(target)
        if old.kind != "index":
            raise FormatError("exists but is not an index page; not overwritten", file=str(target))
        content = render_content(found, day, kb_only=not honours_data_sort(old))
        previous = stamp_text(old, "last-scan")
        if (
            previous is not None
            and update_index_text(old, content, len(found.entries), previous).text == old.text
        ):
            # nothing but the time would change: no write, no history snapshot of the same page
            return IndexResult(target, found, day, False, old.span_text(old.html), changed=False)
        new = update_index_text(old, content, len(found.entries), stamp)
        store.write_document(new, expected=old.to_bytes(), action="index")
        return IndexResult(target, found, day, False, new.span_text(new.html))
    text = render_index(
        title=title or f"Library: {root.resolve().name or 'documents'}",
        content_html=render_content(found, day),
        count=len(found.entries),
        last_scan=stamp,
        file_name=INDEX_NAME,
    )
    page = Document.parse(text.encode("utf-8"), path=target)
    store.atomic_write_bytes(target, page.to_bytes(), mode=0o755, exclusive=True)
    return IndexResult(target, found, day, True, page.span_text(page.html))
