"""The article as data: sections, paragraphs with their pids, ``[sN]`` citations, references,
figures and the index excerpt. Built with lxml from the article span only."""

from __future__ import annotations

import copy
import re
import secrets
from dataclasses import dataclass

from lxml import etree
from lxml import html as lxml_html

from oo_nb.errors import FormatError
from oo_nb.format.vocab import CITATION, PID

__all__ = [
    "CITATION",
    "PID",
    "Article",
    "Citation",
    "Figure",
    "Paragraph",
    "Reference",
    "Section",
    "excerpt_of",
    "new_pid",
    "pid_problem",
]

_HEX8 = re.compile(r"^[0-9a-f]{8}$")
_WELLFORMED = re.compile(r"\s*pid:[^:\s]+:[0-9a-f]{8}\s*$")  # PID with an 8HEX id, in one match
_CONTAINERS = {"div", "section", "blockquote"}
_EXCERPT_CHARS = 120


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    level: int


@dataclass(frozen=True)
class Paragraph:
    pid: str | None  # the whole comment value, "pid:section:8hex"
    section: str
    tag: str
    html: str
    text: str


@dataclass(frozen=True)
class Citation:
    source_id: str
    section: str
    pid: str | None


@dataclass(frozen=True)
class Reference:
    position: int  # 1-based: the browser numbers references by position
    source_id: str | None  # from a leading "[sN]" when the list carries one
    url: str
    title: str


@dataclass(frozen=True)
class Figure:
    section: str
    src_kind: str  # "data" for embedded images, else "url"
    mime: str
    bytes: int
    alt: str
    caption: str


def new_pid(section: str) -> str:
    return f"pid:{section}:{secrets.token_hex(4)}"


def pid_is_wellformed(pid: str) -> bool:
    """``pid_problem(pid) is None``, in one regex match (called for every paragraph)."""
    return _WELLFORMED.match(pid) is not None


def pid_problem(pid: str) -> str | None:
    """What is wrong with a pid, in words, or None when it is ``pid:SECTION:8HEX``."""
    m = PID.match(pid)
    if m is None:
        return "not a pid comment (pid:SECTION:8HEX)"
    if m.group(2) is None:
        return "has no id after the section: not of the form pid:SECTION:8HEX (8 lower-case hex digits)"
    if not _HEX8.match(m.group(2)):
        return "not of the form pid:SECTION:8HEX (8 lower-case hex digits)"
    return None


def excerpt_of(text: str) -> str:
    """FORMAT.md §4: first paragraph, tags and ``[sN]`` removed, 120 characters, then "..."."""
    clean = re.sub(r"\s+", " ", CITATION.sub("", text)).strip()
    return clean if len(clean) <= _EXCERPT_CHARS else clean[:_EXCERPT_CHARS] + "..."


@dataclass(frozen=True)
class Article:
    sections: tuple[Section, ...]
    paragraphs: tuple[Paragraph, ...]
    citations: tuple[Citation, ...]
    references: tuple[Reference, ...]
    figures: tuple[Figure, ...]
    pids: tuple[str, ...]
    is_stub: bool

    @property
    def excerpt(self) -> str:
        first = next((p for p in self.paragraphs if p.tag == "p" and p.text.strip()), None)
        return excerpt_of(first.text) if first else ""

    @property
    def cited_ids(self) -> tuple[str, ...]:
        return tuple(c.source_id for c in self.citations)

    @classmethod
    def parse(cls, html: str, *, file: str | None = None) -> Article:
        if not html.strip():
            return cls((), (), (), (), (), (), True)
        try:
            # (huge_tree: libxml2 would drop what lies deeper than 256 elements)
            parser = lxml_html.HTMLParser(huge_tree=True)
            root = lxml_html.fragment_fromstring(html, create_parent="div", parser=parser)
        except (etree.ParserError, ValueError) as exc:
            raise FormatError(f"article HTML cannot be read: {exc}", file=file) from None
        if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
            # libxml2 stops reading there: what lies deeper would be silently missing
            raise FormatError(
                f"the article nests elements deeper than {_MAX_DEPTH:,} levels: oo_nb reads no "
                "deeper (a browser does); flatten it",
                file=file,
            )
        walker = _Walker()
        walker.walk(root)
        stub = bool(
            root.xpath('.//*[contains(concat(" ", normalize-space(@class), " "), " stub-notice ")]')
        )
        return cls(
            tuple(walker.sections),
            tuple(walker.paragraphs),
            tuple(walker.citations),
            tuple(walker.references),
            tuple(walker.figures),
            tuple(walker.pids),
            stub or not walker.paragraphs,
        )


_MAX_DEPTH = 2048  # libxml2's limit with huge_tree


class _Walker:
    """One pass over the article in document order, tracking section and pending pid."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.paragraphs: list[Paragraph] = []
        self.citations: list[Citation] = []
        self.references: list[Reference] = []
        self.figures: list[Figure] = []
        self.pids: list[str] = []
        self.section = ""
        self.pending: str | None = None
        self.in_refs = False
        self.listed = False  # the References list was read (the page numbers only the first)

    def walk(self, parent: etree._Element) -> None:
        # a stack of the open containers' children, not recursion: an article may nest
        # thousands of elements deep
        stack = [iter(parent)]
        while stack:
            node = next(stack[-1], None)
            if node is None:
                stack.pop()
                continue
            if isinstance(node, etree._Comment):
                text = node.text or ""
                if PID.match(text):
                    self.pending = text.strip()
                    self.pids.append(self.pending)
                continue
            if not isinstance(node.tag, str):
                continue
            if self.element(node):
                stack.append(iter(node))

    def element(self, node: etree._Element) -> bool:
        """Read ``node``; True for a container, whose children are read next."""
        tag = node.tag.lower()
        pid, self.pending = self.pending, None
        if pid is None and node.get("data-pid"):
            pid = node.get("data-pid")
            self.pids.append(pid)
        if tag in ("h2", "h3", "h4"):
            for head, title in _headings(node):
                hid = head.get("id") or ""
                level = head.tag.lower()
                if level in ("h2", "h3", "h4"):
                    self.sections.append(Section(hid, title, int(level[1])))
                if level == "h2":
                    self.section = hid
                    self.in_refs = hid == "references"
                    self.listed = False
            return False
        if self.in_refs and tag in ("ol", "ul"):
            self._references(node)
            return False
        if tag in _CONTAINERS and not node.get("class", "").startswith("table-wrap"):
            self.pending = pid
            return True
        self._figures(node)
        text = _text(node)
        if not self.in_refs:
            for m in CITATION.finditer(text):
                self.citations.append(Citation(m.group(1), self.section, pid))
        self.paragraphs.append(
            Paragraph(
                pid,
                self.section,
                tag,
                lxml_html.tostring(node, encoding="unicode", with_tail=False),
                text,
            )
        )
        return False

    def _references(self, node: etree._Element) -> None:
        """The entries the page script numbers (``article_model.list_after``): the ``<li>``
        children of the first list after the heading; a nested or a second list gets none."""
        if self.listed:
            return
        self.listed = True
        for li in node.iterchildren("li"):
            text = _text(li)
            m = re.match(r"\s*\[(s\d+)\]", text)
            link = li.find(".//a")
            url = link.get("href", "") if link is not None else ""
            title = _text(link) if link is not None else text
            self.references.append(
                Reference(len(self.references) + 1, m.group(1) if m else None, url, title)
            )

    def _figures(self, node: etree._Element) -> None:
        figures = [node] if node.tag == "figure" else list(node.iterfind(".//figure"))
        for fig in figures:
            img = fig.find(".//img")
            src = img.get("src", "") if img is not None else ""
            mime, size = "", len(src)
            if src.startswith("data:"):
                mime = src[5:].split(";", 1)[0].split(",", 1)[0]
                size = (len(src.split(",", 1)[-1]) * 3) // 4
            cap = fig.find(".//figcaption")
            self.figures.append(
                Figure(
                    self.section,
                    "data" if src.startswith("data:") else "url",
                    mime,
                    size,
                    img.get("alt", "") if img is not None else "",
                    _text(cap) if cap is not None else "",
                )
            )


_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _headings(node: etree._Element) -> list[tuple[etree._Element, str]]:
    """``node`` and the headings libxml2 nested in it, each with its own text: a browser closes
    an open heading at the next heading's start tag (``<h2>a <h2 id=b>b</h2></h2>`` is two
    sections, as ``article_model`` reads it)."""
    inner = list(node.iterdescendants(*_HEADING_TAGS))
    if not inner:
        return [(node, _text(node))]
    out = []
    for head in [node, *inner]:
        own = copy.deepcopy(head)
        for nested in list(own.iterdescendants(*_HEADING_TAGS)):
            parent = nested.getparent()
            if parent is not None:  # (an ancestor already removed takes it along)
                parent.remove(nested)
        out.append((head, _text(own)))
    return out


def _text(node: etree._Element) -> str:
    return re.sub(r"\s+", " ", node.text_content()).strip()
