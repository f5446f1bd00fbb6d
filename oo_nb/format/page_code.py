"""The code of a page, outside its data, and whether we know it.

A document is data (the article and the four JSON blocks) inside code: the shell header before
the heredoc, the page's markup, stylesheets and scripts, and the shell after the heredoc (run by
``bash DOC``). ``code_regions`` cuts that code into regions and normalises each (line endings,
trailing blanks, the header's comments, the markup's text), so a region can be recognised by its
hash. ``unknown_regions`` lists the regions that match neither a known original o-o page
(``known_page_code``, fingerprinted from the real documents of the corpus) nor this version's
templates (rendered here, so a template change needs no new fingerprints): a region someone
edited by hand, or an attack (``oo check`` reports them as ``unknown-page-code``).

The user's own stylesheet in the CUSTOM block (``oo sync`` puts ``DIR/oo.css`` there) is data,
not page code: it is skipped while it holds one ``<style>`` element and nothing else.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from oo_nb.format.document import Document, Span
from oo_nb.format.known_page_code import KNOWN_PAGE_CODE
from oo_nb.format.names import SECTION_MARKERS

__all__ = [
    "REGION_KINDS",
    "CodeRegion",
    "code_regions",
    "page_code_findings",
    "region_fingerprints",
    "template_fingerprints",
    "unknown_code_message",
    "unknown_regions",
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
_SPECIAL = re.compile(r"<!--|<script\b|<style\b", re.IGNORECASE)
_MARKUP = re.compile(r"<[A-Za-z/!?][^<>]*>")
_CLOSER = {
    "script": re.compile(r"</script\s*>", re.IGNORECASE),
    "style": re.compile(r"</style\s*>", re.IGNORECASE),
}
_JSON_TAG = re.compile(
    r"""<script (?:id="[a-z-]+" type="application/json"|type="application/json" id="[a-z-]+")>"""
)
_CUSTOM_START, _CUSTOM_END = SECTION_MARKERS["custom"]
_SHELL_START, _SHELL_END = SECTION_MARKERS["shell"]
_ONLY_STYLE = re.compile(
    r"\s*<style\b[^<>]*>[^<]*(?:<(?!/style)[^<]*)*</style\s*>\s*", re.IGNORECASE
)


@dataclass(frozen=True)
class CodeRegion:
    kind: RegionKind
    line: int  # where it starts in the file
    text: str  # normalised

    @property
    def fingerprint(self) -> str:
        return _fingerprint(self.kind, self.text)

    def describe(self) -> str:
        return f"{_DESCRIBE[self.kind]} (line {self.line})"


# A library repeats the same few scripts and stylesheets in every page: each is normalised and
# hashed once per process (a hit costs one hash and one compare of the text, both in C).
@lru_cache(maxsize=256)
def _fingerprint(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest()


@lru_cache(maxsize=256)
def _lines(text: str) -> str:
    """Line endings and trailing blanks do not count."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


def code_regions(doc: Document) -> list[CodeRegion]:
    """The page code of ``doc`` (a document or an index page), region by region."""
    return [*_header(doc), *_page(doc), *_tail(doc)]


def _header(doc: Document) -> list[CodeRegion]:
    # Comment lines are inert in bash (the originals name the file in them): only code counts.
    text = doc.text[: doc.opener.end].replace("\r\n", "\n")
    code = [
        " ".join(line.split())
        for line in text.split("\n")
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return [CodeRegion("shell header", 1, "\n".join(code))]


def _tail(doc: Document) -> list[CodeRegion]:
    text = doc.text[doc.tail.start :]
    out: list[CodeRegion] = []
    start = _line_index(text, _SHELL_START)
    end = _line_index(text, _SHELL_END, start[1]) if start else None
    if start and end:
        section = text[start[0] : end[1]]
        out.append(
            CodeRegion("shell section", doc.line_of(doc.tail.start + start[0]), _lines(section))
        )
        text = text[: start[0]] + f"{_SHELL_START} … {_SHELL_END}\n" + text[end[1] :]
    return [CodeRegion("shell", doc.line_of(doc.tail.start), _lines(text)), *out]


def _line_index(text: str, marker: str, pos: int = 0) -> tuple[int, int] | None:
    """(start, end) of the first whole line equal to ``marker`` (blanks aside) from ``pos``."""
    if text.find(marker, pos) < 0:  # most pages: no such line, and no copy of the text made
        return None
    for m in re.finditer(rf"(?m)^[ \t]*{re.escape(marker)}[ \t]*\r?$\n?", text[pos:]):
        return pos + m.start(), pos + m.end()
    return None


def _page(doc: Document) -> list[CodeRegion]:
    text = doc.text
    skip = sorted(
        [*doc.blocks.values(), *([doc.article_span] if doc.article_span else [])],
        key=lambda s: s.start,
    )
    out: list[CodeRegion] = []
    markup: list[str] = []
    pos, end = doc.html.start, doc.html.end
    k = 0  # the spans do not overlap and pos only grows: the first span not yet behind pos
    while True:
        while k < len(skip) and skip[k].end <= pos:
            k += 1
        if k < len(skip) and skip[k].start <= pos:
            pos = skip[k].end
            continue
        limit = skip[k].start if k < len(skip) else end
        # the markup tags up to the next comment, script or stylesheet, in one C-level pass (a
        # tag holds no "<", so none reaches past that token, nor past limit)
        m = _SPECIAL.search(text, pos, limit)
        markup += [
            " ".join(t.split()) for t in _MARKUP.findall(text, pos, m.start() if m else limit)
        ]
        if m is None:
            if limit >= end:
                break
            pos = limit
            continue
        low = m.group(0).lower()
        if low == "<!--":
            close = text.find("-->", m.end(), end)
            close = end if close < 0 else close + 3
            if text[m.start() : close].strip() == _CUSTOM_START:
                custom = _custom_end(doc, close)
                if custom is not None:
                    pos = custom
                    continue
            pos = close
        else:  # <script or <style
            tag_end = text.find(">", m.end(), end)
            if tag_end < 0:
                markup.append(text[m.start() : end])
                break
            body = Span(tag_end + 1, tag_end + 1)
            block = next((s for s in doc.blocks.values() if s.start == tag_end + 1), None)
            if block is not None:  # a JSON block is data; a tag that could run it is code
                tag = " ".join(text[m.start() : tag_end + 1].split())
                if not _JSON_TAG.fullmatch(tag):
                    markup.append(tag)
                closer = _CLOSER["script"].search(text, block.end, end)
                pos = closer.end() if closer else end
                continue
            closer = _CLOSER[low[1:]].search(text, body.start, end)
            stop = closer.end() if closer else end
            kind: RegionKind = "page script" if low == "<script" else "stylesheet"
            out.append(CodeRegion(kind, doc.line_of(m.start()), _lines(text[m.start() : stop])))
            pos = stop
    line = doc.line_of(doc.html.start)
    return [CodeRegion("page markup", line, "\n".join(markup)), *out]


def _custom_end(doc: Document, pos: int) -> int | None:
    """Where the CUSTOM block that starts at ``pos`` ends, if it holds only a stylesheet."""
    close = doc.text.find(_CUSTOM_END, pos, doc.html.end)
    if close < 0 or not _ONLY_STYLE.fullmatch(doc.text[pos:close]):
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

    found: set[str] = set()
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
    for page in pages:
        found |= region_fingerprints(Document(page))
    for kind in ("document", "index"):
        for section in (css_section(kind), js_section(kind)):
            sample = f": << 'OO_HTML'\n{section}OO_HTML\n"
            found |= {
                r.fingerprint
                for r in code_regions(Document(sample))
                if r.kind in ("stylesheet", "page script")
            }
        shell = f": << 'OO_HTML'\nOO_HTML\n{shell_section(kind)}"
        found |= {r.fingerprint for r in code_regions(Document(shell)) if r.kind == "shell section"}
        # an early page migrated by `oo sync --migrate`: this version's shell then `exit 0`
        found |= {
            r.fingerprint for r in code_regions(Document(shell + "exit 0\n")) if r.kind == "shell"
        }
    return frozenset(found)


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
    if has_our_script(doc) if ours is None else ours:
        return [("warning", f"{r.kind} (line {r.line})", unknown_code_message(r)) for r in regions]
    listed = ", ".join(r.describe() for r in regions)
    message = (
        f"page code oo_nb does not know: {listed}. It is neither one of the original o-o pages "
        "oo_nb has fingerprints of nor this version's templates; if you did not expect a change, "
        "compare it with the original before running the file (`oo sync DIR --migrate` gives it "
        "this version's code)"
    )
    return [("info", "page code", message)]
