"""The code of a page, outside its data, and whether we know it.

A document is data (the article and the four JSON blocks) inside code: the shell header before
the heredoc, the page's markup, stylesheets and scripts, and the shell after the heredoc (run by
``bash DOC``). ``code_regions`` cuts that code into regions and normalises each (line endings,
trailing blanks, the header's comments, the markup's text), so a region can be recognised by its
hash. ``unknown_regions`` lists the regions that match neither a known original o-o page
(``known_page_code``, fingerprinted from the real documents of the corpus) nor this version's
templates (rendered here, so a template change needs no new fingerprints): a region someone
edited by hand, or an attack (``oo check`` reports them as ``unknown-page-code``).

A document fresh from o-o's ``--new`` carries its own title, scope, slug and year in its OO:SHELL
section (o-o's generator fills its templates with sed, its own copy included): ``values_out``
marks them before that section is hashed, so one fingerprint covers every such document of a
version, and only values that are no code where they stand are marked (docs/security.md).

The user's own stylesheet in the CUSTOM block (``oo sync`` puts ``DIR/oo.css`` there) is data,
not page code: it is skipped while it holds one ``<style>`` element and nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Generic, Literal, TypeVar

from oo_nb.format.document import Document, Span
from oo_nb.format.html_tokens import content_end, markup_at, plain_tags, tokenize
from oo_nb.format.known_page_code import KNOWN_PAGE_CODE
from oo_nb.format.names import SECTION_MARKERS

__all__ = [
    "PLACEHOLDERS",
    "REGION_KINDS",
    "SHADOWED_BLOCK",
    "VALUE_MARK",
    "CodeRegion",
    "code_regions",
    "filled_values",
    "finding_code",
    "fresh_form",
    "page_code_findings",
    "region_fingerprints",
    "rendered_fingerprints",
    "shadow_message",
    "template_fingerprints",
    "unknown_code_message",
    "unknown_regions",
    "values_out",
]

RegionKind = Literal[
    "shell header", "page markup", "stylesheet", "page script", "shell", "shell section"
]
REGION_KINDS: tuple[RegionKind, ...] = (
    "shell header",
    "page markup",
    "stylesheet",
    "page script",
    "shell",
    "shell section",
)
_DESCRIBE: dict[RegionKind, str] = {
    "shell header": "the shell header before the heredoc",
    "page markup": "the page's markup outside the article",
    "stylesheet": "a stylesheet",
    "page script": "a page script",
    "shell": "the shell after the heredoc",
    "shell section": "the OO:SHELL section after the heredoc",
}
# Elements that are regions of their own, from their start tag to the end of their end tag.
_CODE_ELEMENTS = ("script", "style")
# In a run of text a browser drops what starts like a tag but never ends (``</>``, a tag cut by
# the page's end): not markup for a browser, but code someone wrote, so it stays in the markup.
_DROPPED_TAG = re.compile(r"<[A-Za-z/!?]")
_JSON_TAG = re.compile(
    r"""<script (?:id="[a-z-]+" type="application/json"|type="application/json" id="[a-z-]+")>"""
)
_CUSTOM_START, _CUSTOM_END = SECTION_MARKERS["custom"]
_SHELL_START, _SHELL_END = SECTION_MARKERS["shell"]


class CodeRegion:
    """One region of page code: its kind, the line where it starts in the file and its
    normalised text. Read-only; equal, hashed and shown as the dataclass it was. A region cut
    from a document counts its line only when asked: most regions are known and their line
    never shown, and counting the newlines of a 100 KB page costs more than recognising all its
    regions."""

    __slots__ = ("_kind", "_line", "_text", "_where")

    def __init__(self, kind: RegionKind, line: int, text: str) -> None:
        self._kind = kind
        self._text = text
        self._line: int | None = line
        self._where: tuple[_Lines, int] | None = None  # where to count the line, the offset

    @classmethod
    def at(cls, kind: RegionKind, lines: _Lines, offset: int, text: str) -> CodeRegion:
        """The region that starts at ``offset`` of the document ``lines`` counts in; its line
        is counted on first use."""
        lines.wanted.append(offset)
        region = cls.__new__(cls)
        region._kind = kind
        region._text = text
        region._line = None
        region._where = (lines, offset)
        return region

    @property
    def kind(self) -> RegionKind:
        return self._kind

    @property
    def text(self) -> str:
        """Normalised."""
        return self._text

    @property
    def line(self) -> int:
        """Where it starts in the file (1-based)."""
        if self._line is None:
            assert self._where is not None
            lines, offset = self._where
            self._line = lines.of(offset)
            self._where = None  # the document is no longer needed
        return self._line

    @property
    def fingerprint(self) -> str:
        return _fingerprint(self.kind, self.text)

    def describe(self) -> str:
        return f"{_DESCRIBE[self.kind]} (line {self.line})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, CodeRegion)
        return (self.kind, self.line, self.text) == (other.kind, other.line, other.text)

    def __hash__(self) -> int:
        return hash((self.kind, self.line, self.text))

    def __repr__(self) -> str:
        return f"CodeRegion(kind={self.kind!r}, line={self.line!r}, text={self.text!r})"

    def __reduce__(self) -> tuple[type[CodeRegion], tuple[RegionKind, int, str]]:
        return (CodeRegion, (self.kind, self.line, self.text))


# A library repeats the same few scripts and stylesheets in every page: each is normalised and
# hashed once per process (a hit costs one hash and one compare of the text, both in C).
@lru_cache(maxsize=256)
def _fingerprint(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest()


def _lines(text: str) -> str:
    """Line endings and trailing blanks do not count."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


def _shell_lines(text: str) -> str:
    """``_lines`` of shell: a CR alone ends no line for bash ("# note\rcode" is one comment
    line), so it stays in its line, and only spaces and tabs end a line as blanks."""
    lines = [line.rstrip(" \t") for line in text.replace("\r\n", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


_T = TypeVar("_T")


class _Seen(Generic[_T]):
    """What was made of raw texts already met (regions, the gaps between the page's data),
    found by their length and one compare.

    The same 14 KB stylesheet comes in every page of a library: a dict or ``lru_cache`` keyed by
    the text would hash all of it (each slice is a new string) before comparing it; here a text
    costs one compare, in C, with the few texts of its length seen before. Exact: only an equal
    text gives the stored result. The lengths least recently met go first."""

    def __init__(self, per_length: int = 4, lengths: int = 64) -> None:
        self._by_length: OrderedDict[int, list[tuple[str, _T]]] = OrderedDict()
        self._per_length = per_length
        self._lengths = lengths

    def get(self, raw: str) -> _T | None:
        same = self._by_length.get(len(raw))
        if same is not None:
            for seen, result in same:
                if seen == raw:
                    self._touch(len(raw))
                    return result
        return None

    def at(self, text: str, start: int, stop: int) -> _T | None:
        """``get(text[start:stop])`` without the copy (a text of another length: no compare)."""
        same = self._by_length.get(stop - start)
        if same is not None:
            for seen, result in same:
                if text.startswith(seen, start):
                    self._touch(stop - start)
                    return result
        return None

    def put(self, raw: str, result: _T) -> _T:
        same = self._by_length.get(len(raw))
        if same is None:
            if len(self._by_length) >= self._lengths:
                with contextlib.suppress(KeyError):  # (another thread emptied it meanwhile)
                    self._by_length.popitem(last=False)
            self._by_length[len(raw)] = [(raw, result)]
        else:  # the newest first; a few per length bound the compares a hostile page can cause
            same.insert(0, (raw, result))
            del same[self._per_length :]
        return result

    def _touch(self, length: int) -> None:
        with contextlib.suppress(KeyError):  # (another thread let it go meanwhile)
            self._by_length.move_to_end(length)

    def of_length(self, length: int) -> list[tuple[str, _T]]:
        """The texts of ``length`` met before, with what was made of them."""
        return self._by_length.get(length, [])

    def clear(self) -> None:
        self._by_length.clear()

    def __len__(self) -> int:
        return sum(len(same) for same in self._by_length.values())


# scripts and stylesheets: normalised, and their bytes in UTF-8
_SEEN_CODE: _Seen[tuple[str, bytes]] = _Seen()
# the shell after the heredoc: normalised, its OO:SHELL section (offset in the tail, normalised
# text), its newlines, and its bytes in UTF-8 (bytes that end a file, decoded strictly, end its
# text with this text: UTF-8 starts no character with a byte that can continue one)
_SEEN_TAIL: _Seen[tuple[str, tuple[int, str] | None, _Newlines, bytes]] = _Seen()


class _Newlines:
    """How many newlines a text met before holds, counted when first asked."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count: int | None = None

    def of(self, text: str, start: int, stop: int) -> int:
        if self.count is None:
            self.count = text.count("\n", start, stop)
        return self.count


class _Lines:
    """The lines of the regions cut from one document, as ``Document.line_of`` counts them,
    all counted when the first is asked for (most pages' regions are all known: nobody asks).

    A file read from disk has its newlines counted once in its bytes (a newline byte is a
    newline character, and bytes.replace finds them with memchr: 2x faster than counting them
    in the text). The regions before the widest stretch between two of them (the article) are
    counted from the start, the others back from the end (the shell after the heredoc with the
    newlines counted when it was first met)."""

    __slots__ = ("_doc", "_known", "_tail", "_total", "memo", "wanted")

    def __init__(self, doc: Document, memo: bool = True) -> None:
        self._doc = doc
        self.memo = memo  # False: each line counted by itself, and no memo of the page code
        self.wanted: list[int] = []  # the regions' offsets
        self._tail: tuple[int, _Newlines] | None = None
        self._known: dict[int, int] = {}
        self._total = 0  # lines in the text (one more than newlines); 0: not counted yet

    def tail(self, start: int, newlines: _Newlines) -> None:
        self._tail = (start, newlines)

    def of(self, offset: int) -> int:
        line = self._known.get(offset)
        if line is None:
            doc = self._doc
            if not (self.memo and doc.decoded_from_bytes and 0 <= offset <= len(doc.text)):
                return doc.line_of(offset)
            self._count_all(offset)
            line = self._known[offset]
        return line

    def _count_all(self, extra: int) -> None:
        doc = self._doc
        text = doc.text
        if not self._total:
            data = doc.to_bytes()
            self._total = 1 + len(data) - len(data.replace(b"\n", b""))
        offsets = sorted({*self.wanted, extra})
        # the widest stretch between two offsets (the article): those before it are counted
        # from the start, the others back from the end
        widest, size, last = 0, offsets[0], offsets[0]
        for i, offset in enumerate(offsets[1:], 1):
            if offset - last > size:
                widest, size = i, offset - last
            last = offset
        if len(text) - last > size:
            widest = len(offsets)
        known, line, pos = self._known, 1, 0
        count = text.count
        for offset in offsets[:widest]:
            line += count("\n", pos, offset)
            known[offset] = line
            pos = offset
        line, pos = self._total, len(text)
        for offset in reversed(offsets[widest:]):
            if pos == len(text) and self._tail is not None and offset == self._tail[0]:
                line -= self._tail[1].of(text, offset, pos)
            else:
                line -= count("\n", offset, pos)
            known[offset] = line
            pos = offset


def code_regions(doc: Document, *, memo: bool = True) -> list[CodeRegion]:
    """The page code of ``doc`` (a document or an index page), region by region.

    ``memo=False`` reads it afresh (no text met before recalled, each line counted by itself):
    the plain reading the memos are tested against (tests/format/test_page_code_fast.py)."""
    lines = _Lines(doc, memo)
    return [*_header(doc), *_page(doc, lines), *_tail(doc, lines)]


def _header(doc: Document) -> list[CodeRegion]:
    # Comment lines are inert in bash (the originals name the file in them): only code counts.
    # But a browser reads the header as the page's first markup, comment lines included: any
    # tag, comment or DOCTYPE it finds there ("# <script>...") counts too.
    markup = _header_markup(doc.text[: doc.opener.end])
    comments = _COMMENT_LINES.match(doc.text, 0, doc.opener.start)
    if comments is not None and comments.end() == doc.opener.start:  # most pages: one search
        return [CodeRegion("shell header", 1, _code_lines(doc.span_text(doc.opener)) + markup)]
    return [CodeRegion("shell header", 1, _code_lines(doc.text[: doc.opener.end]) + markup)]


def _header_markup(text: str) -> str:
    """The markup a browser reads in the shell header: "" when none (every known page)."""
    if "<" not in text:
        return ""
    tags = [
        _squeeze(text[token.start : token.end]) for token in tokenize(text) if token.kind != "text"
    ]
    # markup a browser drops (a tag cut by the opener) is someone's code all the same
    dropped = [] if tags else [m.group() for m in _DROPPED_TAG.finditer(text)]
    found = tags or dropped
    return "".join(f"\n<markup> {t}" for t in found)


_COMMENT_LINES = re.compile(r"(?:#[^\n]*\n)*")  # lines that start with "#"


@lru_cache(maxsize=16)
def _code_lines(text: str) -> str:
    """The lines of shell ``text`` that are code, each with its blanks made single spaces."""
    text = text.replace("\r\n", "\n")
    code = [
        " ".join(line.split())
        for line in text.split("\n")
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return "\n".join(code)


def _tail(doc: Document, lines: _Lines) -> list[CodeRegion]:
    start = doc.tail.start
    seen = None
    if lines.memo and doc.decoded_from_bytes:  # the shell met before, where the bytes end
        data = doc.to_bytes()
        for _, known in _SEEN_TAIL.of_length(len(doc.text) - start):
            if data.endswith(known[3]):
                seen = known
                break
    if seen is None:
        raw = doc.text[start:]
        seen = _SEEN_TAIL.get(raw) if lines.memo else None
        if seen is None:
            made = (*_tail_texts(raw), _Newlines(), raw.encode("utf-8", "surrogatepass"))
            seen = _SEEN_TAIL.put(raw, made) if lines.memo else made
    shell, section, newlines, _ = seen
    lines.tail(start, newlines)
    out = [CodeRegion.at("shell", lines, start, shell)]
    if section is not None:
        out.append(CodeRegion.at("shell section", lines, start + section[0], section[1]))
    return out


def _tail_texts(text: str) -> tuple[str, tuple[int, str] | None]:
    """The shell after the heredoc, normalised, and its OO:SHELL section (where it starts in
    ``text``, normalised) when it has one: the section is a region of its own."""
    start = _line_index(text, _SHELL_START)
    end = _line_index(text, _SHELL_END, start[1]) if start else None
    if not (start and end):
        return _shell_lines(text), None
    section = (start[0], values_out(_shell_lines(text[start[0] : end[1]])))
    text = text[: start[0]] + f"{_SHELL_START} … {_SHELL_END}\n" + text[end[1] :]
    return _shell_lines(text), section


# o-o's `--new` (its generate_oo_file, in the OO:SHELL section every marker-layout page carries)
# writes a document from templates holding __TITLE__, __SCOPE__, __SLUG__ and __YEAR__, then runs
# one sed over the whole new file: `-e "s|__TITLE__|${title}|g"` and the like. Its own sed lines
# are in that file too, so they come out holding the document's values: `-e "s|My topic|${title}|g"`.
# Those lines say which values were put where a placeholder stood; nothing else does.
_FILLED_BY = re.compile(
    r'-e "s\|([^|\n]*)\|(\$\{title\}|\$\{scope\}|\$\{slug\}|\$\(date \+%Y\))\|g"'
)
PLACEHOLDERS: dict[str, str] = {
    "${title}": "__TITLE__",
    "${scope}": "__SCOPE__",
    "${slug}": "__SLUG__",
    "$(date +%Y)": "__YEAR__",
}
# A value is put back only when it is inert wherever the template puts it: inside a quoted
# heredoc (any text but a line of its own) and inside the double quotes of those sed lines
# (where " ends the quote, $ and ` run code, \ escapes). So: one line, printable, none of
# "$`\, no | (it would end o-o's own sed pattern) and no <> (the heredocs are the new page's
# markup). A value with any of them stays in the text, and the section stays unknown.
_INERT_VALUE = re.compile(r'[^"$`\\|<>]+')
_VALUE_FORMS: dict[str, re.Pattern[str]] = {
    "__SLUG__": re.compile(r"[a-z0-9-]{1,60}"),  # what o-o's slugify leaves
    "__YEAR__": re.compile(r"[0-9]{4}"),  # `date +%Y`
}
# Where a value or a placeholder stood, in the normalised text: a character no page holds
# (reading refuses a document with a NUL), so a normalised fresh section equals the normalised
# template only where all the rest is equal.
VALUE_MARK = "\x00"
# The interactive `--new` (no topic given) then asks for an audience, a tone and a budget, and
# a second sed puts each in place of its default on the new file's lines `"audience": "General
# readers"`, `"tone": "…"` and `"max_cost_usd": 0.50`: in the generator, the template's lines
# for the new page's contract, inside a quoted heredoc. Those lines' values are marked too.
# (a value there may hold a title already marked: "Quantum Computing fans")
_ASKED_TEXT = re.compile(r'(?m)^([ \t]*"(?:audience|tone)": ")[^"$`\\|<>\x01-\x1f\x7f]+(",?)$')
_ASKED_BUDGET = re.compile(r'(?m)^([ \t]*"max_cost_usd": )[0-9]+(?:\.[0-9]+)?(,?)$')


def filled_values(section: str) -> dict[str, str] | None:
    """placeholder -> the value o-o's ``--new`` put in its place, read from the sed lines of an
    OO:SHELL ``section`` (normalised); None when the section holds no such lines, when they
    still hold the placeholders (the template itself: an index, a synced page) or when a value
    could be code where the template puts it."""
    found = _sed_values(section)
    if not found or all(value == placeholder for placeholder, value in found.items()):
        return None
    for placeholder, value in found.items():
        form = _VALUE_FORMS.get(placeholder, _INERT_VALUE)
        if not (value.isprintable() and form.fullmatch(value)):
            return None
    return found


def _sed_values(section: str) -> dict[str, str] | None:
    """placeholder -> what the sed lines of ``section`` put in its place (the placeholder itself
    in a template); None when two lines disagree (no template of o-o has that)."""
    found: dict[str, str] = {}
    for value, variable in _FILLED_BY.findall(section):
        placeholder = PLACEHOLDERS[variable]
        if found.setdefault(placeholder, value) != value:
            return None
    return found


def fresh_form(section: str) -> str | None:
    """What the OO:SHELL section of a document fresh from the template ``section`` (normalised,
    its sed lines holding the placeholders: an o-o index or synced page) normalises to; None
    for any other section. The fingerprint tool records it beside the template's own."""
    found = _sed_values(section)
    if not found or any(value != placeholder for placeholder, value in found.items()):
        return None
    return values_out(section, found)


def values_out(section: str, values: dict[str, str] | None = None) -> str:
    """The OO:SHELL ``section`` (normalised) with each value o-o's ``--new`` filled in, and each
    placeholder left, made ``VALUE_MARK``: every document fresh from one template then reads as
    one text, whatever its title, scope, slug and year. ``values``: those to put back (default:
    ``filled_values``; the fingerprint tool passes the placeholders to read a template as a
    fresh document would). A section with no filled values is returned as it is."""
    if values is None:
        values = filled_values(section)
        if values is None:
            return section
    # Only in the generator: from the section's start to its last sed line (o-o's templates
    # put no placeholder elsewhere; a value met further on, a year in a comment, stays). Only
    # a whole value: no placeholder of those templates has a letter, digit or _ beside it.
    # The longest first: a title "AI in 2026" goes before the year 2026 it holds.
    last = max(m.end() for m in _FILLED_BY.finditer(section))
    stop = section.find("\n", last)
    stop = len(section) if stop < 0 else stop
    found = sorted({*values.values(), *PLACEHOLDERS.values()}, key=len, reverse=True)
    whole = re.compile(rf"(?<![\w])(?:{'|'.join(map(re.escape, found))})(?![\w])", re.ASCII)
    generator = whole.sub(VALUE_MARK, section[:stop])
    generator = _ASKED_TEXT.sub(rf"\g<1>{VALUE_MARK}\g<2>", generator)
    generator = _ASKED_BUDGET.sub(rf"\g<1>{VALUE_MARK}\g<2>", generator)
    return generator + section[stop:]


def _line_index(text: str, marker: str, pos: int = 0) -> tuple[int, int] | None:
    """(start, end) of the first whole line equal to ``marker`` (blanks aside) from ``pos``."""
    if text.find(marker, pos) < 0:  # most pages: no such line, and no copy of the text made
        return None
    for m in re.finditer(rf"(?m)^[ \t]*{re.escape(marker)}[ \t]*\r?$\n?", text[pos:]):
        return pos + m.start(), pos + m.end()
    return None


def _page(doc: Document, lines: _Lines) -> list[CodeRegion]:
    """The page's markup outside its data (the article and the JSON blocks), and its scripts
    and stylesheets. The walk goes from one data span to the next: a gap between two spans
    that reads the same as one met before (in a library, all of them but the one holding the
    page's title) gives what it gave then, with no walk."""
    text = doc.text
    skip = sorted(
        [*doc.blocks.values(), *([doc.article_span] if doc.article_span else [])],
        key=lambda s: s.start,
    )
    blocks = {s.start: s for s in doc.blocks.values()}
    out: list[CodeRegion] = []
    markup: list[str] = []  # tags as found (normalised below), and JSON block tags normalised
    pos: int | None = doc.html.start
    end = doc.html.end
    k = 0  # the spans do not overlap and pos only grows: the first span not yet behind pos
    while pos is not None:
        while k < len(skip) and skip[k].end <= pos:
            k += 1
        if k < len(skip) and skip[k].start <= pos:
            pos = skip[k].end
            continue
        limit = skip[k].start if k < len(skip) else end
        seen = _SEEN_GAPS[limit >= end, limit in blocks]
        first = pos == doc.html.start  # the head: it holds the page's title, met only once
        gap = None if first or not lines.memo else seen.at(text, pos, limit)
        if gap is None:
            gap = _walk(doc, pos, limit, blocks, lines.memo)
            if gap.local and not first and lines.memo:
                seen.put(text[pos:limit], gap)
        markup += gap.items
        if gap.regions:
            out += [CodeRegion.at(kind, lines, pos + at, found) for kind, at, found in gap.regions]
        if gap.into_block:  # the gap ended with a JSON block's tag: go on after its closer
            after = blocks[limit].end
            # The closer a block's body ends at, written as oo_nb and o-o write it, is passed
            # over; any other is walked as markup. A browser ends the block at "</script x>" or
            # "</script/>", and a search for the next "</script>" would pass over, unread, a
            # script that follows it.
            if text.startswith("</script>", after, end):
                pos = after + 9
            else:  # (and the odd closer itself is no known page's markup)
                markup.append(_squeeze(text[after : min(after + 9, end)]))
                pos = after
        else:
            pos = None if gap.resume is None else pos + gap.resume
    # Each tag with its blanks made single spaces. Most pages have no other blank in a tag, so
    # one look at them all settles it: every blank but " " is unprintable, and a tag starts with
    # "<" and ends with ">", so no run of spaces forms where two meet.
    flat = "".join(markup)
    if not flat.isprintable() or "  " in flat:
        markup = [_squeeze(t) for t in markup]
    return [CodeRegion.at("page markup", lines, doc.html.start, "\n".join(markup)), *out]


@dataclass(frozen=True, slots=True)
class _Gap:
    """The walk through the page from an offset ``start`` while it stays before ``limit`` (the
    next data span, or the page's end)."""

    items: list[str]  # the markup: tags as found, JSON block tags normalised
    regions: list[tuple[RegionKind, int, str]]  # kind, offset from start, normalised text
    resume: int | None  # offset from start where the walk goes on; None: the page is done
    into_block: bool  # it ended with the start tag of the JSON block at limit
    local: bool  # it read nothing from limit on: the same text there walks the same


# gaps already walked, by (the last gap?, a JSON block after it?)
_SEEN_GAPS: dict[tuple[bool, bool], _Seen[_Gap]] = {
    (last, block): _Seen() for last in (False, True) for block in (False, True)
}


def _forget() -> None:
    """Empty the memos of texts already met (the tests compare a first reading with a later one)."""
    _SEEN_CODE.clear()
    _SEEN_TAIL.clear()
    for seen in _SEEN_GAPS.values():
        seen.clear()
    _fingerprint.cache_clear()


def _walk(doc: Document, start: int, limit: int, blocks: dict[int, Span], memo: bool) -> _Gap:
    """The walk of the page's tokens from ``start`` until it reaches ``limit``."""
    walk = _Walk(doc, start, limit, memo)
    pos: int | None = start
    while pos is not None:
        pos, tags = plain_tags(doc.text, pos, limit)  # text and plain tags, in bulk
        walk.items += tags
        if pos >= limit:
            walk.done(limit)
            break
        pos = walk.token(pos, blocks)
    return walk.gap


class _Walk:
    """What the tokens from ``start`` give until the walk reaches ``limit`` (the next data span,
    or the page's end): tags, scripts and stylesheets as a browser reads them."""

    def __init__(self, doc: Document, start: int, limit: int, memo: bool) -> None:
        self.doc, self.start, self.limit, self.memo = doc, start, limit, memo
        self.page, self.end = doc.text, doc.html.end  # (the page's tokens end at its end)
        self.items: list[str] = []
        self.regions: list[tuple[RegionKind, int, str]] = []
        self.local = True  # nothing read from limit on
        self.gap = _Gap(self.items, self.regions, None, False, True)

    def done(self, pos: int, *, into_block: bool = False) -> None:
        """The walk stops at ``pos`` (past limit when a token ran over it)."""
        if pos > self.limit:
            self.local = False
        resume = None if into_block or pos >= self.end else pos - self.start
        self.gap = _Gap(self.items, self.regions, resume, into_block, self.local)

    def token(self, pos: int, blocks: dict[int, Span]) -> int | None:
        """Read the token at ``pos`` (with the content of its element, for an element whose
        content is text); where the walk goes on, or None when it is done."""
        page, limit = self.page, self.limit
        found, end = markup_at(page, pos, self.end)
        if found is None:  # text: a "<" that starts no token, or markup a browser drops
            if _DROPPED_TAG.match(page, pos):
                self.items.append(page[pos : min(end, limit)])
            if end > limit:  # (the span after limit is passed over anyway)
                self.done(limit)
                return None
        else:
            kind, start, end, name = found
            if kind == "comment" and page.startswith("<!--", start):
                if page[start:end] == _CUSTOM_START:
                    self.local = False  # the CUSTOM block's end is looked for up to the page's end
                    custom = _custom_end(self.doc, end)
                    end = end if custom is None else custom
            elif kind == "start" and name in _CODE_ELEMENTS:
                if end == limit and limit in blocks:  # a JSON block is data
                    tag = _block_tag(page[start:end])
                    if tag is not None:  # a tag that could run it is code
                        self.items.append(tag)
                    self.done(limit, into_block=True)
                    return None
                end = _element_end(page, end, name, self.end)
                kind_of: RegionKind = "page script" if name == "script" else "stylesheet"
                found_text = _region_text(self.doc, start, end, self.memo)
                self.regions.append((kind_of, start - self.start, found_text))
            else:  # a tag (its content to its end tag, for a title …), a DOCTYPE, a bogus comment
                self.items.append(page[start:end])
                if kind == "start":
                    end = content_end(page, end, name, self.end)
        if end >= limit:
            self.done(end)
            return None
        return end


def _element_end(text: str, at: int, name: str, end: int) -> int:
    """Where the script or stylesheet whose start tag ends at ``at`` ends: after its end tag,
    or at the page's ``end``."""
    stop = content_end(text, at, name, end)
    if stop >= end:
        return end
    _, after = markup_at(text, stop, end)
    return after


def _region_text(doc: Document, start: int, stop: int, memo: bool) -> str:
    """The normalised text of the script or stylesheet ``text[start:stop]``.

    One in the page's head (the stylesheet, 14 KB in most pages) is compared with those met
    before in the file's bytes, where it starts after the short head's bytes: one memcmp, where
    a copy of a text holding wider characters (most pages) would narrow each of them. The bytes
    hold the text where the text holds it (UTF-8, decoded strictly from these bytes)."""
    text = doc.text
    if not memo:
        return _lines(text[start:stop])
    if start - doc.html.start < _HEAD and doc.decoded_from_bytes:
        same = _SEEN_CODE.of_length(stop - start)
        if same:
            data, at = doc.to_bytes(), len(text[:start].encode())
            for _, (found, raw_bytes) in same:
                if data.startswith(raw_bytes, at):
                    return found
    raw = text[start:stop]
    seen = _SEEN_CODE.get(raw)
    if seen is None:
        seen = _SEEN_CODE.put(raw, (_lines(raw), raw.encode("utf-8", "surrogatepass")))
    return seen[0]


_HEAD = 4096  # characters from the page's start: its head, short to encode


@lru_cache(maxsize=64)
def _block_tag(tag: str) -> str | None:
    """A JSON block's start tag as page markup: None for the plain tag (data, not code)."""
    # Only HTML's blanks part a tag's name from its attributes: with another (a vertical tab,
    # a no-break space) the browser reads no script element, and the block's JSON as markup.
    plain = _squeeze(tag)
    return None if _JSON_TAG.fullmatch(plain) else plain


_HTML_BLANKS = re.compile(r"[\t\n\f\r ]+")


def _squeeze(tag: str) -> str:
    """``tag`` with each run of HTML's blanks made one space (none at its ends). Not every
    blank: <meta\vhttp-equiv=...> is no meta element for a browser (its policy is gone), and
    must not read as the known <meta http-equiv=...>."""
    return _HTML_BLANKS.sub(" ", tag).strip(" ")


def _custom_end(doc: Document, pos: int) -> int | None:
    """Where the CUSTOM block that starts at ``pos`` ends, if it holds only a stylesheet (one
    ``<style>`` element, blanks around it)."""
    close = doc.text.find(_CUSTOM_END, pos, doc.html.end)
    if close < 0:
        return None
    tokens = [
        token
        for token in tokenize(doc.text, pos, close)
        if token.kind != "text" or token.data.strip(" \t\n\f")
    ]
    # a plain <style>: an attribute on it (onload=, onerror=) is a handler a browser runs
    if (
        tokens
        and tokens[0].kind == "start"
        and doc.text[tokens[0].start : tokens[0].end] != "<style>"
    ):
        return None
    shape = [(token.kind, token.name) for token in tokens]
    if shape not in (
        [("start", "style"), ("end", "style")],
        [("start", "style"), ("text", ""), ("end", "style")],
    ):
        return None
    return close + len(_CUSTOM_END)


def region_fingerprints(doc: Document) -> set[str]:
    return {r.fingerprint for r in code_regions(doc)}


@cache
def template_fingerprints() -> frozenset[str]:
    """The regions of this version's pages: a new document and index as ``oo new`` and ``oo
    index`` render them, and the marker sections ``oo sync`` puts into older pages."""
    from oo_nb.format.template.render import (
        css_section,
        js_section,
        render_document,
        render_index,
        shell_section,
    )

    pages = [
        render_document(
            file_name="t.o-o.html",
            manifest={"title": "T", "version": 0},
            contract={},
            source_cache={},
            changelog={"entries": []},
        ),
        render_index(title="T", content_html="", count=0, last_scan=""),
    ]
    sections = [
        (css_section(kind), js_section(kind), shell_section(kind)) for kind in ("document", "index")
    ]
    return frozenset(rendered_fingerprints(pages, sections))


def rendered_fingerprints(pages: list[str], sections: list[tuple[str, str, str]]) -> set[str]:
    """The regions of rendered ``pages`` and of marker ``sections`` (css, js, shell) as ``oo
    sync`` puts them into a page: also how the tools fingerprint what an earlier oo_nb wrote."""
    found: set[str] = set()
    for page in pages:
        found |= region_fingerprints(Document(page))
    for css, js, shell_part in sections:
        for section in (css, js):
            sample = f": << 'OO_HTML'\n{section}OO_HTML\n"
            found |= {
                r.fingerprint
                for r in code_regions(Document(sample))
                if r.kind in ("stylesheet", "page script")
            }
        shell = f": << 'OO_HTML'\nOO_HTML\n{shell_part}"
        found |= {r.fingerprint for r in code_regions(Document(shell)) if r.kind == "shell section"}
        # an early page migrated by `oo sync --migrate`: this version's shell then `exit 0`
        found |= {
            r.fingerprint for r in code_regions(Document(shell + "exit 0\n")) if r.kind == "shell"
        }
    return found


def unknown_regions(doc: Document) -> list[CodeRegion]:
    """The regions of ``doc`` that no known original page and no template of this version has."""
    known = _known()
    return [r for r in code_regions(doc) if r.fingerprint not in known]


@cache
def _known() -> frozenset[str]:
    return KNOWN_PAGE_CODE | template_fingerprints()


def unknown_code_message(region: CodeRegion) -> str:
    """What ``oo check`` and the audit say about an unknown region."""
    return (
        f"{region.describe()} matches neither a known original o-o page nor this version's "
        "templates: someone changed the page's code; read it before opening or running the file"
    )


def page_code_findings(doc: Document, ours: bool | None = None) -> list[tuple[str, str, str]]:
    """``(severity, where, message)`` for the unknown regions of ``doc``; ``ours``: whether it
    carries oo_nb's script, when the caller knows (None: look).

    On a page with this version's page code every region is known, so each unknown one is a
    warning: someone changed it. On a page with the original o-o code oo_nb can only know the
    versions it has fingerprints for (``known_page_code``), and o-o shipped many: an unknown
    region there is one info finding naming the regions, not an accusation."""
    from oo_nb.format.legacy_script import has_our_script

    regions = unknown_regions(doc)
    if not regions:
        return []
    # (known page code holds no element with a block's id: looked for only past this point)
    shadows = [
        ("error", f"{SHADOWED_BLOCK} (line {line})", shadow_message(element_id, line))
        for element_id, line in doc.page_shadows()
    ]
    if has_our_script(doc) if ours is None else ours:
        return shadows + [
            ("warning", f"{r.kind} (line {r.line})", unknown_code_message(r)) for r in regions
        ]
    listed = ", ".join(r.describe() for r in regions)
    message = (
        f"page code oo_nb does not know: {listed}. It is neither one of the original o-o pages "
        "oo_nb has fingerprints of nor this version's templates; if you did not expect a change, "
        "compare it with the original before running the file (`oo sync DIR --migrate` gives it "
        "this version's code)"
    )
    return [*shadows, ("info", "page code", message)]


# The finding's code and the start of its ``where`` (how check and the audit tell it apart from
# the unknown regions that come with it).
SHADOWED_BLOCK = "shadowed-block"


def finding_code(where: str) -> str:
    """The check code of a ``page_code_findings`` item, from its ``where``."""
    return SHADOWED_BLOCK if where.startswith(SHADOWED_BLOCK) else "unknown-page-code"


def shadow_message(element_id: str, line: int) -> str:
    """What ``oo check`` and the audit say of an element outside the article with a block's id
    (``Document.page_shadows``)."""
    return (
        f'an element of the page\'s own markup has the id "{element_id}" (line {line}): the page '
        "script reads it instead of the JSON block oo_nb reads; remove it, or give the page this "
        "version's code (`oo sync DIR --migrate`)"
    )
