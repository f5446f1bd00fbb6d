"""The article read as a browser reads it, with the source span of every part, so an edit is a
splice at node boundaries and what it does not touch keeps its exact text.

A new module rather than a rewrite of ``article.py``: that one is the lxml reader behind the
library scan's public ``Article`` (and the fast scan is tested against it); this one is for the
editors, which need spans, not values. Built on the one tokenizer, ``html_tokens``.

- ``nodes``: a small tree (elements, text, comments) with HTML's implied end tags where they
  change what is a top-level block (``<p>`` closed by a block, ``<li>`` by the next ``<li>``, a
  heading by a heading, table cells and rows, void elements).
- ``blocks``: the top-level elements and loose text, each with its lead (whitespace and comments
  since the previous block) and its pid (the last pid comment of the lead, else ``data-pid``).
- ``sections``: one per ``<h2>`` in document order, at any depth (the page's TOC selects every
  ``h2``); a pid comment right before a heading belongs to its section.
- ``reference_list``: the list the page script numbers (first ``ol``/``ul`` after the References
  heading, or inside the element that follows it), its entries its ``<li>`` children.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from oo_nb.format.html_doctype import ascii_lower
from oo_nb.format.html_tokens import Token, content_end, markup_at, plain_tags, tokenize
from oo_nb.format.vocab import CITATION, PID

__all__ = [
    "Block",
    "Citation",
    "Link",
    "Model",
    "Node",
    "Section",
    "article_end",
    "entries",
    "first_list",
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
# Starting one of these closes an open one of its group inside the boundary (li in a list...).
_SIBLINGS = {
    "li": ({"li"}, _SCOPE | {"ol", "ul"}),
    "dt": ({"dt", "dd"}, _SCOPE | {"dl"}),
    "dd": ({"dt", "dd"}, _SCOPE | {"dl"}),
    "tr": ({"tr", "td", "th"}, _SCOPE - {"td", "th"} | {"tbody", "thead", "tfoot"}),
    "td": ({"td", "th"}, _SCOPE - {"td", "th"} | {"tr"}),
    "th": ({"td", "th"}, _SCOPE - {"td", "th"} | {"tr"}),
    "option": ({"option"}, _SCOPE | {"select"}),
}
_SPACES = re.compile(r"\s+")
_UNSEEN = frozenset(("script", "style", "template"))


# Foreign content (SVG, MathML) reads these as elements with markup inside; HTML as raw text.
_RAW_IN_HTML = frozenset(
    ["style", "script", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript"]
)
# What a browser keeps inside a table outside its cells (the rest it moves before the table).
_TABLE_PARTS = frozenset(["table", "tbody", "thead", "tfoot", "tr"])
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


@dataclass(eq=False)
class Node:
    """``kind`` is "element", "text" or "comment". For an element ``start..open_end`` is its
    start tag and ``close_start..end`` its end tag (empty when implied)."""

    kind: str
    start: int
    end: int
    name: str = ""
    token: Token | None = None
    open_end: int = 0
    close_start: int = 0
    data: str = ""
    children: list[Node] = field(default_factory=list, repr=False)
    parent: Node | None = field(default=None, repr=False)

    def attr(self, name: str) -> str | None:
        if self.token is None:
            return None
        return next((a.value for a in self.token.attrs if a.name == name), None)

    def iter(self) -> Iterator[Node]:
        """This node and every one under it, in document order (a loop, not recursion: an
        article may nest thousands of elements deep)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def elements(self, name: str) -> Iterator[Node]:
        return (n for n in self.iter() if n.kind == "element" and n.name == name)

    @property
    def text(self) -> str:
        """The text content, as ``textContent`` reads it."""
        return "".join(n.data for n in self.iter() if n.kind == "text")

    @property
    def visible_text(self) -> str:
        """The text a reader sees: ``text`` without script, style and template content."""
        out: list[str] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.kind == "text":
                out.append(node.data)
            elif node.kind == "element" and node.name not in _UNSEEN:
                stack.extend(reversed(node.children))
        return "".join(out)


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

    id: str
    heading: Node
    start: int
    end: int
    nested: bool

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

    @cached_property
    def blocks(self) -> tuple[Block, ...]:
        return tuple(_blocks(self.source, self.root))

    @cached_property
    def sections(self) -> tuple[Section, ...]:
        heads = [n for n in self.root.iter() if n.kind == "element" and n.name == "h2"]
        top = {id(c) for c in self.root.children}
        starts = [_heading_start(self.source, self.root, h) for h in heads]
        return tuple(
            Section(
                h.attr("id") or "",
                h,
                starts[i],
                starts[i + 1] if i + 1 < len(heads) else len(self.source),
                id(h) not in top,
            )
            for i, h in enumerate(heads)
        )

    @property
    def preamble_end(self) -> int:
        return self.sections[0].start if self.sections else len(self.source)

    def reference_list(self) -> Node | None:
        """The list the page script numbers: after the heading with id "references", else the
        first h2 reading "References"; None when there is none."""
        heads = [s.heading for s in self.sections]
        head = next((h for h in heads if h.attr("id") == "references"), None) or next(
            (h for h in heads if h.text.strip().lower() == "references"), None
        )
        if head is None:
            return None
        return list_after(self.root, head)

    def unnumbered_entries(self) -> list[Node]:
        """The ``<li>`` of the References section the page script does not number (in a list
        nested in an entry, in a second list): their ``[sN]`` links go to other entries."""
        refs = self.reference_list()
        section = next(
            (s for s in self.sections if refs is not None and s.start <= refs.start < s.end), None
        )
        if refs is None or section is None:
            return []
        numbered = {id(li) for li in entries(refs)}
        return [
            n
            for n in self.root.elements("li")
            if section.start <= n.start < section.end and id(n) not in numbered
        ]

    def unmodelled_markup(self) -> list[tuple[int, str]]:
        """Markup this model does not read as a browser does, as (offset, what): a raw-text
        element inside ``<svg>``/``<math>`` (foreign content reads its content as markup), and
        what a table holds outside its cells (a browser moves it before the table)."""
        out: list[tuple[int, str]] = []
        for n in self.root.iter():
            parent = n.parent
            if parent is None:
                continue
            if parent.name in _TABLE_PARTS and (
                (n.kind == "element" and n.name not in _IN_TABLE)
                or (n.kind == "text" and n.data.strip())
            ):
                what = f"<{n.name}>" if n.kind == "element" else "text"
                out.append((n.start, f"{what} directly inside <{parent.name}>"))
            elif (
                n.kind == "element"
                and n.name in _RAW_IN_HTML
                and "<" in self.source[n.open_end : n.close_start]  # (text alone reads alike)
            ):
                foreign = _foreign_ancestor(n)
                if foreign is not None:
                    out.append((n.start, f"<{n.name}> inside <{foreign}>"))
        return out

    @property
    def element_ids(self) -> list[str]:
        return [i for n in self.root.iter() if n.kind == "element" and (i := n.attr("id"))]

    @property
    def pids(self) -> list[str]:
        """Every pid comment, at any depth, in order."""
        return [
            n.data.strip() for n in self.root.iter() if n.kind == "comment" and PID.match(n.data)
        ]

    @cached_property
    def links(self) -> tuple[Link, ...]:
        return tuple(
            Link(a.attr("href") or "", a) for a in self.root.elements("a") if a.attr("href")
        )

    @cached_property
    def citations(self) -> tuple[Citation, ...]:
        """``[sN]`` in text outside the References list."""
        refs = self.reference_list()
        skip = range(refs.start, refs.end) if refs is not None else range(0)
        out: list[Citation] = []
        for n in self.root.iter():
            if n.kind == "text" and n.start not in skip:
                raw = self.source[n.start : n.end]
                out += [
                    Citation(m.group(1), n.start + m.start(), n.start + m.end())
                    for m in CITATION.finditer(raw)
                ]
        return tuple(out)


def read_model(source: str) -> Model:
    return Model(source, _tree(source))


def list_after(root: Node, head: Node) -> Node | None:
    """The first ``ol``/``ul`` among the siblings after ``head`` (or inside one), before the
    next ``h2``: the page script's ``referenceList``."""
    parent = _parent_of(root, head)
    if parent is None:
        return None
    siblings = [c for c in parent.children if c.kind == "element"]
    return first_list(siblings[siblings.index(head) + 1 :])


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
    """``target``'s parent (``root`` is the tree it is in: the builder set the link)."""
    return target.parent


def _tree(source: str) -> Node:
    builder = _Builder(Node("element", 0, len(source), "#root", close_start=len(source)))
    for tok in tokenize(source):
        builder.feed(tok)
    builder.close(len(builder.stack) - 1, len(source))
    return builder.stack[0]


def article_end(source: str, start: int, end: int) -> tuple[int, int] | None:
    """Where the ``<article>`` whose start tag ends at ``start`` is closed, as a browser's tree
    builder closes it: the span of the ``</article>`` that does (one inside an attribute, a
    comment, raw text, a table cell or a template does not), or None when none does before
    ``end``."""
    quick = _plain_article_end(source, start, end)
    return _built_article_end(source, start, end) if quick is _UNSURE else quick


def _built_article_end(source: str, start: int, end: int) -> tuple[int, int] | None:
    """``article_end`` by the tree builder, token by token."""
    article = Node("element", start, end, "article", open_end=start)
    builder = _Builder(Node("element", start, end, "#root"))
    builder.push(article)
    for tok in tokenize(source, start, end):
        builder.feed(tok)
        if len(builder.stack) == 1:
            return article.close_start, article.end
    return None


# Start tags after which the first "</article>" may not close the article: a table, a template,
# foreign content, a select (each changes the scope or the insertion mode), a nested article.
_NOT_PLAIN = frozenset(
    [
        "applet", "caption", "marquee", "object", "table", "td", "th", "template",
        "svg", "math", "select", "article", "frameset", "desc", "foreignobject",
        "mi", "mo", "mn", "ms", "mtext", "annotation-xml",
    ]
)  # fmt: skip
_TAG_NAME = re.compile(r"</?([^\t\n\f\r />]*)")
_UNSURE = (-1, -1)
# Where a tag of ``_NOT_PLAIN`` or "</article" may be (or an attribute's text looks like one)
_MAYBE_NOT_PLAIN = re.compile(
    "<(?:/article|" + "|".join(sorted(_NOT_PLAIN)) + ")(?=[\\t\\n\\f\\r />])", re.IGNORECASE
)


def _plain_article_end(source: str, start: int, end: int) -> tuple[int, int] | None:
    """``article_end`` of an article with none of ``_NOT_PLAIN`` in it (every article oo_nb
    writes), read tag by tag with the tokenizer's bulk helpers and no tree; ``_UNSURE``
    where one comes before the end."""
    at = start
    while at < end:
        run_end, tags = plain_tags(source, at, end)
        cursor = at
        # (most runs hold none of those tags: one search over them all, not a loop)
        for tag in (
            tags if _MAYBE_NOT_PLAIN.search("".join(tags)) else ()
        ):  # (no "<" between them: each starts at the next one)
            lt = source.find("<", cursor)
            cursor = lt + len(tag)
            found = _TAG_NAME.match(tag)
            assert found is not None
            name = ascii_lower(found.group(1))
            if name in _NOT_PLAIN and tag[1] != "/":
                return _UNSURE
            if name == "article" and tag[1] == "/":
                return lt, cursor
        if run_end >= end:
            break
        token, at = markup_at(source, run_end, end)  # a comment, a tag read the long way...
        if token is None or token[0] in ("comment", "doctype"):
            continue
        kind, lt, tag_end, name = token
        if kind == "start" and name in _NOT_PLAIN:
            return _UNSURE
        if kind == "end" and name == "article":
            return lt, tag_end
        if kind == "start":
            at = content_end(source, tag_end, name, end)  # raw text: skipped as the tokenizer does
    return None


class _Builder:
    """The tree builder's stack of open elements, fed one token at a time. Where each name is
    open is kept per name, so asking whether an element is in scope costs the same at any depth
    (a walk down the stack made a deep article quadratic)."""

    def __init__(self, root: Node) -> None:
        self.stack = [root]
        self.open_at: dict[str, list[int]] = {}

    def add(self, node: Node) -> None:
        node.parent = self.stack[-1]
        self.stack[-1].children.append(node)

    def push(self, node: Node) -> None:
        self.add(node)
        self.open_at.setdefault(node.name, []).append(len(self.stack))
        self.stack.append(node)

    def pop(self) -> Node:
        node = self.stack.pop()
        self.open_at[node.name].pop()
        return node

    def close(self, count: int, at: int) -> None:
        for _ in range(count):
            node = self.pop()
            node.end = node.close_start = at

    def open_index(self, names: Iterable[str], bounds: Iterable[str]) -> int:
        """The topmost open element named in ``names`` with none in ``bounds`` above it (the
        root never counts), else -1."""
        top = max((self.open_at[n][-1] for n in names if self.open_at.get(n)), default=0)
        bound = max((self.open_at[n][-1] for n in bounds if self.open_at.get(n)), default=0)
        return top if top > 0 and top >= bound else -1

    def feed(self, tok: Token) -> None:
        stack = self.stack
        if tok.kind == "text":
            self.add(Node("text", tok.start, tok.end, data=tok.data))
        elif tok.kind in ("comment", "doctype"):
            self.add(Node("comment", tok.start, tok.end, data=tok.data))
        elif tok.kind == "start":
            name = tok.name
            if name in _CLOSES_P:
                i = self.open_index(("p",), _SCOPE)
                if i > 0:
                    self.close(len(stack) - i, tok.start)
            if name in _SIBLINGS:
                names, bounds = _SIBLINGS[name]
                i = self.open_index(names, bounds)
                if i > 0:
                    self.close(len(stack) - i, tok.start)
            if name in _HEADINGS and stack[-1].name in _HEADINGS:
                self.close(1, tok.start)
            node = Node("element", tok.start, tok.end, name, tok, tok.end, tok.end)
            if name in VOID or tok.self_closing:
                self.add(node)
            else:
                self.push(node)
        else:  # end tag
            closing = _HEADINGS if tok.name in _HEADINGS else frozenset((tok.name,))
            i = self.open_index(closing, _END_SCOPE.get(tok.name, _SCOPE - closing))
            if i > 0:
                self.close(len(stack) - i - 1, tok.start)
                node = self.pop()
                node.close_start, node.end = tok.start, tok.end


def _heading_start(source: str, root: Node, head: Node) -> int:
    """Where a section starts: at a pid comment right before its heading, else the heading."""
    parent = _parent_of(root, head)
    if parent is None:
        return head.start
    kids = parent.children
    k = kids.index(head) - 1  # (Node compares by identity)
    while k >= 0 and kids[k].kind == "text" and not kids[k].data.strip():
        k -= 1
    if k >= 0 and kids[k].kind == "comment" and PID.match(kids[k].data):
        return kids[k].start
    return head.start


def _blocks(source: str, root: Node) -> Iterator[Block]:
    lead_start = 0
    pid: str | None = None
    section = ""
    for node in root.children:
        if node.kind == "comment":
            if PID.match(node.data):
                pid = node.data.strip()
            continue
        if node.kind == "text" and not node.data.strip():
            continue
        own = pid or (node.attr("data-pid") if node.kind == "element" else None)
        if node.name == "h2":
            section = node.attr("id") or ""
        yield Block(node, lead_start, own, section)
        lead_start, pid = node.end, None
