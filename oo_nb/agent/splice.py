"""A rewritten section's new body, spliced from its old one: every block the proposal did not
change keeps its exact text (its pid comment, ``<br/>``, the blank lines before it), and only
what changed is written anew.

The model sees the article compacted (``context.compact_article``): whitespace collapsed,
``<br/>`` as ``<br>``, some attributes gone. So "unchanged" is judged on what it saw: the tags,
their ``id``/``href``/``src``, and the text with its spacing collapsed (citations count).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection

from oo_nb.agent.sections import SVG_PLACEHOLDER, UNSEEN_TAGS, PidKeeper
from oo_nb.format.article_model import Block, Node, read_model
from oo_nb.format.vocab import PID

__all__ = ["splice_body"]

_COMPARED_ATTRS = ("id", "href", "src")
_SPACES = re.compile(r"\s+")
# tags a parser adds or drops around table rows: their presence is no change
_IGNORED_TAGS = frozenset(("tbody",))
# Blocks the agent cannot write back (never shown, or shown as a placeholder; the sanitiser
# removes them): a section it rewrites keeps them as written
_KEPT_AS_WRITTEN = UNSEEN_TAGS | {"svg", "math"}
# The SVG placeholder as the sanitiser leaves it in agent HTML (its class removed)
_PLACEHOLDER = re.compile(
    r"<span\b[^>]*>"
    + re.escape(SVG_PLACEHOLDER[SVG_PLACEHOLDER.index(">") + 1 : SVG_PLACEHOLDER.rindex("<")])
    + "</span>"
)


def _shape(node: Node, out: list[str]) -> None:
    if node.kind == "text":
        text = _SPACES.sub(" ", node.data).strip()
        if text:
            out.append(text)
        return
    if node.kind != "element":
        return
    if node.name == "svg":  # the model saw its placeholder: echoing that is no change
        out.extend(_placeholder_shape())
        return
    if node.name not in _IGNORED_TAGS:
        attrs = " ".join(f"{a}={node.attr(a)!r}" for a in _COMPARED_ATTRS if node.attr(a))
        out.append(f"<{node.name} {attrs}>")
    for child in node.children:
        _shape(child, out)
    if node.name not in _IGNORED_TAGS:
        out.append(f"</{node.name}>")


@functools.cache
def _placeholder_shape() -> tuple[str, ...]:
    return shape(read_model(SVG_PLACEHOLDER).root.children[0])


def shape(node: Node) -> tuple[str, ...]:
    """What the model saw of a block, for "is it unchanged?"."""
    out: list[str] = []
    _shape(node, out)
    return tuple(out)


def _matches(old: list[Block], new: list[Block]) -> dict[int, int]:
    """new block index -> the old block it repeats unchanged: the one with its pid first, else
    the first unused one with the same shape."""
    shapes = [shape(b.node) for b in old]
    used: set[int] = set()
    found: dict[int, int] = {}
    for j, block in enumerate(new):
        key = shape(block.node)
        same = [i for i, s in enumerate(shapes) if s == key and i not in used]
        if not same:
            continue
        pick = next((i for i in same if block.pid and old[i].pid == block.pid), same[0])
        used.add(pick)
        found[j] = pick
    return found


def _mark_inner_paragraphs(fragment: str, node: Node, keeper: PidKeeper, section: str) -> str:
    """A new block's text with a pid comment right before each ``<p>`` inside it (in a
    blockquote, a list item...), FORMAT.md's rule; one the model kept is reused or replaced."""
    edits: list[tuple[int, int, str]] = []
    for parent in node.iter():
        kids = [c for c in parent.children if not (c.kind == "text" and not c.data.strip())]
        for k, child in enumerate(kids):
            if child is node or child.kind != "element" or child.name != "p":
                continue
            prev = kids[k - 1] if k else None
            offered = prev.data.strip() if prev is not None and prev.kind == "comment" else None
            text = _SPACES.sub(" ", child.text).strip()
            pid = keeper.choose(section, text, offered if offered in keeper.old else None)
            if prev is not None and prev.kind == "comment" and PID.match(prev.data):
                edits.append((prev.start, prev.end, f"<!-- {pid} -->"))
            else:
                edits.append((child.start, child.start, f"<!-- {pid} -->\n"))
    out = fragment[node.start : node.end]
    for start, end, text in sorted(edits, reverse=True):
        out = out[: start - node.start] + text + out[end - node.start :]
    return out


def splice_body(
    old_body: str, fragment: str, keeper: PidKeeper, section: str, pid_tags: Collection[str]
) -> str:
    """``old_body``: the section's text after its heading, as written; ``fragment``: the
    proposal's sanitised body (pid comments it kept included). A new block gets a pid comment
    when it is a ``<p>``, when the model kept one for it, or when the document marks blocks of
    its kind with one (``pid_tags``)."""
    old_model, new_model = read_model(old_body), read_model(fragment)
    old, new = list(old_model.blocks), list(new_model.blocks)
    kept = _matches(old, new)
    for pid in (old[i].pid for i in kept.values()):
        if pid:
            keeper.taken.add(pid)
            keeper.kept += 1
    leads = {b.pid: old_body[b.lead_start : b.start] for b in old if b.pid}
    before, after = _unseen_places(old, new, kept)
    for i in (i for places in (before, after) for at in places.values() for i in at):
        if pid := old[i].pid:  # (kept where it was, so its pid is taken)
            keeper.taken.add(pid)

    def as_written(at: list[int]) -> list[str]:
        return [old_body[old[i].lead_start : old[i].end] for i in at]

    parts = as_written(before.get(-1, []))
    written: list[int] = []  # where the new blocks' text is in ``parts``
    for j, block in enumerate(new):
        parts += as_written(before.get(j, []))
        if j in kept:
            b = old[kept[j]]
            parts.append(old_body[b.lead_start : b.end])
        else:
            written.append(len(parts))
            parts.append(_new_block(fragment, block, leads, keeper, section, pid_tags))
        parts += as_written(after.get(j, []))
    parts += as_written(after.get(-1, []))
    matched = set(kept.values())
    _restore_svgs(parts, written, old_body, [b for i, b in enumerate(old) if i not in matched])
    return "".join(parts) + (old_body[old[-1].end :] if old else "\n\n")


def _restore_svgs(
    parts: list[str], written: list[int], old_body: str, changed: list[Block]
) -> None:
    """The SVGs of the old blocks the proposal changed, put back for the placeholders it echoed
    in the blocks it wrote (``context`` shows the agent each SVG as one), in order; when the
    counts differ no placeholder can be told apart, and they stay as written."""
    svgs = [n for b in changed if b.tag not in _KEPT_AS_WRITTEN for n in _outermost(b.node, "svg")]
    found = [(k, m) for k in written for m in _PLACEHOLDER.finditer(parts[k])]
    if not svgs or len(found) != len(svgs):
        return
    for (k, m), svg in reversed(list(zip(found, svgs, strict=True))):
        parts[k] = parts[k][: m.start()] + old_body[svg.start : svg.end] + parts[k][m.end() :]


def _outermost(node: Node, name: str) -> list[Node]:
    """The ``name`` elements in ``node`` that are in no other one, in order."""
    out: list[Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.kind != "element":
            continue
        if n.name == name:
            out.append(n)
            continue
        stack.extend(reversed(n.children))
    return out


def _unseen_places(
    old: list[Block], new: list[Block], kept: dict[int, int]
) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Where each old block the agent cannot write (``_KEPT_AS_WRITTEN``) and did not echo goes
    among the ``new`` blocks:
    right after the new place of the nearest old block before it (kept, or rewritten under its
    pid), else right before that of the nearest one after it, else where it was (first or
    last). As (new index -> old blocks written before it, new index -> after it); -1 is the
    body's start in the first, its end in the second."""
    place = {i: j for j, i in kept.items()}
    old_at = {b.pid: i for i, b in enumerate(old) if b.pid}
    for j, block in enumerate(new):
        i = old_at.get(block.pid or "")
        if i is not None and j not in kept:
            place.setdefault(i, j)
    before: dict[int, list[int]] = {}
    after: dict[int, list[int]] = {}
    for i, block in enumerate(old):
        if block.tag not in _KEPT_AS_WRITTEN or i in place:
            continue
        prev = next((place[k] for k in range(i - 1, -1, -1) if k in place), None)
        if prev is not None:
            after.setdefault(prev, []).append(i)
            continue
        nxt = next((place[k] for k in range(i + 1, len(old)) if k in place), None)
        if nxt is not None:
            before.setdefault(nxt, []).append(i)
        elif all(b.tag in _KEPT_AS_WRITTEN for b in old[:i]) and new:
            before.setdefault(-1, []).append(i)  # (it led the section: it still does)
        else:
            after.setdefault(-1, []).append(i)
    return before, after


def _new_block(
    fragment: str,
    block: Block,
    leads: dict[str, str],
    keeper: PidKeeper,
    section: str,
    pid_tags: Collection[str],
) -> str:
    """A block the proposal changed or added, with its pid comment where one is due."""
    body = _mark_inner_paragraphs(fragment, block.node, keeper, section)
    offered = block.pid if block.pid in keeper.old else None
    if block.tag != "p" and offered is None and block.tag not in pid_tags:
        return "\n" + body
    text = _SPACES.sub(" ", block.node.text).strip()
    pid = keeper.choose(section, text, offered)
    return leads.get(pid, f"\n<!-- {pid} -->\n") + body
