"""The article read as a browser reads it, with the source span of every part, so an edit is a
splice at node boundaries and what it does not touch keeps its exact text.

Every reader of the article sits on it (``article`` gives the library scan's, ``check``'s and the
agent's values from it; the editors splice at its spans). Built on the one tokenizer,
``html_tokens``.

- ``nodes``: a small tree (elements, text, comments) with HTML's implied end tags where they
  change what is a top-level block (``<p>`` closed by a block, ``<li>`` by the next ``<li>``, a
  heading by a heading, table cells and rows, void elements).
- ``blocks``: the top-level elements and loose text, each with its lead (whitespace and comments
  since the previous block) and its pid as the page binds it (``vocab.bound_pid``).
- ``sections``: one per ``<h2>`` in document order, at any depth (the page's TOC selects every
  ``h2``); a pid comment right before a heading belongs to its section.
- ``reference_list``: the list the page script numbers (first ``ol``/``ul`` after the References
  heading, or inside the element that follows it), its entries its ``<li>`` children.
"""

from __future__ import annotations

import bisect
import operator
import re
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from oo_nb.format.heading_ids import TEMPLATE_PAGE_IDS, page_heading_ids
from oo_nb.format.html_tokens import Attr, RawToken, Token, cdata_section, raw_tokens
from oo_nb.format.vocab import CITATION, PID, bound_pid, cited_id, comment_pid, js_trim

__all__ = [
    "NEVER_OPENED",
    "NOT_LINKED_IN",
    "UNSEEN",
    "Block",
    "Citation",
    "Link",
    "Model",
    "Node",
    "Section",
    "article_end",
    "entries",
    "first_list",
    "linked_text",
    "list_after",
    "read_model",
]

VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
# Opening one of these closes an open <p> (HTML's implied end tag).
_CLOSES_P = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "details",
        "dialog",
        "div",
        "dl",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "main",
        "menu",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "ul",
        "li",
        "dd",
        "dt",
    ]
)
# Where a search for an open element to close stops (HTML's "scope" boundaries).
_SCOPE = frozenset(
    ["applet", "caption", "html", "table", "td", "th", "marquee", "object", "template", "button"]
)
# A table's own end tags look past the cells still open in it (HTML's "table scope").
# "</article>" looks past a button but not past the SVG and MathML elements HTML's scope stops
# at (a "</article>" in <svg><desc> is dropped).
_END_SCOPE = {
    "article": _SCOPE - {"button"}
    | {"desc", "foreignobject", "mi", "mo", "mn", "ms", "mtext", "annotation-xml"},
    "table": frozenset(("html", "template")),
    **{n: frozenset(("html", "table", "template")) for n in ("tbody", "thead", "tfoot", "tr")},
}
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
# HTML's "special" elements (those that can be open): a new <li>, <dt> or <dd> closes an open one
# of its group only when none of these but address, div and p stands between (an <li> inside a
# <blockquote> or <h3> of an entry nests there: it is no entry of the list).
_SPECIAL = frozenset(
    [
        "address", "applet", "article", "aside", "blockquote", "body", "button", "caption",
        "center", "colgroup", "dd", "details", "dir", "div", "dl", "dt", "fieldset",
        "figcaption", "figure", "footer", "form", "frameset", "h1", "h2", "h3", "h4", "h5", "h6",
        "head", "header", "hgroup", "html", "iframe", "li", "listing", "main", "marquee", "menu",
        "nav", "noembed", "noframes", "noscript", "object", "ol", "p", "plaintext", "pre",
        "script", "search", "section", "select", "style", "summary", "table", "tbody", "td",
        "template", "textarea", "tfoot", "th", "thead", "title", "tr", "ul", "xmp", "mi", "mo",
        "mn", "ms", "mtext", "annotation-xml", "foreignobject", "desc",
    ]
)  # fmt: skip
_LIST_ITEM_STOP = _SPECIAL - {"address", "div", "p"}
# End tags that close the open element of their name in scope (HTML's "in body" rule for
# these), so one with none open in the article closes the page's own (a "</div>": the wrapper)
_STRAY_ENDS = frozenset(
    [
        "address", "aside", "blockquote", "button", "center", "details", "dialog", "dir", "div",
        "dl", "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "listing", "main",
        "menu", "nav", "ol", "pre", "search", "section", "summary", "ul",
    ]
)  # fmt: skip
# Starting one of these closes an open one of its group inside the boundary (li in a list...).
_SIBLINGS = {
    "li": ({"li"}, _LIST_ITEM_STOP - {"li"}),
    "dt": ({"dt", "dd"}, _LIST_ITEM_STOP - {"dt", "dd"}),
    "dd": ({"dt", "dd"}, _LIST_ITEM_STOP - {"dt", "dd"}),
    "tr": ({"tr", "td", "th"}, _SCOPE - {"td", "th"} | {"tbody", "thead", "tfoot"}),
    "td": ({"td", "th"}, _SCOPE - {"td", "th"} | {"tr"}),
    "th": ({"td", "th"}, _SCOPE - {"td", "th"} | {"tr"}),
    "option": ({"option"}, _SCOPE | {"select"}),
}
# In a body, a browser opens no element for these: ``<html>``/``<body>`` add their attributes to
# the page's own, the others are dropped. Kept in the tree as empty elements (the update scope
# asks about their attributes), never opened: what follows is not inside them, and they do not
# stand between an end tag and what it closes.
NEVER_OPENED = frozenset(("html", "head", "body", "frameset", "frame"))
_P = frozenset(("p",))
_LINK = frozenset(("a",))
# HTML's formatting elements: one its end tag does not close stays in the browser's list of
# active formatting elements and is opened again around the next text or element
_FORMATTING = frozenset(
    [
        "a",
        "b",
        "big",
        "code",
        "em",
        "font",
        "i",
        "nobr",
        "s",
        "small",
        "strike",
        "strong",
        "tt",
        "u",
    ]
)
# Where that list has a marker: what is left open inside one is forgotten when it closes
_MARKERS = frozenset(["applet", "object", "marquee", "template", "td", "th", "caption"])
_WATCHED = {**dict.fromkeys(_FORMATTING, True), **dict.fromkeys(_MARKERS, False)}
_FOREIGN_ROOTS = frozenset(("svg", "math"))
# Start tags that end foreign content (a browser closes the SVG or MathML elements open): what
# follows is HTML again (``font`` only with color, face or size: counted as one here)
_BREAKOUT = frozenset(
    [
        "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em",
        "embed", "font", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li",
        "listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span",
        "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var",
    ]
)  # fmt: skip
_SHALLOW = 32  # up to this many open elements a scope question walks the stack
_START = operator.attrgetter("start")
_SPACES = re.compile(r"\s+")
UNSEEN = frozenset(("script", "style", "template"))  # text in these is never shown
# Text in these is never a citation: the page script links no "[sN]" inside them (document.js's
# SKIP_TEXT_IN; a test holds the two lists equal). Only HTML elements: an SVG <a> is none.
NOT_LINKED_IN = frozenset(
    ("a", "script", "style", "code", "pre", "textarea", "h1", "h2", "h3", "h4", "h5", "h6")
)


# Foreign content (SVG, MathML) reads these as elements with markup inside; HTML as raw text.
_RAW_IN_HTML = frozenset(
    ["style", "script", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript"]
)
# What a browser keeps inside a table outside its cells (the rest it moves before the table).
_TABLE_PARTS = frozenset(["table", "tbody", "thead", "tfoot", "tr"])
_UNMODELLED_NAMES = _TABLE_PARTS | _RAW_IN_HTML  # where ``unmodelled_markup`` looks
_IN_TABLE = frozenset(
    ["caption", "colgroup", "col", "tbody", "thead", "tfoot", "tr", "td", "th", "script", "style",
     "template", "form"]
)  # fmt: skip


def _foreign_ancestor(node: Node) -> str | None:
    up = node.parent
    while up is not None:
        if up.name in ("svg", "math"):
            return up.name
        up = up.parent
    return None


class Node:
    """``kind`` is "element", "text" or "comment". For an element ``start..open_end`` is its
    start tag and ``close_start..end`` its end tag (empty when implied). (A plain class with
    slots: one is made per token, and a dataclass's ``__init__`` cost a fifth of the reading.)"""

    __slots__ = (
        "__weakref__",
        "_up",
        "attrs",
        "children",
        "close_start",
        "data",
        "end",
        "kind",
        "name",
        "open_end",
        "self_closing",
        "start",
    )

    def __init__(
        self,
        kind: str,
        start: int,
        end: int,
        name: str = "",
        attrs: tuple[Attr, ...] | None = None,
        open_end: int = 0,
        close_start: int = 0,
        data: str = "",
    ) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.name = name
        self.attrs = attrs  # an element's (None for text and comments)
        self.self_closing = False
        self.open_end = open_end
        self.close_start = close_start
        self.data = data
        self.children: list[Node] = []
        # The parent, held weakly (set by the tree builder): a tree with no cycle is freed as soon
        # as the last reference goes, not left to the cyclic collector (a library scan's trees
        # were three quarters of a million objects for it to collect).
        self._up: weakref.ReferenceType[Node] | None = None

    def __repr__(self) -> str:
        return f"Node({self.kind!r}, {self.start}, {self.end}, {self.name!r})"

    @property
    def parent(self) -> Node | None:
        """The element this one is in (None for the root, a leaf, or once the tree is gone)."""
        return None if self._up is None else self._up()

    @property
    def token(self) -> Token | None:
        """An element's start tag as the tokenizer reads it (made when asked: most are not)."""
        if self.attrs is None:
            return None
        return Token("start", self.start, self.open_end, self.name, self.attrs, self.self_closing)

    def attr(self, name: str) -> str | None:
        if not self.attrs:
            return None
        for a in self.attrs:
            if a.name == name:
                return a.value
        return None

    def iter(self) -> Iterator[Node]:
        """This node and every node inside it, in document order (a stack, not recursion)."""
        stack = [self]
        pop, extend = stack.pop, stack.extend
        while stack:
            node = pop()
            yield node
            if node.children:
                extend(reversed(node.children))

    def elements(self, name: str) -> Iterator[Node]:
        """The elements named ``name`` in ``iter``'s order (its walk, not a generator over it:
        asked of every References entry)."""
        stack = [self]
        while stack:
            node = stack.pop()
            if node.name == name and node.kind == "element":
                yield node
            if node.children:
                stack.extend(reversed(node.children))

    @property
    def text(self) -> str:
        """The text content, as ``textContent`` reads it."""
        kids = self.children
        if len(kids) == 1 and kids[0].kind == "text":  # (most paragraphs and links)
            return kids[0].data
        out: list[str] = []
        stack = [self]  # (a stack, not a generator of generators: read for every entry)
        while stack:
            node = stack.pop()
            if node.kind == "text":
                out.append(node.data)
            elif node.children:
                stack.extend(reversed(node.children))
        return "".join(out)

    @property
    def visible_text(self) -> str:
        """The text a reader sees: ``text`` without script, style and template content."""
        out: list[str] = []
        stack = [self]  # (a stack, not recursion: an article may nest thousands deep)
        while stack:
            node = stack.pop()
            if node.kind == "text":
                out.append(node.data)
            elif node.kind == "element" and node.name not in UNSEEN:
                stack.extend(reversed(node.children))
        return "".join(out)


class _Leaf(Node):
    """A text or comment node, made with four stores (most nodes are these): what it never has
    (attributes, children, a parent link) is read from the class."""

    __slots__ = ()
    name = ""
    attrs = None
    open_end = close_start = 0
    self_closing = False
    _up = None
    children: list[Node] = []  # noqa: RUF012 (shared and never added to: leaves hold nothing)

    def __init__(self, kind: str, start: int, end: int, data: str) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.data = data


@dataclass(frozen=True)
class Block:
    """A top-level part of the article. ``lead_start..start`` is its lead (whitespace and
    comments since the previous block), ``start..end`` the element or loose text."""

    node: Node
    lead_start: int
    pid: str | None
    section: str  # id of the h2 it belongs to (its own id for an h2)

    @property
    def tag(self) -> str:
        return self.node.name if self.node.kind == "element" else "text"

    @property
    def start(self) -> int:
        return self.node.start

    @property
    def end(self) -> int:
        return self.node.end


@dataclass(frozen=True)
class Section:
    """One ``<h2>`` and what follows it up to the next. ``start`` includes a pid comment
    right before the heading; ``nested`` when the heading sits inside another element (then
    its text cannot be replaced without cutting that element)."""

    id: str  # the heading's id in the page (``Model.heading_ids``: the script's when it has none)
    heading: Node
    start: int
    end: int
    nested: bool

    @property
    def id_written(self) -> bool:
        """Whether the heading holds its id (else the page script gives it ``id``)."""
        return bool(self.heading.attr("id"))

    @property
    def title(self) -> str:
        return _SPACES.sub(" ", self.heading.text).strip()


@dataclass(frozen=True)
class Citation:
    source_id: str
    start: int
    end: int


@dataclass(frozen=True)
class Link:
    href: str
    node: Node


@dataclass(frozen=True)
class Model:
    source: str
    root: Node
    # the elements of each name, in document order (kept while the tree is built: a reader
    # asking for the h2s or the figures walks no tree)
    named: dict[str, list[Node]] = field(default_factory=dict, compare=False, repr=False)
    # the elements with an id attribute, in document order (kept the same way)
    identified: list[Node] = field(default_factory=list, compare=False, repr=False)
    # markup a browser builds otherwise, noted while the tree is built, as (offset, what): an
    # end tag that closes nothing in the article (a browser closes the page's own element there:
    # a "</div>" closes the article's wrapper, and the article with it), a formatting element
    # left open (a browser opens it again around what follows)
    unread: list[tuple[int, str]] = field(default_factory=list, compare=False, repr=False)
    # the ids of the page's elements outside the article (``heading_ids``: the page script
    # gives a heading no id another element holds); a Document gives its own page's
    page_ids: frozenset[str] = field(default=TEMPLATE_PAGE_IDS, compare=False, repr=False)

    def elements(self, name: str) -> list[Node]:
        return self.named.get(name, [])

    @cached_property
    def heading_ids(self) -> dict[Node, str]:
        """Each ``<h2>`` and ``<h3>``'s id as the page has it once its script ran: its own,
        else the one the table of contents gives it (``heading_ids.page_heading_ids``)."""
        heads = self.elements("h2") + self.elements("h3")
        if all(h.attr("id") for h in heads):  # (most articles: every heading has its id)
            return {h: h.attr("id") or "" for h in heads}
        heads.sort(key=_START)
        refs = self.reference_list()
        taken = set(self.page_ids) | set(self.element_ids)
        return page_heading_ids(heads, None if refs is None else entries(refs), taken)

    def id_of(self, node: Node) -> str:
        """The id of ``node`` in the page: ``heading_ids`` for an h2 or h3, else its own."""
        if node.name in ("h2", "h3"):
            found = self.heading_ids.get(node)
            if found is not None:
                return found
        return node.attr("id") or ""

    @cached_property
    def blocks(self) -> tuple[Block, ...]:
        return tuple(_blocks(self.source, self.root, self.heading_ids))

    @cached_property
    def sections(self) -> tuple[Section, ...]:
        heads = self.elements("h2")
        # A section starts at its heading, or at the outermost element around the heading that
        # starts after the previous heading (so the section before ends at that element's
        # start tag, never inside it); a pid comment right before either belongs to it.
        outer: list[Node] = []
        spill: list[bool] = []  # the section before runs on inside that element
        for i, h in enumerate(heads):
            prev = heads[i - 1].start if i else -1
            node = h
            while (up := node.parent) is not None and up is not self.root and up.start > prev:
                node = up
            outer.append(node)
            spill.append(node is not h and _holds_before(node, h))
        starts = [_heading_start(self.source, self.root, n) for n in outer]
        return tuple(
            Section(
                self.id_of(h),
                h,
                starts[i],
                starts[i + 1] if i + 1 < len(heads) else len(self.source),
                h.parent is not self.root or (i + 1 < len(heads) and spill[i + 1]),
            )
            for i, h in enumerate(heads)
        )

    @property
    def preamble_end(self) -> int:
        return self.sections[0].start if self.sections else len(self.source)

    def reference_list(self) -> Node | None:
        """The list the page script numbers: after the first element with id "references"
        (``getElementById``: of any tag), else the first h2 whose text, trimmed as JavaScript
        trims, reads "References"; None when there is none."""
        head = next((n for n in self.identified if n.attr("id") == "references"), None) or next(
            (h for h in self.elements("h2") if js_trim(h.text).lower() == "references"), None
        )
        if head is None:
            return None
        return list_after(self.root, head)

    def unnumbered_entries(self) -> list[Node]:
        """The ``<li>`` of the References section the page script does not number (in a list
        nested in an entry, in a second list): their ``[sN]`` links go to other entries."""
        refs = self.reference_list()
        if refs is None:
            return []
        section = next((s for s in self.sections if s.start <= refs.start < s.end), None)
        if section is None:
            return []
        numbered = {id(li) for li in entries(refs)}
        return [
            n
            for n in self.elements("li")
            if section.start <= n.start < section.end and id(n) not in numbered
        ]

    def unmodelled_markup(self) -> list[tuple[int, str]]:
        """Markup this model does not read as a browser does, as (offset, what): a raw-text
        element holding markup inside ``<svg>``/``<math>`` (foreign content reads it as markup),
        what a table holds outside its cells (a browser moves it before the table), a stray
        end tag that would close the page's own element and a formatting element left open
        (``unread``)."""
        out = list(self.unread)
        # (the elements of those names, kept while the tree was built: no walk of the tree)
        for n in sorted((n for name in _UNMODELLED_NAMES for n in self.elements(name)), key=_START):
            if n.name in _TABLE_PARTS:  # (its children: a text leaf keeps no parent link)
                out += [
                    (c.start, f"{f'<{c.name}>' if c.kind == 'element' else 'text'} directly "
                     f"inside <{n.name}>")
                    for c in n.children
                    if (c.kind == "element" and c.name not in _IN_TABLE)
                    or (c.kind == "text" and c.data.strip())
                ]  # fmt: skip
            elif n.name in _RAW_IN_HTML and "<" in self.source[n.open_end : n.close_start]:
                foreign = _foreign_ancestor(n)  # (text alone reads alike)
                if foreign is not None:
                    out.append((n.start, f"<{n.name}> inside <{foreign}>"))
        return out

    @property
    def element_ids(self) -> list[str]:
        """Every element's id, as the browser reads it (the first ``id=``, references
        decoded), in document order."""
        return [i for n in self.identified if (i := n.attr("id"))]

    @property
    def pids(self) -> list[str]:
        """Every pid comment, at any depth, in order."""
        return [
            pid
            for n in self.root.iter()
            if n.kind == "comment" and (pid := comment_pid(n.data)) is not None
        ]

    @cached_property
    def links(self) -> tuple[Link, ...]:
        return tuple(Link(a.attr("href") or "", a) for a in self.elements("a") if a.attr("href"))

    @cached_property
    def citations(self) -> tuple[Citation, ...]:
        """``[sN]`` in text the page links: outside the References list and ``NOT_LINKED_IN``."""
        refs = self.reference_list()
        skip = range(refs.start, refs.end) if refs is not None else range(0)
        out: list[Citation] = []
        for n in linked_text(self.root):
            if n.start not in skip:
                start, end = _text_span(self.source, n)
                out += [
                    Citation(cited_id(m), m.start(), m.end())
                    for m in CITATION.finditer(self.source, start, end)
                ]
        return tuple(out)


def linked_text(node: Node) -> Iterator[Node]:
    """The text nodes in ``node`` (itself included) whose ``[sN]`` the page links: in no
    ``NOT_LINKED_IN`` HTML element (SVG and MathML elements are none of them, but in an HTML
    integration point: ``foreignObject``...). (A stack, not recursion: an article may nest
    thousands of elements deep.)"""
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        n, foreign = stack.pop()
        if n.kind == "text":
            yield n
            continue
        if n.kind != "element":
            continue
        if n.name in _FOREIGN_ROOTS:
            foreign = True
        elif foreign and n.name in _HTML_AGAIN:
            foreign = False
        elif not foreign and n.name in NOT_LINKED_IN:
            continue
        stack.extend((c, foreign) for c in reversed(n.children))


# Elements inside SVG or MathML whose content is HTML again (integration points)
_HTML_AGAIN = frozenset(
    ("foreignobject", "desc", "title", "annotation-xml", "mi", "mo", "mn", "ms", "mtext")
)


def _text_span(source: str, text: Node) -> tuple[int, int]:
    """Where a text node's own characters are: a CDATA section's without its ``<![CDATA[`` and
    ``]]>`` (their brackets are no part of a citation)."""
    start, end = text.start, text.end
    if source.startswith("<![CDATA[", start):  # (text in HTML never starts so: a bogus comment)
        start += len("<![CDATA[")
        end -= 3 if source.endswith("]]>", start, end) else 0
    return start, end


def read_model(source: str) -> Model:
    named: dict[str, list[Node]] = {}
    identified: list[Node] = []
    unread: list[tuple[int, str]] = []
    return Model(source, _tree(source, named, identified, unread), named, identified, unread)


def article_end(source: str, start: int, end: int) -> tuple[int, int] | None:
    """Where the ``<article>`` whose start tag ends at ``start`` is closed, as a browser's tree
    builder closes it: the span of the ``</article>`` that does (one inside an attribute, a
    comment, raw text, a table cell or a template does not), or None when none does before
    ``end``."""
    read = read_article_element(source, start, end)
    return None if read is None else read[1]


def read_article_element(source: str, start: int, end: int) -> tuple[Model, tuple[int, int]] | None:
    """The model of the ``<article>`` whose start tag ends at ``start`` and the span of the
    ``</article>`` that closes it (``article_end``), from one reading: the model is the one
    ``read_model`` gives of the article's content (its offsets are into that content). None
    when nothing closes the article before ``end``."""
    body = source[start:end]  # (a copy, so the model's offsets are the content's own)
    article = Node("element", 0, len(body), "article", (), 0, 0)
    named: dict[str, list[Node]] = {}
    identified: list[Node] = []
    unread: list[tuple[int, str]] = []
    _tree(body, named, identified, unread, 0, len(body), article)
    if article.end <= article.close_start:
        return None
    close = article.close_start
    root = Node("element", 0, close, "#root", open_end=0, close_start=close)
    root.children = article.children
    up = weakref.ref(root)
    for child in root.children:
        if child.attrs is not None:  # (an element: a leaf keeps no parent link)
            child._up = up
    model = Model(body[:close], root, named, identified, unread)
    return model, (start + close, start + article.end)


def list_after(root: Node, head: Node) -> Node | None:
    """The first ``ol``/``ul`` among the siblings after ``head`` (or inside one), before the
    next ``h2``: the page script's ``referenceList``."""
    parent = _parent_of(root, head)
    if parent is None:
        return None
    kids = parent.children
    after = bisect.bisect_right(kids, head.start, key=_START)  # (siblings in source order)
    return first_list([c for c in kids[after:] if c.kind == "element"])


def first_list(siblings: list[Node]) -> Node | None:
    """The first ``ol``/``ul`` among ``siblings`` or inside one, stopping at an ``h2``."""
    for node in siblings:
        if node.kind != "element":
            continue
        if node.name == "h2":
            return None
        if node.name in ("ol", "ul"):
            return node
        found = [n for n in node.iter() if n.kind == "element" and n.name in ("ol", "ul")]
        if found:
            return found[0]
    return None


def entries(lst: Node) -> list[Node]:
    return [c for c in lst.children if c.kind == "element" and c.name == "li"]


def _parent_of(root: Node, target: Node) -> Node | None:
    if target.parent is not None:
        return target.parent
    for n in root.iter():
        if any(c is target for c in n.children):
            return n
    return None


def _tree(
    source: str,
    named: dict[str, list[Node]],
    identified: list[Node],
    unread: list[tuple[int, str]],
    start: int = 0,
    end: int | None = None,
    article: Node | None = None,
) -> Node:
    """The tree of ``source[start:end]``; ``named`` gets the elements of each name,
    ``identified`` those with an id attribute, ``unread`` the markup a browser builds otherwise
    (``Model.unread``). With an
    ``article`` node the source starts inside that element, and reading stops where an end tag
    closes it (``article_end``)."""
    stop = len(source) if end is None else end
    root = Node("element", start, stop, "#root", open_end=start, close_start=stop)
    stack = [root]
    # where each name is open on the stack: a scope question costs the same at any depth (a
    # walk down a stack 30,000 deep made a deep article quadratic)
    open_at: dict[str, list[int]] = {}

    inert = 0  # templates open: what they hold is no part of the page a script or reader sees

    def close(count: int, at: int, closer: str = "") -> None:
        """Pop ``count`` elements, closed at ``at`` by an end tag or start tag ``closer`` (one
        of its own name is popped after them)."""
        nonlocal inert
        left: list[Node] | None = None  # formatting elements closed here, not by their end tag
        cleared = False
        for _ in range(count):
            node = stack.pop()
            name = node.name
            watched = _WATCHED.get(name)  # (one look-up for most elements: neither kind)
            if watched is not None:
                if not watched:
                    cleared = True  # (what is open inside a cell is forgotten when it closes)
                elif not inert and not (open_at.get("svg") or open_at.get("math")):
                    left = [node] if left is None else [*left, node]
            open_at[name].pop()
            node.end = node.close_start = at
            if name == "template":
                node.children, inert = [], inert - 1
        if left is not None and not cleared and closer not in _MARKERS:
            unread.extend(
                (n.start, f"<{n.name}> left open where an element around it closes (a browser "
                 "opens it again around what follows: the next heading can land inside it)")
                for n in reversed(left)
            )  # fmt: skip

    def open_index(names: set[str] | frozenset[str], bounds: set[str] | frozenset[str]) -> int:
        if len(stack) <= _SHALLOW:  # (most articles: the walk is quicker)
            for i in range(len(stack) - 1, 0, -1):
                if stack[i].name in names:
                    return i
                if stack[i].name in bounds:
                    return -1
            return -1
        top = max((at[-1] for n in names if (at := open_at.get(n))), default=0)
        bound = max((at[-1] for n in bounds if (at := open_at.get(n))), default=0)
        return top if top > 0 and top >= bound else -1

    top = root
    ref = weakref.ref
    if article is not None:
        article._up = ref(root)
        root.children.append(article)
        open_at["article"] = [1]
        stack.append(article)
        top = article
    closes_p, siblings, headings, void = _CLOSES_P, _SIBLINGS, _HEADINGS, VOID | NEVER_OPENED
    # where the tokens go on after a CDATA section read here (only a source holding one is read
    # by the resumable walk: the others pay nothing for it)
    resume: list[int] | None = None
    tokens: Iterator[RawToken | Token] = raw_tokens(source, start, end)
    if source.find("<![CDATA[", start, stop) >= 0:
        resume = []
        tokens = _resumable(source, start, end, resume)
    for raw in tokens:
        if isinstance(raw, Token):  # a DOCTYPE
            top.children.append(_Leaf("comment", raw.start, raw.end, raw.data))
            continue
        kind, start, end, name, attrs, self_closing, data = raw
        if kind == "text" or kind == "comment":
            if (
                resume is not None
                and data.startswith("[CDATA[")
                and (open_at.get("svg") or open_at.get("math"))
                and source.startswith("<![CDATA[", start)
                and _in_foreign_content(stack)
            ):  # a CDATA section: its text is the page's text (a citation in it is linked)
                after, cdata = cdata_section(source, start, stop)
                top.children.append(_Leaf("text", start, after, cdata))
                resume.append(after)
                continue
            top.children.append(_Leaf(kind, start, end, data))
        elif kind == "start":
            if len(stack) > 1:  # (at the top level nothing is open to close)
                # (``open_at`` first: most often no element it could close is open at all)
                if name in closes_p and open_at.get("p"):
                    i = open_index(_P, _SCOPE)
                    if i > 0:
                        close(len(stack) - i, start, name)
                if name in siblings:
                    names, bounds = siblings[name]
                    for sibling in names:
                        if open_at.get(sibling):
                            i = open_index(names, bounds)
                            if i > 0:
                                close(len(stack) - i, start, name)
                            break
                if name in headings and stack[-1].name in headings:
                    close(1, start)
                if name == "a" and open_at.get("a") and not inert:
                    _nested_link(open_at, open_index, start, unread)
                top = stack[-1]
            node = Node("element", start, end, name, attrs, end, end)
            node.self_closing = self_closing
            node._up = ref(top)
            top.children.append(node)
            if not inert:  # (a template's content is found by no name and no id)
                if name in named:
                    named[name].append(node)
                else:
                    named[name] = [node]
                if attrs:
                    for a in attrs:
                        if a.name == "id":
                            identified.append(node)
                            break
            # "/>" closes only a foreign element (SVG, MathML); HTML reads <div/> as <div>
            if name not in void and not (
                self_closing
                and (name in _FOREIGN_ROOTS or open_at.get("svg") or open_at.get("math"))
            ):
                open_at.setdefault(name, []).append(len(stack))
                stack.append(node)
                top = node
                if name == "template":
                    inert += 1
        else:  # end tag
            # most close the element open last (``open_index`` would find it first): no search
            i = len(stack) - 1 if name == top.name else open_index(*_closing(name))
            if i > 0:
                if i + 1 < len(stack):  # (most end tags close the element open last)
                    if name in _FORMATTING and not inert:
                        _misnested(stack, i, unread)
                    close(len(stack) - i - 1, start, name)
                node = stack.pop()
                open_at[node.name].pop()
                node.close_start, node.end = start, end
                if node.name == "template":
                    node.children, inert = [], inert - 1
                top = stack[-1]
                if article is not None and len(stack) == 1:
                    return root  # the article's end tag
            elif name in _STRAY_ENDS:
                unread.append(
                    (start, f"an end tag </{name}> that closes nothing in the article (a browser "
                     "closes the page's own element there, and the article with it)")
                )  # fmt: skip
    close(len(stack) - 1, stop)
    return root


def _resumable(
    source: str, start: int, end: int | None, resume: list[int]
) -> Iterator[RawToken | Token]:
    """``raw_tokens``, started again at the offset the reader puts in ``resume`` (past a CDATA
    section, which the tokenizer read as a bogus comment up to its first ">")."""
    at = start
    while True:
        for raw in raw_tokens(source, at, end):
            yield raw
            if resume:
                at = resume.pop()
                break
        else:
            return


def _in_foreign_content(stack: list[Node]) -> bool:
    """Whether the element open last is an SVG or MathML element (then the tokenizer reads
    ``<![CDATA[`` as a CDATA section). An element is HTML inside an HTML integration point
    (svg ``foreignObject``, ``desc``, ``title``; MathML ``annotation-xml`` holding HTML) or a
    MathML text integration point (``mi`` …), and where a breakout element (``<p>``, ``<div>``
    …) closes the foreign ones."""
    space = "html"
    for node in stack[1:]:
        name = node.name
        if name in _FOREIGN_ROOTS:
            space = "svg" if name == "svg" or space == "svg" else "math"
        elif space != "html" and (name in _BREAKOUT or _in_integration_point(node, space)):
            space = "html"
    return space != "html"


def _in_integration_point(node: Node, space: str) -> bool:
    """Whether ``node``, inside an element of ``space``, is HTML there."""
    parent = node.parent
    if parent is None:
        return False
    if space == "svg":
        return parent.name in ("foreignobject", "desc", "title")
    if parent.name in ("mi", "mo", "mn", "ms", "mtext"):
        return node.name not in ("mglyph", "malignmark")
    return parent.name == "annotation-xml" and (parent.attr("encoding") or "").lower() in (
        "text/html",
        "application/xhtml+xml",
    )


def _nested_link(
    open_at: dict[str, list[int]],
    open_index: Callable[[frozenset[str], frozenset[str]], int],
    at: int,
    unread: list[tuple[int, str]],
) -> None:
    """An ``<a>`` while another is open (in the same cell, template or object: HTML's markers
    bound it): a browser closes the open one there, the model nests the new one in it."""
    if open_at.get("svg") or open_at.get("math"):
        return  # (an svg <a> is no HTML link: nested ones stay nested)
    i = open_index(_LINK, _MARKERS)
    if i > 0:
        unread.append(
            (at, "an <a> inside an open <a> (a browser closes the open one here: what follows "
             "is outside its link)")
        )  # fmt: skip


def _misnested(stack: list[Node], i: int, unread: list[tuple[int, str]]) -> None:
    """A formatting element's end tag while HTML's special elements opened inside it are still
    open: a browser's adoption agency moves them out of it (the model closes them in it)."""
    block = next((n for n in stack[i + 1 :] if n.name in _SPECIAL), None)
    if block is not None:
        unread.append(
            (block.start, f"<{block.name}> still open inside <{stack[i].name}> at its end tag (a "
             "browser moves it, and what it holds, out of that element)")
        )  # fmt: skip


@lru_cache(maxsize=512)
def _closing(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """What an end tag ``name`` closes, and where the search for it stops."""
    closing = _HEADINGS if name in _HEADINGS else frozenset((name,))
    return closing, _END_SCOPE.get(name, _SCOPE - closing)


def _holds_before(outer: Node, head: Node) -> bool:
    """Whether ``outer`` holds text or an element before ``head``, other than the elements
    around it (then the section before the heading runs on inside ``outer``)."""
    for n in outer.iter():
        if n.start >= head.start:
            return False  # (document order: the heading and what follows it)
        if n is outer or n.kind == "comment" or (n.kind == "text" and not n.data.strip()):
            continue
        if n.kind == "text" or n.end <= head.start:
            return True
    return False


def _heading_start(source: str, root: Node, head: Node) -> int:
    """Where a section starts: at a pid comment right before its heading, else the heading."""
    parent = _parent_of(root, head)
    if parent is None:
        return head.start
    kids = parent.children
    # (siblings are in source order and do not overlap: the heading's place by bisection)
    k = bisect.bisect_left(kids, head.start, key=_START) - 1
    while k >= 0 and kids[k].kind == "text" and not kids[k].data.strip():
        k -= 1
    if k >= 0 and kids[k].kind == "comment" and PID.match(kids[k].data):
        return kids[k].start
    return head.start


def _blocks(source: str, root: Node, heading_ids: dict[Node, str]) -> Iterator[Block]:
    lead_start = 0
    pids: list[str] = []  # the pid comments since the previous block
    section = ""
    for node in root.children:
        if node.kind == "comment":
            if (pid := comment_pid(node.data)) is not None:
                pids.append(pid)
            continue
        if (node.kind == "text" and not node.data.strip()) or node.name in NEVER_OPENED:
            continue
        own = bound_pid(node.attr("data-pid"), pids)
        if node.name == "h2":
            section = heading_ids.get(node, "")
        yield Block(node, lead_start, own, section)
        lead_start, pids = node.end, []
