"""The page code stage as it was before its fast paths (commit 6e2a48d): the reference the
differential tests (test_page_code_fast.py) and benchmarks/page_code.py compare with.

``code_regions`` walks the page as before, counting every region's line at once and normalising
each script, stylesheet and shell through an ``lru_cache`` keyed by the text; ``has_our_script``
searches the page's text; ``shell_crlf_line`` searches the shell's text. Regions come back as
``(kind, line, text)``. Since then, comments and JSON blocks end where a browser ends them
(``_COMMENT_END``; a block's odd closer is walked as markup), here as in ``page_code``."""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import cast

from oo_nb.format.document import Document, Span
from oo_nb.format.legacy_script import OUR_SCRIPT_SIGNATURE
from oo_nb.format.names import SECTION_MARKERS
from oo_nb.format.page_code import CodeRegion, RegionKind, _known, unknown_code_message

__all__ = [
    "code_regions",
    "has_our_script",
    "page_code_findings",
    "shell_crlf_line",
    "unknown_regions",
]

Region = tuple[str, int, str]  # kind, line, normalised text

# (since the reference was taken: an element whose content a browser reads as text is passed
# over to its end tag)
_TEXT_ELEMENTS = ("iframe", "noembed", "noframes", "noscript", "textarea", "title", "xmp")
_SPECIAL = re.compile(
    rf"<!--|<script\b|<style\b|<(?:{'|'.join(_TEXT_ELEMENTS)})(?=[\t\n\f\r />])", re.IGNORECASE
)
# (since the reference was taken: a tag's start that a "<" in an attribute value cuts counts)
_MARKUP = re.compile(r"<[A-Za-z/!?][^<>]*>|<[A-Za-z/!?](?:[^<>]*[^<>\s])?")
_CLOSER = {
    "script": re.compile(r"</script\s*>", re.IGNORECASE),
    "style": re.compile(r"</style\s*>", re.IGNORECASE),
}
# a comment's end after its "<!--", as a browser reads it: "<!-->", "<!--->", "-->", "--!>"
_COMMENT_END = re.compile(r">|->|.*?(?:-->|--!>)", re.DOTALL)
_JSON_TAG = re.compile(
    r"""<script (?:id="[a-z-]+" type="application/json"|type="application/json" id="[a-z-]+")>"""
)
_CUSTOM_START, _CUSTOM_END = SECTION_MARKERS["custom"]
_SHELL_START, _SHELL_END = SECTION_MARKERS["shell"]
_ONLY_STYLE = re.compile(
    r"\s*<style\b[^<>]*>[^<]*(?:<(?!/style)[^<]*)*</style\s*>\s*", re.IGNORECASE
)


@lru_cache(maxsize=256)
def fingerprint(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest()


@lru_cache(maxsize=256)
def _lines(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


# (since the reference was taken: a CR alone stays in its shell line, as bash reads it)
def _shell_lines(text: str) -> str:
    lines = [line.rstrip(" \t") for line in text.replace("\r\n", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


def _squeeze(tag: str) -> str:
    """Each run of HTML's blanks one space (only those part a tag's name from its attributes)."""
    return re.sub(r"[\t\n\f\r ]+", " ", tag).strip(" ")


def code_regions(doc: Document) -> list[Region]:
    return [*_header(doc), *_page(doc), *_tail(doc)]


def _header(doc: Document) -> list[Region]:
    text = doc.text[: doc.opener.end].replace("\r\n", "\n")
    code = [
        " ".join(line.split())
        for line in text.split("\n")
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return [("shell header", 1, "\n".join(code))]


def _tail(doc: Document) -> list[Region]:
    text = doc.text[doc.tail.start :]
    out: list[Region] = []
    start = _line_index(text, _SHELL_START)
    end = _line_index(text, _SHELL_END, start[1]) if start else None
    if start and end:
        section = text[start[0] : end[1]]
        out.append(("shell section", doc.line_of(doc.tail.start + start[0]), _shell_lines(section)))
        text = text[: start[0]] + f"{_SHELL_START} … {_SHELL_END}\n" + text[end[1] :]
    return [("shell", doc.line_of(doc.tail.start), _shell_lines(text)), *out]


def _line_index(text: str, marker: str, pos: int = 0) -> tuple[int, int] | None:
    if text.find(marker, pos) < 0:
        return None
    for m in re.finditer(rf"(?m)^[ \t]*{re.escape(marker)}[ \t]*\r?$\n?", text[pos:]):
        return pos + m.start(), pos + m.end()
    return None


def _page(doc: Document) -> list[Region]:
    text = doc.text
    skip = sorted(
        [*doc.blocks.values(), *([doc.article_span] if doc.article_span else [])],
        key=lambda s: s.start,
    )
    out: list[Region] = []
    markup: list[str] = []
    pos, end = doc.html.start, doc.html.end
    k = 0
    while True:
        while k < len(skip) and skip[k].end <= pos:
            k += 1
        if k < len(skip) and skip[k].start <= pos:
            pos = skip[k].end
            continue
        limit = skip[k].start if k < len(skip) else end
        m = _SPECIAL.search(text, pos, limit)
        markup += [_squeeze(t) for t in _MARKUP.findall(text, pos, m.start() if m else limit)]
        if m is None:
            if limit >= end:
                break
            pos = limit
            continue
        low = m.group(0).lower()
        if low == "<!--":
            found = _COMMENT_END.match(text, m.end(), end)
            close = found.end() if found else end
            if text[m.start() : close].strip() == _CUSTOM_START:
                custom = _custom_end(doc, close)
                if custom is not None:
                    pos = custom
                    continue
            pos = close
        else:
            tag_end = text.find(">", m.end(), end)
            if tag_end < 0:
                markup.append(text[m.start() : end])
                break
            if low[1:] in _TEXT_ELEMENTS:
                markup.append(_squeeze(text[m.start() : tag_end + 1]))
                closer = re.compile(rf"</{low[1:]}[\t\n\f\r />]", re.IGNORECASE).search(
                    text, tag_end + 1, end
                )
                pos = closer.start() if closer else end
                continue
            body = Span(tag_end + 1, tag_end + 1)
            block = next((s for s in doc.blocks.values() if s.start == tag_end + 1), None)
            if block is not None:
                tag = _squeeze(text[m.start() : tag_end + 1])
                # (since the reference was taken: only HTML's blanks are squeezed, _squeeze)
                if not _JSON_TAG.fullmatch(
                    re.sub(r"[\t\n\f\r ]+", " ", text[m.start() : tag_end + 1])
                ):
                    markup.append(tag)
                if text.startswith("</script>", block.end, end):
                    pos = block.end + len("</script>")
                else:
                    markup.append(_squeeze(text[block.end : min(block.end + 9, end)]))
                    pos = block.end
                continue
            closer = _CLOSER[low[1:]].search(text, body.start, end)
            stop = closer.end() if closer else end
            kind = "page script" if low == "<script" else "stylesheet"
            out.append((kind, doc.line_of(m.start()), _lines(text[m.start() : stop])))
            pos = stop
    line = doc.line_of(doc.html.start)
    return [("page markup", line, "\n".join(markup)), *out]


def _custom_end(doc: Document, pos: int) -> int | None:
    close = doc.text.find(_CUSTOM_END, pos, doc.html.end)
    if close < 0 or not _ONLY_STYLE.fullmatch(doc.text[pos:close]):
        return None
    return close + len(_CUSTOM_END)


def unknown_regions(doc: Document) -> list[Region]:
    known = _known()
    return [r for r in code_regions(doc) if fingerprint(r[0], r[2]) not in known]


def has_our_script(doc: Document) -> bool:
    return doc.text.find(OUR_SCRIPT_SIGNATURE, doc.html.start, doc.html.end) != -1


def shell_crlf_line(doc: Document) -> int | None:
    text = doc.text
    head = text.find("\r\n", 0, doc.html.start)
    if head >= 0:
        return doc.line_of(head)
    tail = text.find("\r\n", doc.terminator.start)
    return doc.line_of(tail) if tail >= 0 else None


def page_code_findings(doc: Document, ours: bool | None = None) -> list[tuple[str, str, str]]:
    regions = [
        CodeRegion(cast(RegionKind, k), line, text) for k, line, text in unknown_regions(doc)
    ]
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
