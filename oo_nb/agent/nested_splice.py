"""A section edit placed inside the elements around its blocks (issue 26: an edit is a splice at
node boundaries).

A block is the smallest element the model names as one (``LEAF_BLOCKS``) wherever it sits: in a
``<details>``, a ``<div>`` with its own attributes, a table cell, a list item. The proposal's
blocks are aligned with the old section's, and only the blocks it changed, added or removed are
written: the start and end tags around them, the text between them and every part the agent
cannot write (``UNWRITABLE``: never shown to it, or removed by the sanitiser with its content)
keep their bytes. Where the proposal's blocks do not line up with the old ones inside the same
wrappers, ``splice_nested`` gives None and the block-by-block splice (``splice.py``) is used,
unless it would rewrite a wrapper the article cannot hold as written (``wrapper_rewritten``).
"""

from __future__ import annotations

import html
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher

from oo_nb.agent.block_shape import (
    KEPT_AS_WRITTEN,
    PLACEHOLDER,
    in_newlines_of,
    mark_inner_paragraphs,
    outermost,
    placeholder_shape,
    shape,
)
from oo_nb.agent.sections import UNSEEN_TAGS, PidKeeper
from oo_nb.format.article_model import Node, read_model
from oo_nb.format.sanitize import ALLOWED_TAGS, DROPPED_WITH_CONTENT
from oo_nb.format.vocab import PID, bound_pid, comment_pid

__all__ = [
    "LEAF_BLOCKS",
    "UNWRITABLE",
    "SpliceRefused",
    "changed_unwritable",
    "holders",
    "splice_nested",
    "wrapper_rewritten",
]

# The elements the article model names as blocks (issue 26): the smallest one is the unit an
# edit replaces.
LEAF_BLOCKS = frozenset(
    ("p", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "table", "figure", "blockquote", "pre")
)
# What an update cannot write: the agent is never shown it, or the sanitiser removes it with
# everything inside (a <form>, an <svg> with a paragraph in its foreignObject)
UNWRITABLE = DROPPED_WITH_CONTENT | UNSEEN_TAGS
# tags a parser adds around table rows: no wrapper of their own
_NO_WRAPPER = frozenset(("tbody",))


class SpliceRefused(Exception):
    """The edit cannot be placed without rewriting ``element`` (which the article cannot hold
    as the agent wrote it)."""

    def __init__(self, element: str) -> None:
        super().__init__(element)
        self.element = element


@dataclass
class _Part:
    """A block, a run of text and inline elements, or an unwritable element, among the
    section's parts in document order. ``path``: the wrappers around it that the sanitiser
    keeps (so the proposal has them too), outermost first."""

    kind: str  # "block", "text" or "unwritable"
    nodes: list[Node]
    key: tuple[str, ...]  # what the model saw of it (``splice.shape``)
    path: tuple[str, ...]
    parent: Node

    @property
    def node(self) -> Node:
        return self.nodes[0]

    @property
    def start(self) -> int:
        return self.nodes[0].start

    @property
    def end(self) -> int:
        return self.nodes[-1].end


def holders(root: Node) -> set[int]:
    """The ids of the elements under ``root`` that hold a block (``LEAF_BLOCKS``), or an
    unwritable element outside any block: they are wrappers, not blocks."""
    out: set[int] = set()
    for node in root.iter():
        if node.kind != "element" or node is root:
            continue
        if node.name in LEAF_BLOCKS or node.name in UNWRITABLE:
            up = node.parent
            if node.name not in LEAF_BLOCKS and _in_block(node, root):
                continue  # (an <svg> in a paragraph is part of that paragraph)
            while up is not None and up is not root and id(up) not in out:
                out.add(id(up))
                up = up.parent
    return out


def _in_block(node: Node, root: Node) -> bool:
    up = node.parent
    while up is not None and up is not root:
        if up.name in LEAF_BLOCKS:
            return True
        up = up.parent
    return False


def _parts(root: Node) -> list[_Part]:
    """The parts under ``root`` in document order."""
    out: list[_Part] = []
    _walk(root, (), holders(root), out)
    return out


# Wrappers deeper than this are left to the block-by-block splice (``_walk`` recurses by wrapper)
_MAX_DEPTH = 100


class _TooDeep(Exception):
    """Wrappers nest past ``_MAX_DEPTH``: the block-by-block splice takes the section."""


def _walk(
    parent: Node, path: tuple[str, ...], wrappers: set[int], out: list[_Part], depth: int = 0
) -> None:
    if depth > _MAX_DEPTH:
        raise _TooDeep
    run: list[Node] = []

    def flush() -> None:
        key = tuple(s for n in run for s in shape(n, ALLOWED_TAGS))
        if key:
            out.append(_Part("text", list(run), key, path, parent))
        run.clear()

    for child in parent.children:
        if child.kind == "comment":
            continue
        if child.kind == "element" and child.name in UNWRITABLE and _not_inline(child, wrappers):
            flush()
            out.append(_Part("unwritable", [child], (), path, parent))
        elif child.kind == "element" and id(child) in wrappers:
            flush()
            kept = child.name in ALLOWED_TAGS and child.name not in _NO_WRAPPER
            _walk(child, (*path, child.name) if kept else path, wrappers, out, depth + 1)
        elif child.kind == "element" and child.name in LEAF_BLOCKS:
            flush()
            out.append(_Part("block", [child], shape(child), path, parent))
        else:
            run.append(child)
    flush()


def _not_inline(node: Node, wrappers: set[int]) -> bool:
    """An unwritable element is a part of its own unless it sits in a line of text (an
    ``<svg>`` among words is shown as its placeholder there)."""
    return id(node) in wrappers or node.name not in ("svg", "math")


def _pid_before(node: Node) -> str | None:
    """The pid the page binds to ``node`` (``vocab.bound_pid``), from the pid comments right
    before it among its siblings (whitespace between)."""
    comments: list[str] = []
    parent = node.parent
    if parent is not None:
        kids = parent.children
        k = next(i for i, c in enumerate(kids) if c is node) - 1
        while k >= 0 and (
            kids[k].kind == "comment" or (kids[k].kind == "text" and not kids[k].data.strip())
        ):
            if kids[k].kind == "comment" and (pid := comment_pid(kids[k].data)) is not None:
                comments.insert(0, pid)
            k -= 1
    return bound_pid(node.attr("data-pid"), comments)


def _lead_start(node: Node) -> int:
    """Where ``node``'s lead starts: the whitespace and pid comments right before it."""
    parent = node.parent
    if parent is None:
        return node.start
    kids = parent.children
    k = next(i for i, c in enumerate(kids) if c is node)
    start = node.start
    while k > 0:
        c = kids[k - 1]
        if (c.kind == "text" and not c.data.strip()) or (c.kind == "comment" and PID.match(c.data)):
            start, k = c.start, k - 1
            continue
        break
    return start


@dataclass
class _Step:
    kind: str  # "replace", "delete", "insert"
    old: _Part | None
    new: list[_Part]
    at: int = 0  # where an insertion goes


def _plan(old: list[_Part], new: list[_Part]) -> list[_Step] | None:
    twins = _twins(old)
    old_keys, new_keys = ([_aligned(p, twins) for p in parts] for parts in (old, new))
    matcher = SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    steps: list[_Step] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        olds, news = old[i1:i2], new[j1:j2]
        if op == "equal":
            if any(o.path != n.path for o, n in zip(olds, news, strict=True)):
                return None  # (the proposal moved it into another wrapper)
            continue
        if op == "replace":
            if len(olds) != len(news) or not all(
                o.kind == n.kind == "block" and o.node.name == n.node.name and o.path == n.path
                for o, n in zip(olds, news, strict=True)
            ):
                return None
            steps += [_Step("replace", o, [n]) for o, n in zip(olds, news, strict=True)]
        elif op == "delete":
            if any(o.kind != "block" for o in olds):
                return None
            steps += [_Step("delete", o, []) for o in olds]
        else:  # insert
            at = _insertion(old, new, i1, j1, j2)
            if at is None:
                return None
            steps.append(_Step("insert", None, news, at))
    return steps


def _twins(old: list[_Part]) -> set[tuple[str, ...]]:
    """The shapes two or more old blocks share (the same text twice)."""
    seen: set[tuple[str, ...]] = set()
    twins: set[tuple[str, ...]] = set()
    for p in old:
        if p.kind == "block":
            (twins if p.key in seen else seen).add(p.key)
    return twins


def _aligned(part: _Part, twins: set[tuple[str, ...]]) -> tuple[str, ...]:
    """What ``part`` is aligned on: its shape, and for a block whose text another old block
    repeats, the pid before it too, so the copy the agent kept (its pid comment with it) is
    the one matched, not the first with that text."""
    if part.kind != "block" or part.key not in twins:
        return part.key
    return (*part.key, f"pid={_pid_before(part.node)}")


def _insertion(old: list[_Part], new: list[_Part], i: int, j1: int, j2: int) -> int | None:
    """Where the new blocks ``new[j1:j2]`` go in the old text: after the old part before them
    or before the one after them, when they share its wrappers (the same parent in the
    proposal, the same path)."""
    news = new[j1:j2]
    if any(n.kind != "block" or n.parent is not news[0].parent for n in news):
        return None
    parent, path = news[0].parent, news[0].path
    if i > 0 and j1 > 0 and new[j1 - 1].parent is parent and _block_at(old[i - 1], path):
        return old[i - 1].end
    if i < len(old) and j2 < len(new) and new[j2].parent is parent and _block_at(old[i], path):
        return _lead_start(old[i].node)
    return None


def _block_at(part: _Part, path: tuple[str, ...]) -> bool:
    return part.kind == "block" and part.path == path


def splice_nested(
    old_body: str,
    fragment: str,
    keeper: PidKeeper,
    section: str,
    pid_tags: Collection[str],
) -> str | None:
    """``old_body`` with the proposal's changed, added and removed blocks written in place
    (see the module notes); None when the section holds no wrapper or the proposal's blocks do
    not line up with the old ones."""
    old_root = read_model(old_body).root
    if not holders(old_root):
        return None  # every block is at the top: the block-by-block splice does it
    try:
        old = [p for p in _parts(old_root) if p.kind != "unwritable"]
        new = [p for p in _parts(read_model(fragment).root) if p.kind != "unwritable"]
    except _TooDeep:
        return None
    placeholder = placeholder_shape()
    new = [p for p in new if p.key != placeholder]  # (an SVG echoed: kept where it is)
    steps = _plan(old, new)
    if steps is None:
        return None
    gone = {_pid_before(s.old.node) for s in steps if s.kind == "delete" and s.old}
    keeper.taken.update(p for p in read_model(old_body).pids if p not in gone)
    keeper.kept += sum(1 for p in old if p.kind == "block" and _pid_before(p.node)) - len(gone)
    edits: list[tuple[int, int, str]] = []
    for step in steps:
        if step.kind == "delete" and step.old is not None:
            edits.append((_lead_start(step.old.node), step.old.end, ""))
        elif step.kind == "replace" and step.old is not None:
            edits.append(_replacement(old_body, fragment, step, keeper, section, pid_tags))
        else:
            text = "".join(_inserted(fragment, n.node, keeper, section, pid_tags) for n in step.new)
            edits.append((step.at, step.at, text))
    out = old_body
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + in_newlines_of(old_body, text) + out[end:]
    return out


def _replacement(
    old_body: str,
    fragment: str,
    step: _Step,
    keeper: PidKeeper,
    section: str,
    pid_tags: Collection[str],
) -> tuple[int, int, str]:
    """An old block's span and the proposal's block written there; its pid comment (in the
    old text, before it) stays; a block due one that had none gets one."""
    assert step.old is not None
    old, new = step.old.node, step.new[0].node
    text = _restore_svgs(mark_inner_paragraphs(fragment, new, keeper, section), old_body, old)
    text = _with_data_pid(text, old, new)
    if _pid_before(old) is None and (new.name == "p" or new.name in pid_tags):
        pid = keeper.choose(section, " ".join(new.text.split()), None)
        text = f"<!-- {pid} -->\n{text}"
    return old.start, old.end, text


def _with_data_pid(text: str, old: Node, new: Node) -> str:
    """``text`` (the proposal's block) with the old block's ``data-pid`` put back on its start
    tag when the proposal dropped it: that attribute is the pid the page binds (``bound_pid``:
    it wins over any comment), and it is written nowhere else."""
    data_pid = old.attr("data-pid")
    if not data_pid or new.attr("data-pid") is not None:
        return text
    at = len(new.name) + 1  # (after "<p")
    return f'{text[:at]} data-pid="{html.escape(data_pid)}"{text[at:]}'


def _inserted(
    fragment: str,
    node: Node,
    keeper: PidKeeper,
    section: str,
    pid_tags: Collection[str],
) -> str:
    """A block the proposal added, with its pid comment where one is due."""
    body = mark_inner_paragraphs(fragment, node, keeper, section)
    offered = _pid_before(node)
    offered = offered if offered in keeper.old else None
    if node.name != "p" and offered is None and node.name not in pid_tags:
        return "\n" + body
    pid = keeper.choose(section, " ".join(node.text.split()), offered)
    return f"\n<!-- {pid} -->\n{body}"


def _restore_svgs(text: str, old_body: str, old: Node) -> str:
    """The old block's SVGs put back for the placeholders the proposal echoed, in order (when
    the counts differ none can be told apart)."""
    svgs = list(outermost(old, "svg"))
    found = list(PLACEHOLDER.finditer(text))
    if not svgs or len(found) != len(svgs):
        return text
    for m, svg in reversed(list(zip(found, svgs, strict=True))):
        text = text[: m.start()] + old_body[svg.start : svg.end] + text[m.end() :]
    return text


def wrapper_rewritten(source: str, rewritten: list[Node]) -> str | None:
    """The first element the block-by-block splice would rewrite that the article cannot hold
    as written, in the old blocks it rewrites (their text in ``source``): a wrapper of blocks
    the sanitiser removes, alone (``<details>``, ``<aside>``) or with what it holds (a
    ``<form>``), or one it keeps whose start or end tag is more than its bare name (a
    ``<div style=... class=...>`` would lose its attributes: ``_bare_tags``). Blocks that
    splice keeps as written (a script, an SVG) are none of them."""
    for block in rewritten:
        if block.name in KEPT_AS_WRITTEN:
            continue
        if not _holds_block(block):
            continue  # (a block of its own: the proposal rewrites or removes it as a whole)
        wrappers = holders(block) | {id(block)}
        for node in block.iter():
            if id(node) in wrappers and (
                node.name not in ALLOWED_TAGS or not _bare_tags(source, node)
            ):
                return node.name
    return None


def _bare_tags(source: str, node: Node) -> bool:
    """Whether ``node``'s tags are written as the sanitiser writes them back: ``<name>`` and
    ``</name>`` (or none), so a rewrite keeps their bytes."""
    end = source[node.close_start : node.end]
    return source[node.start : node.open_end] == f"<{node.name}>" and end in ("", f"</{node.name}>")


def _holds_block(node: Node) -> bool:
    return any(
        n is not node and n.kind == "element" and n.name in LEAF_BLOCKS | UNWRITABLE
        for n in node.iter()
    )


def changed_unwritable(old_body: str, typed: str) -> str | None:
    """The first element an update cannot write (``UNWRITABLE``) whose text the proposal
    ``typed`` changed: one of that name the old section holds, none of whose texts it repeats
    as written (the agent edited inside a ``<form>`` or an SVG's ``foreignObject``). None when
    the section holds none of its kind (a new one is only removed, with its own warning)."""
    old_model = read_model(old_body)
    held: dict[str, set[str]] = {}
    for node in _unwritable(old_model.root):
        held.setdefault(node.name, set()).add(old_body[node.start : node.end])
    if not held:
        return None
    for node in _unwritable(read_model(typed).root):
        texts = held.get(node.name)
        if texts is not None and typed[node.start : node.end] not in texts:
            return node.name
    return None


def _unwritable(root: Node) -> Iterator[Node]:
    stack = list(reversed(root.children))
    while stack:
        n = stack.pop()
        if n.kind != "element":
            continue
        if n.name in UNWRITABLE:
            yield n
            continue
        stack.extend(reversed(n.children))
