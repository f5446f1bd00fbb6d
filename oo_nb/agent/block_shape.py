"""What the model saw of a block, for "is it unchanged?", and a new block's text with its inner
pid comments: shared by the block-by-block splice (``splice``) and the one that edits inside
wrappers (``nested_splice``).

The model sees the article compacted (``context.compact_article``): whitespace collapsed,
``<br/>`` as ``<br>``, some attributes gone. So "unchanged" is judged on what it saw: the tags,
their ``id``/``href``/``src``, and the text with its spacing collapsed (citations count).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from oo_nb.agent.sections import SVG_PLACEHOLDER, UNSEEN_TAGS, PidKeeper
from oo_nb.format.article_model import Node, read_model
from oo_nb.format.vocab import PID, comment_pid

__all__ = [
    "KEPT_AS_WRITTEN",
    "PLACEHOLDER",
    "in_newlines_of",
    "mark_inner_paragraphs",
    "outermost",
    "placeholder_shape",
    "shape",
]

# Blocks the agent cannot write back (never shown, or shown as a placeholder; the sanitiser
# removes them): a section it rewrites keeps them as written
KEPT_AS_WRITTEN = UNSEEN_TAGS | {"svg", "math"}
_COMPARED_ATTRS = ("id", "href", "src")
_SPACES = re.compile(r"\s+")
# tags a parser adds or drops around table rows: their presence is no change
_IGNORED_TAGS = frozenset(("tbody",))
# The SVG placeholder as the sanitiser leaves it in agent HTML (its class removed)
PLACEHOLDER = re.compile(
    r"<span\b[^>]*>"
    + re.escape(SVG_PLACEHOLDER[SVG_PLACEHOLDER.index(">") + 1 : SVG_PLACEHOLDER.rindex("<")])
    + "</span>"
)


def _shape(node: Node, out: list[str], kept: frozenset[str] | None) -> None:
    # (a stack of nodes and end tags still to write, not recursion: an article may nest
    # thousands of elements deep)
    todo: list[Node | str] = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
        elif item.kind == "text":
            text = _SPACES.sub(" ", item.data).strip()
            if text:
                out.append(text)
        elif item.kind != "element":
            continue
        elif item.name == "svg":  # the model saw its placeholder: echoing that is no change
            out.extend(placeholder_shape())
        else:
            tagged = item.name not in _IGNORED_TAGS and (kept is None or item.name in kept)
            if tagged:
                attrs = " ".join(f"{a}={item.attr(a)!r}" for a in _COMPARED_ATTRS if item.attr(a))
                out.append(f"<{item.name} {attrs}>")
                todo.append(f"</{item.name}>")
            todo.extend(reversed(item.children))


@functools.cache
def placeholder_shape() -> tuple[str, ...]:
    return shape(read_model(SVG_PLACEHOLDER).root.children[0])


def shape(node: Node, kept: frozenset[str] | None = None) -> tuple[str, ...]:
    """What the model saw of a block, for "is it unchanged?"; with ``kept``, only the tags of
    those elements count (the others are the sanitiser's to remove: their text stays)."""
    out: list[str] = []
    _shape(node, out, kept)
    return tuple(out)


def mark_inner_paragraphs(fragment: str, node: Node, keeper: PidKeeper, section: str) -> str:
    """A new block's text with a pid comment right before each ``<p>`` inside it (in a
    blockquote, a list item...), FORMAT.md's rule; one the model kept is reused or replaced."""
    edits: list[tuple[int, int, str]] = []
    for parent in node.iter():
        kids = [c for c in parent.children if not (c.kind == "text" and not c.data.strip())]
        for k, child in enumerate(kids):
            if child is node or child.kind != "element" or child.name != "p":
                continue
            prev = kids[k - 1] if k else None
            offered = (
                comment_pid(prev.data) if prev is not None and prev.kind == "comment" else None
            )
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


_BARE_LF = re.compile(r"(?<!\r)\n")


def in_newlines_of(old: str, new: str) -> str:
    """``new`` (text a splice writes) with the line endings of ``old``: CR LF where ``old``
    ends every line so (an article written on Windows), else as it is."""
    if "\r\n" not in old or _BARE_LF.search(old) is not None:
        return new
    return _BARE_LF.sub("\r\n", new)


def outermost(node: Node, name: str) -> Iterator[Node]:
    """The ``name`` elements in ``node`` that are in no other one, in order."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.kind != "element":
            continue
        if n.name == name:
            yield n
            continue
        stack.extend(reversed(n.children))
