"""The o-o file as spans of text: header, heredoc opener, HTML, JSON blocks, article, terminator,
shell tail. Reading never builds an HTML tree of the whole page; writing splices one span and
re-parses, so every other byte stays as it was."""

from __future__ import annotations

import bisect
import copy
import errno
import json
import os
import re
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from oo_nb.errors import BlockError, FormatError, OOError, ValidationError
from oo_nb.format.display import render_html, wants_html
from oo_nb.format.jsonblock import MAX_DEPTH, depth_exceeds, dump_block, locate_error, parse_block
from oo_nb.format.jsonsplice import splice_json
from oo_nb.format.names import (
    BLOCK_IDS,
    BLOCK_PREFIX,
    CHANGELOG_BLOCK,
    CONTRACT_BLOCK,
    HEREDOC_TERMINATOR,
    INDEX_CONTENT_START,
    LEGACY_BLOCK_PREFIX,
    LEGACY_HEREDOC_TERMINATOR,
    MANIFEST_BLOCK,
    SECTION_MARKERS,
    SOURCE_CACHE_BLOCK,
    BlockId,
)
from oo_nb.format.vocab import tag_id

if TYPE_CHECKING:
    from oo_nb.format.article import Article
    from oo_nb.format.article_model import Model
    from oo_nb.format.blocks import Changelog, Contract, Manifest, SourceCache

__all__ = ["BLOCK_IDS", "Document", "Span", "neutralise_terminator", "read_regular"]

# BLOCK_IDS (re-exported) and the block id type live in format.names
BlockName = BlockId

_OPENER = re.compile(
    rf"""^:[ \t]*<<(-?)[ \t]*(['"]?)({HEREDOC_TERMINATOR}|{LEGACY_HEREDOC_TERMINATOR})\2[ \t]*\r?$"""
)
# Tokens that matter for finding blocks and the article; comments, scripts and styles are opaque.
# (written with "<" and "s" outside the alternation: a few percent quicker over a long article)
_COUNTED_LOOKUPS = 16  # line_of calls answered by counting before a table is built
# A file laid out with the template's marker sections (the custom one is optional: no sign).
_MARKERS = tuple(SECTION_MARKERS[s][0] for s in ("css", "js", "shell"))  # each holds "OO:"


@dataclass(frozen=True, slots=True)
class Span:
    """Half-open character range ``[start, end)`` in the document's text."""

    start: int
    end: int


def read_regular(path: str | Path) -> bytes:
    """The bytes of the plain file at ``path``. A fifo, a socket or a device (or a link to one)
    where a document was expected is refused with ``OSError``, never read: a fifo's read blocks
    for ever, ``/dev/zero``'s never ends. The file is opened without blocking and checked once
    open, so one swapped in after a folder was listed is refused too."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a plain file (a fifo, socket or device)", str(path))
        parts = []
        # one read takes it all; a file that grew meanwhile is read to its end
        while chunk := os.read(fd, max(info.st_size + 1, 1 << 16)):
            parts.append(chunk)
        return b"".join(parts)
    finally:
        os.close(fd)


def neutralise_terminator(html: str, marker: str = HEREDOC_TERMINATOR) -> str:
    """A line equal to the heredoc terminator would end the heredoc early and run the rest as
    shell. Prefix such lines with an empty comment: bash no longer sees the terminator and the
    browser shows the same text."""
    lines = html.split("\n")
    for i, line in enumerate(lines):
        # Leading tabs too: under a `<<-` opener bash strips them and would end the heredoc.
        if line.rstrip("\r").lstrip("\t") == marker:
            lines[i] = "<!---->" + line
    return "\n".join(lines)


class Document:
    """One parsed o-o file. Immutable: every ``with_*`` method returns a new Document."""

    def __init__(self, text: str, *, path: Path | None = None, data: bytes | None = None) -> None:
        self.text = text
        self.path = path
        self._data = data
        self._json_cache: dict[str, Any] = {}
        self._shadows: list[tuple[str, int]] | None = None
        self._article_model: Model | None = None
        self._strips_tabs = False
        self._page_ids: list[tuple[str, int]] = []  # elements outside the article with a block id
        self._line_starts: list[int] | None = None
        self._anchors: list[tuple[int, int]] = [(0, 1)]  # (offset, its line) looked up so far
        self._parse()

    # ----------------------------------------------------------------- construction
    @classmethod
    def read(cls, path: str | Path) -> Document:
        p = Path(path)
        try:
            data = read_regular(p)
        except FileNotFoundError:
            raise FormatError("no such file", file=str(p)) from None
        except OSError as exc:
            raise FormatError(f"cannot read: {exc.strerror}", file=str(p)) from None
        return cls.parse(data, path=p)

    @classmethod
    def parse(cls, data: bytes, *, path: str | Path | None = None) -> Document:
        p = Path(path) if path is not None else None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise FormatError(
                f"not valid UTF-8 (byte {exc.start})", file=_name(p), line=line
            ) from None
        return cls(text, path=p, data=data)

    @property
    def decoded_from_bytes(self) -> bool:
        """Whether the text was decoded (strict UTF-8) from the file's bytes: then it holds no
        lone surrogate (and no Document holds a NUL: parsing refuses it)."""
        return self._data is not None

    # ----------------------------------------------------------------- parsing
    def _parse(self) -> None:
        text = self.text
        # the bytes, when there are any, are searched in C by memchr: the text of a page with
        # any non-Latin-1 character (most) only char by char
        if b"\x00" in self._data if self._data is not None else "\x00" in text:
            raise FormatError(
                "contains a NUL byte", file=self.file, line=self.line_of(text.index("\x00"))
            )
        opener = self._find_opener()
        self.marker = opener[2]
        self.opener = Span(opener[0], opener[1])
        self.header = Span(0, opener[0])
        self.terminator = self._find_terminator(opener[1])
        self.html = Span(opener[1], self.terminator.start)
        # the page's line ending (text spliced into it gets the same)
        self.newline = "\r\n" if _has_crlf(text, self.html.start, self.html.start + 4096) else "\n"
        self.tail = Span(self.terminator.end, len(text))
        # the bash lines (header, opener, terminator, tail) may end otherwise than the page's:
        # `oo sync --fix-line-endings` gives them LF and leaves the page's bytes alone
        shell_crlf = _has_crlf(text, 0, self.html.start) or _has_crlf(
            text, self.terminator.start, len(text)
        )
        self.shell_newline = "\r\n" if shell_crlf else "\n"
        self.blocks: dict[str, Span] = {}
        self.block_tags: dict[str, Span] = {}
        self.article_span: Span | None = None
        self._scan_html()
        # (a page with blocks is a document: its text is not searched for the index marker)
        index_content = (
            not self.blocks and text.find(INDEX_CONTENT_START, self.html.start, self.html.end) >= 0
        )
        self.kind: Literal["document", "index"] = "index" if index_content else "document"
        marked = "OO:" in text and any(m in text for m in _MARKERS)
        self.layout: Literal["early", "marker"] = "marker" if marked else "early"

    def _find_opener(self) -> tuple[int, int, str]:
        pos = 0
        text = self.text
        while pos < len(text):
            end = text.find("\n", pos)
            line_end = len(text) if end < 0 else end + 1
            line = text[pos : (end if end >= 0 else len(text))]
            m = _OPENER.match(line)
            if m:
                if not m.group(2):
                    # an unquoted word: bash expands the heredoc, running $(...) and `...` that
                    # the page's text holds (and an update writes text from the web there)
                    raise FormatError(
                        f"the heredoc opener `{line.strip()}` leaves its word unquoted: bash runs "
                        f"$(…) and `…` in the page's text; write it `: << '{m.group(3)}'`",
                        file=self.file,
                        line=text.count("\n", 0, pos) + 1,
                    )
                self._strips_tabs = bool(m.group(1))  # `<<-`: bash strips a line's leading tabs
                return pos, line_end, m.group(3)
            if line.lstrip().startswith("<"):
                break  # HTML started without a heredoc: not a polyglot
            pos = line_end
        raise FormatError(
            "not an o-o document: no heredoc opener line `: << 'OO_HTML'` before the HTML",
            file=self.file,
        )

    def _find_terminator(self, start: int) -> Span:
        # The first line bash ends the heredoc at: the delimiter exactly. bash reads a "\r" right
        # after the opener's word as part of the delimiter (`: << 'OO_HTML'` then CR LF: the
        # delimiter is "OO_HTML\r"), so a terminator line ends in CR exactly when the opener's
        # word does; "OO_HTML\r" under an LF opener ends nothing, and bash reads on.
        text, marker = self.text, self.marker
        opener_line = text[self.opener.start : self.opener.end].rstrip("\n")
        cr = "\r" if opener_line.endswith("\r") and opener_line[-2:-1] not in (" ", "\t") else ""
        # With none, bash runs nothing ("delimited by end-of-file"): the first line that is the
        # delimiter but for its CR stands for it (``oo check`` says bash cannot run the file,
        # ``oo sync --fix-line-endings`` mends it).
        pos, near = start, None
        while (hit := text.find(marker, pos)) >= 0:
            end = text.find("\n", hit)
            line_end = len(text) if end < 0 else end + 1
            line_start = text.rfind("\n", 0, hit) + 1
            at_line_start = hit == line_start or (
                self._strips_tabs and not text[max(line_start, start) : hit].strip("\t")
            )
            at_line_start = at_line_start and line_start >= start
            rest = text[hit + len(marker) : line_end]
            if at_line_start and rest in (cr + "\n", cr):
                return Span(hit, line_end)
            if at_line_start and near is None and not rest.strip("\r\n"):
                near = Span(hit, line_end)
            pos = hit + 1
        if near is not None:
            return near
        raise FormatError(
            f"no terminator line `{self.marker}` after the heredoc opener",
            file=self.file,
            line=self.line_of(start - 1),
        )

    def _scan_html(self) -> None:
        """The JSON blocks and the article, read by the tokenizer as a browser reads the page (a
        comment ends where a browser ends it, ``<script`` in an attribute's value opens nothing,
        a script's text ends at the end tag the script states allow); the article by the tree
        builder, once, and the reading goes on after its end."""
        # (no cost at import: the tokenizer and the model load with the first page read)
        from oo_nb.format.article_model import read_article_element
        from oo_nb.format.html_tokens import raw_tokens

        text = self.text
        pos, end = self.html.start, self.html.end
        outside_ids: set[str] = set()
        while pos < end:
            resume = end
            script: tuple[str | None, int, int] | None = None  # an open script: id, tag span
            for raw in raw_tokens(text, pos, end):
                if not isinstance(raw, tuple):  # a DOCTYPE
                    continue
                kind, start, stop, name, attrs = raw[0], raw[1], raw[2], raw[3], raw[4]
                if script is not None and kind in ("text", "end"):
                    if kind == "end":  # (the one end tag the script states let through)
                        self._note_block(script[0], script[1], Span(script[2], start))
                        script = None
                    continue
                if kind != "start":
                    continue
                element_id = (
                    next((a.value for a in attrs if a.name == "id"), None) if attrs else None
                )
                if element_id:
                    outside_ids.add(element_id)  # (the article's headings are given none of them)
                if name not in ("script", "article"):
                    if element_id is not None and _block_name(element_id) in BLOCK_IDS:
                        self._page_ids.append((element_id, start))  # (page_shadows)
                    continue
                if name == "script":
                    script = (element_id, start, stop)
                    continue
                if self.article_span is not None or element_id != "article":
                    continue
                # its end is where a browser's tree builder puts it (not at the first
                # "</article>": one may sit in an attribute, raw text or a table cell)
                read = read_article_element(text, stop, end)
                if read is None:
                    raise FormatError(
                        '<article id="article"> is never closed',
                        file=self.file,
                        line=self.line_of(stop),
                    )
                self._article_model, closed = read
                self.article_span = Span(stop, closed[0])
                resume = closed[1]
                break
            else:
                if script is not None:  # a script left open runs to the end of the page
                    self._note_block(script[0], script[1], Span(script[2], end))
            pos = resume
        if self._article_model is not None:
            self._article_model = replace(self._article_model, page_ids=frozenset(outside_ids))

    def _note_block(self, block_id: str | None, tag_start: int, body: Span) -> None:
        if block_id is None:
            return
        name = _block_name(block_id)
        if name not in BLOCK_IDS:
            return
        if name in self.blocks:
            raise BlockError(
                f"appears twice in the page (lines {self.line_of(self.blocks[name].start)} and "
                f"{self.line_of(body.start)})",
                file=self.file,
                block=name,
                line=self.line_of(body.start),
            )
        self.blocks[name] = body
        self.block_tags[name] = Span(tag_start, body.start)

    # ----------------------------------------------------------------- reading
    @property
    def file(self) -> str | None:
        return _name(self.path)

    def newline_at(self, offset: int) -> str:
        """The line ending text spliced at ``offset`` gets: the article's inside the article
        (``article_newline``), the page's elsewhere inside the heredoc, the shell's outside it."""
        span = self.article_span
        if span is not None and span.start <= offset <= span.end:
            return self.article_newline
        return self.newline if self.html.start <= offset <= self.html.end else self.shell_newline

    @property
    def article_newline(self) -> str:
        """The article's line ending: the one its first line break has (an article may be
        written otherwise than the page around it, CRLF in an LF page), else the page's."""
        span = self.article_span
        at = -1 if span is None else self.text.find("\n", span.start, span.end)
        if at < 0:
            return self.newline
        return "\r\n" if self.text[at - 1] == "\r" else "\n"

    def line_of(self, offset: int) -> int:
        if self._line_starts is None:
            # A few lookups (a scan asks for a handful) count newlines in C from the nearest
            # offset already looked up; many build a table.
            anchors = self._anchors
            if len(anchors) <= _COUNTED_LOOKUPS:
                if offset < 0:
                    return 0
                i = bisect.bisect_right(anchors, (offset, sys.maxsize)) - 1
                base, line = anchors[i]
                line += self.text.count("\n", base, offset)
                if base != offset:
                    bisect.insort(anchors, (offset, line))
                return line
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return bisect.bisect_right(self._line_starts, offset)

    def span_text(self, span: Span) -> str:
        return self.text[span.start : span.end]

    def has_block(self, name: str) -> bool:
        return name in self.blocks

    def block_text(self, name: str) -> str:
        return self.span_text(self._block_span(name))

    def block_json(self, name: str) -> Any:
        """The block's parsed JSON (a fresh deep copy each call, so callers may mutate it)."""
        if name not in self._json_cache:
            span = self._block_span(name)
            line, column = self.block_position(name)
            self._json_cache[name] = parse_block(
                self.span_text(span),
                block=name,
                file=self.file,
                first_line=line,
                first_column=column,
            )
        return copy.deepcopy(self._json_cache[name])

    def block_position(self, name: str) -> tuple[int, int]:
        """Line and column (1-based) where the block's JSON text starts in the file."""
        start = self._block_span(name).start
        return self.line_of(start), start - (self.text.rfind("\n", 0, start) + 1) + 1

    def locate(self, exc: ValidationError, block: str) -> ValidationError:
        """``exc`` (about a key of ``block``) with the line and column of that key's value."""
        line, column = self.block_position(block)
        locate_error(exc, self.block_text(block), first_line=line, first_column=column)
        return exc

    def shadowed_blocks(self) -> list[tuple[str, int]]:
        """The elements of the article whose id names a block (``oo-manifest``, its legacy
        spelling…), as (id, line); one with the block's own id shadows it: ``getElementById``
        finds the first of two, so the page script may read one block and oo_nb another. Read
        from the article's model (the id as a browser reads it: a decoded ``&#45;`` is a "-")."""
        if self._shadows is None:
            self._shadows = []
            if self._article_model is not None and self.article_span is not None:
                base = self.article_span.start
                for node in self._article_model.identified:
                    found = node.attr("id")
                    if found is not None and _block_name(found) in BLOCK_IDS:
                        self._shadows.append((found, self.line_of(base + node.start)))
        return self._shadows

    def page_shadows(self) -> list[tuple[str, int]]:
        """``shadowed_blocks`` in the page's own markup outside the article: elements whose id
        names a block and that come before the block's own ``<script>``, as (id, line): a
        browser's ``getElementById`` finds the first, so the page script shows that element
        while oo_nb reads the block. oo_nb never writes markup there (it is page code:
        ``page_code`` says when it is not known); noted by the page's one reading."""
        found: list[tuple[str, int]] = []
        for element_id, start in self._page_ids:
            block = self.block_tags.get(_block_name(element_id))
            if block is None or start < block.start:  # (after it, the block is found)
                found.append((element_id, self.line_of(start)))
        return found

    def _block_span(self, name: str) -> Span:
        tag = self.block_tags.get(name)
        own = tag_id(self.span_text(tag)) if tag is not None else None
        for element_id, line in self.shadowed_blocks():
            # the page asks for the block's own id: which of two a browser reads is refused,
            # not guessed
            if element_id == own:
                raise FormatError(
                    f'an element of the article has the id "{element_id}" too (line {line}): '
                    "the page script reads the first of the two; remove or rename it",
                    file=self.file,
                    line=line,
                )
        try:
            return self.blocks[name]
        except KeyError:
            raise BlockError(
                f'missing: no <script id="{name}"> inside the first heredoc',
                file=self.file,
                block=name,
            ) from None

    @property
    def article_html(self) -> str:
        return self.article_model.source

    @property
    def article_model(self) -> Model:
        """The article read as a browser reads it (``article_model.Model``; its offsets are
        into ``article_html``), from the same reading that found where the article ends."""
        if self._article_model is None:
            raise FormatError('no <article id="article"> element', file=self.file)
        return self._article_model

    @property
    def manifest(self) -> Manifest:
        from oo_nb.format.blocks import Manifest

        raw = self.block_json(MANIFEST_BLOCK)
        try:
            return Manifest.from_json(raw, file=self.file)
        except ValidationError as exc:
            raise self.locate(exc, MANIFEST_BLOCK) from None

    @property
    def contract(self) -> Contract:
        from oo_nb.format.blocks import Contract

        raw = self.block_json(CONTRACT_BLOCK)
        try:
            return Contract.from_json(raw, file=self.file)
        except ValidationError as exc:
            raise self.locate(exc, CONTRACT_BLOCK) from None

    @property
    def source_cache(self) -> SourceCache:
        from oo_nb.format.blocks import SourceCache

        raw = self.block_json(SOURCE_CACHE_BLOCK)
        try:
            return SourceCache.from_json(raw, file=self.file)
        except ValidationError as exc:
            raise self.locate(exc, SOURCE_CACHE_BLOCK) from None

    @property
    def changelog(self) -> Changelog:
        from oo_nb.format.blocks import Changelog

        raw = self.block_json(CHANGELOG_BLOCK)
        try:
            return Changelog.from_json(raw, file=self.file)
        except ValidationError as exc:
            raise self.locate(exc, CHANGELOG_BLOCK) from None

    @property
    def article(self) -> Article:
        from oo_nb.format.article import Article

        return Article.parse(self.article_model, file=self.file)

    def to_bytes(self) -> bytes:
        if self._data is not None:
            return self._data
        try:
            return self.text.encode("utf-8")
        except UnicodeEncodeError as exc:  # only a Document built from a str can hold one
            raise FormatError(
                f"text cannot be written as UTF-8 ({exc.reason})", file=self.file
            ) from None

    # ----------------------------------------------------------------- writing
    def replace_range(self, start: int, end: int, new: str) -> Document:
        """Splice ``new`` over ``[start, end)`` and re-parse. Raises if the result is no longer a
        well-formed document with the same blocks and article (nothing is half-written).
        Text spliced into the HTML part never holds a terminator line (it would end the heredoc)."""
        in_page = self.html.start <= start <= end <= self.html.end
        if in_page:
            new = neutralise_terminator(new, self.marker)
        if (self.newline_at(start) if in_page else self.shell_newline) == "\r\n":
            new = new.replace("\r\n", "\n").replace("\n", "\r\n")
        try:
            new.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate, e.g. from "\ud800" in JSON
            raise FormatError(
                f"the edit holds text that cannot be written as UTF-8 ({exc.reason} at character {exc.start})",
                file=self.file,
            ) from None
        # (an unquoted heredoc word, which would make bash expand $(…) in an edit, is refused
        # when the document is read: ``_find_opener``)
        text = self.text[:start] + new + self.text[end:]
        try:
            result = Document(text, path=self.path)
        except FormatError as exc:
            raise FormatError(
                f"the edit would break the document: {exc.message}", file=self.file
            ) from None
        lost = set(self.blocks) - set(result.blocks)
        if lost or (self.article_span is not None and result.article_span is None):
            raise FormatError(
                f"the edit would break the document: lost {sorted(lost) or 'the article'}",
                file=self.file,
            )
        return result

    def with_block(self, name: BlockName | str, value: Any) -> Document:
        """The document with block ``name`` holding ``value``: only the values that changed are
        rewritten (``jsonsplice``), so the rest of the block keeps its bytes and layout."""
        span = self._block_span(name)
        old = self.span_text(span)
        lead = old[: len(old) - len(old.lstrip())] or "\n"
        trail = old[len(old.rstrip()) :] or "\n"
        indent = _detect_indent(old)
        try:
            full = dump_block(value, indent)  # also the check that value is JSON at all
        except (TypeError, ValueError, RecursionError) as exc:  # NaN, sets, cycles, too deep
            raise ValidationError(
                f"cannot be written as JSON: {exc}", file=self.file, block=name
            ) from None
        if depth_exceeds(value, MAX_DEPTH):  # it would not read back (parse_block refuses it)
            raise ValidationError(
                f"cannot be written: nested deeper than {MAX_DEPTH} levels",
                file=self.file,
                block=name,
            )
        try:
            current = self.block_json(name)
        except OOError:  # an unreadable block is replaced whole (a repair)
            body = lead + full + trail
        else:
            body = _spliced(old, current, value, indent) or lead + full + trail
        return self.replace_range(span.start, span.end, body)

    def edit_block(self, name: BlockName | str, change: Callable[[Any], Any]) -> Document:
        """``change`` receives a copy of the block's JSON, mutates or returns it; the result is
        written back in the block's own shape."""
        value = self.block_json(name)
        result = change(value)
        return self.with_block(name, value if result is None else result)

    def with_article(self, html: str) -> Document:
        if self.article_span is None:
            raise FormatError('no <article id="article"> element', file=self.file)
        start, end = self.article_span.start, self.article_span.end
        safe = neutralise_terminator(html, self.marker)
        result = self.replace_range(start, end, safe)
        # The new HTML must be exactly the new article: a stray </article> would end it early
        # and leave the rest of the HTML outside, where nothing checks it.
        new_len = len(result.text) - len(self.text) + (end - start)
        span = result.article_span
        if span is None or span.start != start or span.end != start + new_len:
            raise FormatError(
                "the new article HTML closes or reopens the <article> element; nothing changed",
                file=self.file,
            )
        return result

    def with_path(self, path: str | Path) -> Document:
        return Document(self.text, path=Path(path), data=self._data)

    def __repr__(self) -> str:
        return f"<Document {self.file or '(unsaved)'} {self.kind} {self.layout} {len(self.text)} chars>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """In a notebook (``doc = %oo new ...``, ``Document.read(p)`` as a cell's last line) a
        document shows as its article (an index: its cards) in the sandboxed preview frame that
        ``%oo show`` uses; ``text/plain`` stays the one-line repr. A document whose article or
        manifest cannot be read shows the repr only: displaying must never raise."""
        bundle = {"text/plain": repr(self)}
        if wants_html(include, exclude) and (page := render_html(self)) is not None:
            bundle["text/html"] = page
        return bundle


def _block_name(element_id: str) -> str:
    """The block an element id names (a legacy ``liki-`` id read as its ``oo-`` block)."""
    if element_id.startswith(LEGACY_BLOCK_PREFIX):
        return element_id.replace(LEGACY_BLOCK_PREFIX, BLOCK_PREFIX, 1)
    return element_id


def _has_crlf(text: str, start: int, end: int) -> bool:
    return text.find("\r\n", start, end) >= 0


def _spliced(old_text: str, old: Any, new: Any, indent: str) -> str | None:
    """``old_text`` with only the changed values rewritten, or None when the splice cannot be
    trusted (text this walk cannot follow, or a result that does not read back as ``new``)."""
    try:
        text = splice_json(old_text, old, new, indent)
        same = json.dumps(json.loads(text), ensure_ascii=False) == json.dumps(
            new, ensure_ascii=False
        )
    except (ValueError, TypeError, IndexError, RecursionError):
        return None
    return text if same else None


def _detect_indent(block: str) -> str:
    for line in block.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def _name(path: Path | None) -> str | None:
    return str(path) if path is not None else None
