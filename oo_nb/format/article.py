"""The article as data: sections, paragraphs with their pids, ``[sN]`` citations, references,
figures and the index excerpt, read from the one article model (``article_model``), so the
library scan, ``check``, the audit and the agent see what a browser shows.

The rules, each from the model: a section is an ``<h2>`` (any depth, in document order: the
page's table of contents); the References entries are the ``<li>`` children of the list the page
script numbers (a sublist inside an entry adds none); a citation is ``[sN]`` in text outside that
list. A paragraph is a top-level block (or one inside a ``div``/``section``/``blockquote``
wrapper) other than a heading and the References list; its pid is the one the page binds to it
(``vocab.bound_pid``: its ``data-pid``, else the first pid comment before it).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field

from oo_nb.format.article_model import (
    NEVER_OPENED,
    NOT_LINKED_IN,
    Model,
    Node,
    entries,
    linked_text,
    read_model,
)
from oo_nb.format.vocab import (
    CITATION,
    PID,
    PID_WELLFORMED,
    bound_pid,
    comment_pid,
    each_cited_id,
    entry_source,
    linked_entry,
)

__all__ = [
    "CITATION",
    "PID",
    "Article",
    "Citation",
    "Figure",
    "Paragraph",
    "Reading",
    "Reference",
    "Section",
    "cited_in",
    "entry_row",
    "excerpt_of",
    "first_excerpt",
    "loose_text",
    "new_pid",
    "pid_problem",
    "read_article",
]

_HEX8 = re.compile(r"^[0-9a-f]{8}$")
_NOT_IN_PID = re.compile(r"[:\s]")  # would end the SECTION part or the comment's pid
_CONTAINERS = frozenset(("div", "section", "blockquote"))
_LEVELS = {"h2": 2, "h3": 3, "h4": 4}
_EXCERPT_CHARS = 120
_SPACES = re.compile(r"\s+")
_FIGURE = re.compile("<figure", re.IGNORECASE)
_P_END = re.compile(r"</p\s*>", re.IGNORECASE)


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
    html: str  # its source text, as written
    text: str


@dataclass(frozen=True)
class Citation:
    source_id: str
    section: str
    pid: str | None


@dataclass(frozen=True)
class Reference:
    position: int  # 1-based: the browser numbers references by position
    source_id: str | None  # from a leading "[sN]" when the entry carries one
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
    """A fresh ``pid:SECTION:8HEX``. A section id may hold a colon (``"a:b"``, as a hand-written
    h2 has it) or space; in the pid they become '-', else it would not be of the form."""
    return f"pid:{_NOT_IN_PID.sub('-', section)}:{secrets.token_hex(4)}"


def pid_is_wellformed(pid: str) -> bool:
    """``pid_problem(pid) is None``, in one regex match (called for every paragraph)."""
    return PID_WELLFORMED.match(pid) is not None


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
    clean = _SPACES.sub(" ", CITATION.sub("", text)).strip()
    return clean if len(clean) <= _EXCERPT_CHARS else clean[:_EXCERPT_CHARS] + "..."


def first_excerpt(html: str) -> str:
    """``Article.parse(html).excerpt`` read from the smallest prefix that holds the first
    paragraph (an index reads only that much); "" for a stub (not yet researched)."""
    end = _P_END.search(html)
    if end is None:
        return ""
    prefix = html[: end.end()]
    if "stub-notice" in prefix:
        return ""
    first = _first_paragraph(read_article(prefix))
    # a paragraph the cut left open (its "</p>" was in a comment or script) is read whole
    if first is None or (first.end == len(prefix) and first.close_start == first.end):
        first = _first_paragraph(read_article(html))
    return excerpt_of(first.text) if first is not None else ""


def _first_paragraph(reading: Reading) -> Node | None:
    return next((n for _, _, n in reading.blocks if n.name == "p" and n.text.strip()), None)


def plain_text(node: Node) -> str:
    """A node's text content with its runs of whitespace made one space."""
    return _SPACES.sub(" ", node.text).strip()


@dataclass
class Reading:
    """One pass over the model: what every reader of the article takes its values from."""

    model: Model
    headings: list[Node] = field(default_factory=list)  # h2-h4, any depth, in order
    blocks: list[tuple[str | None, str, Node]] = field(default_factory=list)  # pid, section
    pids: list[str] = field(default_factory=list)  # of the blocks and headings, in order
    pid_nodes: dict[str, Node] = field(default_factory=dict)  # the first element of each pid
    entries: list[Node] = field(default_factory=list)  # the References list's <li> children
    citations: list[tuple[str, str | None, str]] = field(default_factory=list)
    stub: bool = False  # an element of class "stub-notice"

    def figures(self, node: Node) -> list[Node]:
        source = self.model.source
        if _FIGURE.search(source, node.start, node.end) is None:
            return []
        return list(node.elements("figure"))


def read_article(html: str | Model) -> Reading:
    """The article's sections, blocks, pids, references and citations, from its model (read
    from ``html``, or given: ``Document.article_model``)."""
    model = read_model(html) if isinstance(html, str) else html
    html = model.source
    reading = Reading(model)
    refs = model.reference_list()
    if refs is not None:
        reading.entries = entries(refs)
    reading.headings = sorted(
        (h for name in _LEVELS for h in model.elements(name)), key=lambda h: h.start
    )
    if "stub-notice" in html:  # (else no element can carry the class)
        reading.stub = any(
            "stub-notice" in (n.attr("class") or "").split()
            for n in model.root.iter()
            if n.token is not None
        )
    _walk(reading, model.root.children, refs)
    return reading


def _walk(reading: Reading, children: list[Node], refs: Node | None) -> None:
    """The blocks among ``children`` (descending into wrappers), each with the pid comment
    read before it. (A stack of the wrappers' children, not recursion: an article may nest
    thousands of wrappers deep.)"""
    model = reading.model
    source = model.source
    # each block's section: the last h2 starting before it (blocks come in document order)
    starts = [s.heading.start for s in model.sections] + [len(source) + 1]
    ids = ["", *(s.id for s in model.sections)]
    here, section = 0, ""
    # text inside the References list cites nothing (the same range for every block)
    skip = range(refs.start, refs.end) if refs is not None else range(0)
    pids, pid_nodes, blocks, citations = (
        reading.pids,
        reading.pid_nodes,
        reading.blocks,
        reading.citations,
    )
    pending: list[str] = []  # the pid comments since the element before
    stack = [iter(children)]
    while stack:
        for node in stack[-1]:  # (a for loop: the wrapper's iterator goes on after a descent)
            kind = node.kind
            if kind == "comment":
                data = node.data
                if "pid:" in data and (found := comment_pid(data)) is not None:
                    pending.append(found)
                    pids.append(found)
                continue
            if kind != "element" or node.name in NEVER_OPENED:
                continue  # (text, and the tags a browser opens nothing for)
            own = node.attr("data-pid") if node.attrs else None
            pid = bound_pid(own, pending)
            if own and pid is not None and pid != (pending[0] if pending else None):
                pids.append(pid)  # (one the page does not write from a comment)
            pending = []
            if pid is not None and pid not in pid_nodes:
                pid_nodes[pid] = node
            name = node.name
            if name in _LEVELS or node is refs:
                continue
            if _is_wrapper(node):
                stack.append(iter(node.children))
                pending = [pid] if pid is not None else []
                break
            start = node.start
            while starts[here] <= start:
                here += 1
                section = ids[here]
            blocks.append((pid, section, node))
            cited = _cited(source, node, skip)
            if cited:
                citations += [(section, pid, sid) for sid in cited]
        else:
            stack.pop()
            pending = []  # (a pid comment last in a wrapper names nothing after it)


def _cited(source: str, node: Node, skip: range) -> list[str]:
    """The ids a block cites: ``[sN]`` in its text the page links (``linked_text``) outside the
    References list (``skip``)."""
    start, end = node.start, node.end
    if source.find("[", start, end) < 0 and source.find("&", start, end) < 0:
        return []  # (most blocks: no citation can be in them)
    kids = node.children
    if len(kids) == 1 and kids[0].kind == "text" and node.name not in NOT_LINKED_IN:
        return each_cited_id(kids[0].data)  # (most paragraphs: text only)
    return [sid for t in linked_text(node) if t.start not in skip for sid in each_cited_id(t.data)]


def loose_text(reading: Reading) -> list[tuple[Node, Node]]:
    """The text nodes showing something that no block holds, each with the element it is in
    (the root, or a wrapper ``_walk`` descends into: ``<div>``, ``<blockquote>``): bare text
    between blocks, an advert in a ``<div>``. (Text leaves hold no parent link: walked down.)"""
    out = []
    stack = [reading.model.root]
    while stack:
        holder = stack.pop()
        for node in holder.children:
            if node.kind == "text" and node.data.strip():
                out.append((holder, node))
            elif node.kind == "element" and _is_wrapper(node):
                stack.append(node)
    return sorted(out, key=lambda one: one[1].start)


def _is_wrapper(node: Node) -> bool:
    """An element ``_walk`` descends into rather than reads as one block."""
    return node.name in _CONTAINERS and not (node.attr("class") or "").startswith("table-wrap")


def cited_in(reading: Reading, node: Node) -> list[str]:
    """The source ids one of ``reading``'s blocks cites, in order (as ``Article.citations``
    counts them: a block's ``[sN]`` outside the References list)."""
    refs = reading.model.reference_list()
    skip = range(refs.start, refs.end) if refs is not None else range(0)
    return _cited(reading.model.source, node, skip)


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

    def reference_for(self, source_id: str) -> Reference | None:
        """The References entry the page links a citation of ``source_id`` to (``linked_entry``:
        the first entry labelled with it, else the N-th entry whatever its label), or None."""
        k = linked_entry(source_id, [r.source_id for r in self.references])
        return None if k is None else self.references[k]

    def listed_ids(self, ids: Iterable[str]) -> set[str]:
        """Those of ``ids`` the page links to a References entry (``reference_for``)."""
        labels = [r.source_id for r in self.references]
        return {sid for sid in ids if linked_entry(sid, labels) is not None}

    @classmethod
    def parse(cls, html: str | Model, *, file: str | None = None) -> Article:
        """The article of ``html`` (or of its model, ``Document.article_model``). ``file``
        names the document in errors (kept for callers; the model reads any text)."""
        if not (html if isinstance(html, str) else html.source).strip():
            return cls((), (), (), (), (), (), True)
        r = read_article(html)
        source = r.model.source
        paragraphs = tuple(
            Paragraph(pid, section, node.name, source[node.start : node.end], plain_text(node))
            for pid, section, node in r.blocks
        )
        return cls(
            tuple(Section(r.model.id_of(h), plain_text(h), _LEVELS[h.name]) for h in r.headings),
            paragraphs,
            tuple(Citation(sid, section, pid) for section, pid, sid in r.citations),
            tuple(reference(i, li) for i, li in enumerate(r.entries, 1)),
            tuple(figure(section, fig) for _, section, node in r.blocks for fig in r.figures(node)),
            tuple(r.pids),
            r.stub or not paragraphs,
        )


def reference(position: int, li: Node) -> Reference:
    """One References entry: its label, its first link's address and text."""
    sid, url, link = _entry(li)
    return Reference(position, sid, url, plain_text(link if link is not None else li))


def entry_row(position: int, li: Node) -> tuple[int, str | None, str]:
    """``reference`` without the title: (position, label, url), what the library keeps."""
    sid, url, _ = _entry(li)
    return position, sid, url


def _entry(li: Node) -> tuple[str | None, str, Node | None]:
    # the entry's link is its first <a> with an href, the one the page shows as a link (an
    # anchor-only <a id> before it is no link)
    link = next((a for a in li.elements("a") if a.attr("href") is not None), None)
    url = (link.attr("href") or "") if link is not None else ""
    return entry_source(li.text), url, link


def figure(section: str, fig: Node) -> Figure:
    img = next(fig.elements("img"), None)
    src = (img.attr("src") or "") if img is not None else ""
    mime, size = "", len(src)
    if src.startswith("data:"):
        mime = src[5:].split(";", 1)[0].split(",", 1)[0]
        size = (len(src.split(",", 1)[-1]) * 3) // 4
    cap = next(fig.elements("figcaption"), None)
    return Figure(
        section,
        "data" if src.startswith("data:") else "url",
        mime,
        size,
        (img.attr("alt") or "") if img is not None else "",
        plain_text(cap) if cap is not None else "",
    )
