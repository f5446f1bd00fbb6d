"""``oo sync``: give every page in a folder this version's shared code.

In the marker layout the stylesheet, browser script and shell sit between whole-line markers
(``<!-- OO:CSS:START -->`` …); sync replaces what is between them with this version's template
section, and puts ``DIR/oo.css`` in the CUSTOM block (removing the block when the file is gone).
Pages without markers (the early layout) are reported; ``--migrate`` converts them, replacing
only their code and keeping every byte of their data; an early index page gets this version's
shell only (its page bytes stay as they are), so ``bash index.o-o.html`` reaches oo_nb. Every
write goes through the store, so the previous version is kept in history.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from oo_nb.edit.page_policy import with_policy_bootstrap
from oo_nb.errors import FormatError, OOError
from oo_nb.format.document import Document, Span
from oo_nb.format.html_tokens import Token, tokenize
from oo_nb.format.line_endings import FIX_OPTION, shell_crlf_line, with_lf_shell
from oo_nb.format.names import RENDERING_BOUNDARY
from oo_nb.format.page_code import unknown_regions
from oo_nb.format.template.render import (
    CSP_BOOTSTRAP,
    MARKERS,
    PageKind,
    css_section,
    custom_section,
    js_section,
    shell_section,
)
from oo_nb.format.vocab import tag_id
from oo_nb.skin import sync_advice
from oo_nb.store import store
from oo_nb.store.discover import walk

__all__ = [
    "SECTIONS",
    "FileReport",
    "SyncResult",
    "find_section",
    "growth_note",
    "hand_edited",
    "migrate_early",
    "sync_dir",
    "sync_document",
]

SECTIONS = ("css", "js", "shell")
Choice = Literal["css", "js", "shell", "all"]
_CODE_TAGS = frozenset(("script", "style"))
_META = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
_CSP_EQUIV = re.compile(r"""\bhttp-equiv\s*=\s*["']?Content-Security-Policy""", re.IGNORECASE)
_CONTENT = re.compile(r"""\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


# --------------------------------------------------------------------------- locating code
def _lines(text: str, lo: int, hi: int) -> list[tuple[int, int, str]]:
    """(start, end including the newline, stripped content) of each line in ``[lo, hi)``."""
    out = []
    pos = lo
    while pos < hi:
        nl = text.find("\n", pos, hi)
        end = hi if nl < 0 else nl + 1
        out.append((pos, end, text[pos:end].strip()))
        pos = end
    return out


def find_section(doc: Document, name: str) -> Span | None:
    """The whole lines from a section's start marker to its end marker, inside the page (css,
    js, custom) or the shell tail (shell). None when the page has no such section."""
    start_marker, end_marker = MARKERS[name]
    region = doc.tail if name == "shell" else doc.html
    start: int | None = None
    for lo, hi, content in _lines(doc.text, region.start, region.end):
        if start is None and content == start_marker:
            start = lo
        elif start is not None and content == end_marker:
            return Span(start, hi)
        elif start is None and content == end_marker:
            break
    if start is not None or any(
        c == end_marker for _, _, c in _lines(doc.text, region.start, region.end)
    ):
        raise FormatError(
            f"unbalanced markers: {start_marker} and {end_marker} do not pair up", file=doc.file
        )
    return None


def _elements(doc: Document) -> list[tuple[str, int, int, int]]:
    """(tag, start, start tag's end, end) of each <script>/<style> element in the page outside
    the article, read as a browser reads the page (``html_tokens``): a comment ends where a
    browser ends it (``--!>``), a "<script" in an attribute value or a comment is none."""
    art = doc.article_span
    ranges = [(doc.html.start, doc.html.end)]
    if art is not None:
        ranges = [(doc.html.start, art.start), (art.end, doc.html.end)]
    out: list[tuple[str, int, int, int]] = []
    for lo, hi in ranges:
        opened: Token | None = None
        for tok in tokenize(doc.text, lo, hi):
            if tok.kind == "start" and tok.name in _CODE_TAGS:
                opened = tok
            elif tok.kind == "end" and opened is not None and tok.name == opened.name:
                out.append((opened.name, opened.start, opened.end, tok.end))
                opened = None
    return out


def _whole_lines(text: str, start: int, end: int) -> tuple[int, int, str, str]:
    """Widen ``[start, end)`` to whole lines when only blanks surround it on its lines; else
    return the newlines needed around a replacement to keep markers on lines of their own."""
    line_start = text.rfind("\n", 0, start) + 1
    nl = text.find("\n", end)
    line_end = len(text) if nl < 0 else nl + 1
    lead = "" if not text[line_start:start].strip() else "\n"
    trail = "" if not text[end:line_end].strip() else "\n"
    return (line_start if not lead else start), (line_end if not trail else end), lead, trail


# --------------------------------------------------------------------------- sync one page
# A region of page code, by the marker section holding it (``page_code.CodeRegion.kind``).
_SECTION_OF_REGION = {"stylesheet": "css", "page script": "js", "shell section": "shell"}


def hand_edited(doc: Document, sections: tuple[str, ...]) -> list[str]:
    """The marker ``sections`` of ``doc`` holding code no oo version wrote (a user's own lines
    in OO:CSS, say; ``page_code.unknown_regions``): sync replaces them, so it names them."""
    spans = {name: find_section(doc, name) for name in sections}
    found: list[str] = []
    for region in unknown_regions(doc):
        name = _SECTION_OF_REGION.get(region.kind)
        span = spans.get(name) if name is not None else None
        if name is None or span is None or name in found:
            continue
        if doc.line_of(span.start) <= region.line <= doc.line_of(span.end):
            found.append(name)
    return found


def _replace(doc: Document, span: Span, new: str) -> Document:
    if doc.newline_at(span.start) == "\r\n":
        new = new.replace("\r\n", "\n").replace("\n", "\r\n")
    return (
        doc
        if doc.text[span.start : span.end] == new
        else doc.replace_range(span.start, span.end, new)
    )


def sync_document(
    doc: Document, sections: tuple[str, ...], custom_css: str | None
) -> tuple[Document, list[str], list[str]]:
    """Replace the marker sections of one marker-layout page. Returns (new document, sections
    changed, sections missing). ``custom_css`` None removes the CUSTOM block (with "css")."""
    kind: PageKind = doc.kind
    makers = {"css": css_section, "js": js_section, "shell": shell_section}
    changed: list[str] = []
    missing: list[str] = []
    new = doc
    for name in sections:
        span = find_section(new, name)
        if span is None:
            missing.append(name)
            continue
        before = new
        new = _replace(new, span, makers[name](kind))
        if new is not before:
            changed.append(name)
    if "css" in sections:
        before = new
        new = _sync_custom(new, custom_css)
        if new is not before:
            changed.append("custom")
    before = new
    new = with_policy_bootstrap(new)  # whatever the sections: the page's policy is enforced
    if new is not before:
        changed.append("policy")
    return new, changed, missing


def _sync_custom(doc: Document, custom_css: str | None) -> Document:
    existing = find_section(doc, "custom")
    block = custom_section(custom_css) if custom_css is not None else ""
    if existing is not None:
        return _replace(doc, existing, block)
    css = find_section(doc, "css")
    if not block or css is None:
        return doc
    return doc.replace_range(css.end, css.end, block)


# --------------------------------------------------------------------------- migration
def migrate_early(doc: Document) -> Document:
    """Turn an early-layout document into the marker layout: its stylesheet, browser script and
    shell are replaced by this version's marked sections, its CSP gains ``img-src data:`` and the
    policy bootstrap goes into its head (``page_policy``: Chromium ignores the meta where it is).
    The header lines, the article and the four blocks stay byte for byte. An early index page
    gets this version's shell and the policy bootstrap only; every other byte above its
    terminator line stays."""
    if doc.layout != "early":
        return doc
    if doc.kind == "index":
        return _migrate_early_index(doc)
    new = _replace_tail(doc, "document")
    new = _swap_element(new, "script", js_section("document"))
    new = _swap_element(new, "style", css_section("document"))
    new = with_policy_bootstrap(_csp_with_images(new))
    _check_data_kept(doc, new)
    return new


def _replace_tail(doc: Document, kind: PageKind) -> Document:
    """The document with everything after its terminator line replaced by this version's shell
    (``exit 0`` last, so whatever a later editor appends never runs)."""
    shell = shell_section(kind) + "exit 0\n"
    if doc.shell_newline == "\r\n":
        shell = shell.replace("\n", "\r\n")
    if not doc.span_text(doc.terminator).endswith("\n"):  # a terminator on the file's last line
        shell = doc.shell_newline + shell
    return doc.replace_range(doc.tail.start, doc.tail.end, shell)


def _migrate_early_index(doc: Document) -> Document:
    """An original index page gets this version's shell, so ``bash index.o-o.html`` runs oo_nb
    (the original's shell would rebuild the page its own way and update documents with the
    original tool). Its page is kept byte for byte but for the policy bootstrap line: ``oo index``
    already keeps the content between its INDEX-CONTENT markers current, and its own styles and
    script still work."""
    new = with_policy_bootstrap(_replace_tail(doc, "index"))
    page = new.text[: new.terminator.start].replace(CSP_BOOTSTRAP + new.newline, "", 1)
    if page != doc.text[: doc.terminator.start] or new.kind != "index":
        raise FormatError(
            "migration would change the index page above its shell; not migrated", file=doc.file
        )
    return new


def _swap_element(doc: Document, tag: str, section: str) -> Document:
    if tag == "script":
        found = [
            (s, e)
            for t, s, tag_end, e in _elements(doc)
            if t == "script"
            and tag_id(doc.text[s:tag_end]) is None  # not a JSON block
            and "window.stop()" not in doc.text[s:e]
            and doc.text[s:e] != CSP_BOOTSTRAP
        ]
    else:
        found = [(s, e) for t, s, _, e in _elements(doc) if t == "style"]
    if len(found) > 1:
        raise FormatError(
            f"has {len(found)} <{tag}> elements of page code; not migrated (one expected)",
            file=doc.file,
        )
    if not found:
        if tag == "style":
            head_end = doc.text.lower().find("</head", doc.html.start, doc.html.end)
            if head_end < 0:
                raise FormatError("has no stylesheet and no </head>; not migrated", file=doc.file)
            start, _, lead, _ = _whole_lines(doc.text, head_end, head_end)
            return doc.replace_range(start, start, lead + section)
        stop = doc.text.find(RENDERING_BOUNDARY, doc.html.start, doc.html.end)
        if stop < 0:
            raise FormatError(
                "has no browser script and no rendering boundary; not migrated", file=doc.file
            )
        start, _, lead, _ = _whole_lines(doc.text, stop, stop)
        return doc.replace_range(start, start, lead + section)
    start, end, lead, _ = _whole_lines(doc.text, *found[0])
    return doc.replace_range(start, end, lead + section)


def _csp_with_images(doc: Document) -> Document:
    for meta in _META.finditer(doc.text, doc.html.start, doc.html.end):
        if not _CSP_EQUIV.search(meta.group(0)):
            continue
        content = _CONTENT.search(doc.text, meta.start(), meta.end())
        if content is None:
            return doc
        group = 1 if content.group(1) is not None else 2
        value = content.group(group)
        if "img-src" in value:
            return doc
        return doc.replace_range(
            content.start(group), content.end(group), value.rstrip().rstrip(";") + "; img-src data:"
        )
    return doc


def _check_data_kept(old: Document, new: Document) -> None:
    same = old.span_text(old.header) == new.span_text(new.header) and set(old.blocks) == set(
        new.blocks
    )
    same = same and all(old.block_text(b) == new.block_text(b) for b in old.blocks)
    if old.article_span is not None:
        same = same and new.article_span is not None and old.article_html == new.article_html
    if not same:  # never write a migration that touched data
        raise FormatError("migration would change the document's data; not migrated", file=old.file)


# --------------------------------------------------------------------------- a folder
@dataclass
class FileReport:
    rel: str
    status: str  # updated, unchanged, would update, early layout, migrated, would migrate, error
    sections: list[str] = field(default_factory=list)
    note: str = ""


@dataclass
class SyncResult:
    root: Path
    section: str
    dry_run: bool
    reports: list[FileReport] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if any(r.status == "error" for r in self.reports) else 0

    @property
    def value(self) -> list[FileReport]:
        return self.reports

    def to_text(self) -> str:
        if not self.reports:
            return f"{self.root}: no .o-o.html files"
        width = max(len(r.rel) for r in self.reports)
        lines = []
        for r in self.reports:
            detail = ", ".join(r.sections)
            extra = f" ({detail})" if detail else ""
            note = f" - {r.note}" if r.note else ""
            lines.append(f"{r.rel:<{width}}  {r.status}{extra}{note}")
        counts: dict[str, int] = {}
        for r in self.reports:
            counts[r.status] = counts.get(r.status, 0) + 1
        lines.append(
            ", ".join(f"{n} {status}" for status, n in counts.items())
            + (" (dry run: nothing written)" if self.dry_run else "")
        )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_text()


def _read_custom(root: Path) -> str | None:
    path = root / "oo.css"
    if not path.is_file():
        return None
    try:
        css = path.read_text("utf-8")
    except UnicodeDecodeError:
        raise OOError("is not UTF-8 text", file=str(path)) from None
    custom_section(css, source=str(path))  # refuse a stylesheet that could break the page
    return css


def sync_dir(
    root: str | Path,
    section: Choice = "all",
    *,
    dry_run: bool = False,
    migrate: bool = False,
    fix_line_endings: bool = False,
) -> SyncResult:
    base = Path(root)
    pages = walk(base)  # index pages too: they get this version's shell
    sections = SECTIONS if section == "all" else (section,)
    custom = _read_custom(base) if "css" in sections else None
    result = SyncResult(base, section, dry_run)
    for path in pages:
        rel = path.relative_to(base).as_posix()
        try:
            result.reports.append(
                _sync_one(path, rel, sections, custom, dry_run, migrate, fix_line_endings)
            )
        except OOError as exc:
            text = str(exc)
            result.reports.append(
                FileReport(
                    rel, "error", note=text.removeprefix(f"{exc.file}: ") if exc.file else text
                )
            )
    return result


def _sync_one(
    path: Path,
    rel: str,
    sections: tuple[str, ...],
    custom: str | None,
    dry_run: bool,
    migrate: bool,
    fix_line_endings: bool,
) -> FileReport:
    start = Document.read(path)
    store.check_writable(start)  # a damaged block: named at its line in the file (as oo check)
    doc = with_lf_shell(start) if fix_line_endings else start
    endings = [] if doc is start else ["line endings"]  # CR LF -> LF in the shell part only
    crlf = shell_crlf_line(doc)
    fix = sync_advice("DIR", "fix_line_endings")
    note = "" if crlf is None else f"{_CRLF_NOTE} (line {crlf}); `{fix}`"
    migrated = False
    if doc.layout == "early":
        if not migrate:
            advice = sync_advice("DIR", "migrate")
            early = (
                f"runs the original's shell; `{advice}` gives it this version's"
                if doc.kind == "index"
                else f"no OO markers; `{advice}` converts it"
            )
            if not endings:
                return FileReport(rel, "early layout", note=_join(early, note))
            _write(doc, start, endings, dry_run)
            return FileReport(rel, _status(dry_run, False), endings, _join(early, note))
        doc = migrate_early(doc)
        migrated = True
        if doc.kind == "index":
            # the page keeps its own styles and script: only the shell is this version's
            _write(doc, start, ["migrate", *endings], dry_run)
            return FileReport(
                rel,
                _status(dry_run, True),
                [*endings, "shell", "policy"],
                "this version's shell and page policy; the page above it is otherwise unchanged",
            )
        note = _join(note, "converted to the current page layout; data unchanged")
    new, changed, missing = sync_document(doc, sections, custom)
    edited = [] if migrated else [n for n in hand_edited(doc, sections) if n in changed]
    if edited:  # not silently: the user's own lines go (the page before is kept in history)
        note = _join(
            note,
            f"replaces hand-edited {', '.join(edited)} (code no oo version wrote; the page "
            "before is kept in history: `oo history`)",
        )
    if migrated:
        changed = ["css", "js", "shell", "policy", *(c for c in changed if c == "custom")]
    changed = endings + changed
    if missing:
        note = _join(note, f"no {', '.join(missing)} markers")
    if new.text == start.text:
        return FileReport(rel, "unchanged", note=note)
    if migrated:
        note = _join(note, growth_note(start, new))
    _write(new, start, ["migrate" if migrated else "", *sections, *endings], dry_run)
    return FileReport(rel, _status(dry_run, migrated), changed, note)


_CRLF_NOTE = "CRLF line endings in the shell part: bash cannot run it"


def growth_note(old: Document, new: Document) -> str:
    """Why a migrated page changed size: every page carries its own page code (it works alone,
    offline), and this version's replaces the original's."""
    kind = new.kind
    parts = {
        "script": js_section(kind),
        "stylesheet": css_section(kind),
        "shell": shell_section(kind),
    }
    ours = {name: len(text.encode("utf-8")) for name, text in parts.items()}
    delta = len(new.to_bytes()) - len(old.to_bytes())
    listed = ", ".join(f"{name} {size / 1024:.1f}" for name, size in ours.items())
    return (
        f"{'+' if delta >= 0 else '-'}{abs(delta) / 1024:.1f} KB: this version's page code "
        f"({sum(ours.values()) / 1024:.1f} KB: {listed}) replaces the original's"
    )


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _status(dry_run: bool, migrated: bool) -> str:
    if migrated:
        return "would migrate" if dry_run else "migrated"
    return "would update" if dry_run else "updated"


def _write(new: Document, start: Document, what: list[str], dry_run: bool) -> None:
    """Through the store: the version replaced is kept in history. ``what`` names the change
    in the history row (``sync css+js+shell``, ``sync --migrate``, ``sync --fix-line-endings``)."""
    if dry_run:
        return
    words = ["sync"]
    if "migrate" in what:
        words.append("--migrate")
    elif parts := [w for w in what if w in SECTIONS]:
        words.append("+".join(parts))
    if "line endings" in what:
        words.append(FIX_OPTION)
    store.write_document(new, expected=start.to_bytes(), action=" ".join(words))
