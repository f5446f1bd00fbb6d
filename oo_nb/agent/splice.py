"""A rewritten section's new body, spliced from its old one: every block the proposal did not
change keeps its exact text (its pid comment, ``<br/>``, the blank lines before it), and only
what changed is written anew.

"Unchanged" is judged on what the model saw (``block_shape``). A section whose blocks sit in
wrappers (a ``<details>``, a ``<div>`` with attributes, a table cell) is edited inside them
(``nested_splice``); where that cannot be done and the splice here would rewrite a wrapper the
article cannot hold as written, ``SpliceRefused`` names it.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from oo_nb.agent.block_shape import (
    KEPT_AS_WRITTEN,
    PLACEHOLDER,
    in_newlines_of,
    mark_inner_paragraphs,
    outermost,
    shape,
)
from oo_nb.agent.nested_splice import SpliceRefused, splice_nested, wrapper_rewritten
from oo_nb.agent.sections import PidKeeper
from oo_nb.format.article_model import Block, read_model

__all__ = ["SpliceRefused", "splice_body"]

_SPACES = re.compile(r"\s+")


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


def splice_body(
    old_body: str, fragment: str, keeper: PidKeeper, section: str, pid_tags: Collection[str]
) -> str:
    """``old_body``: the section's text after its heading, as written; ``fragment``: the
    proposal's sanitised body (pid comments it kept included). A new block gets a pid comment
    when it is a ``<p>``, when the model kept one for it, or when the document marks blocks of
    its kind with one (``pid_tags``)."""
    nested = splice_nested(old_body, fragment, keeper, section, pid_tags)
    if nested is not None:
        return nested
    old_model, new_model = read_model(old_body), read_model(fragment)
    old, new = list(old_model.blocks), list(new_model.blocks)
    kept = _matches(old, new)
    matched = set(kept.values())
    rewritten = [b.node for i, b in enumerate(old) if i not in matched]
    elements = [n for n in rewritten if n.kind == "element"]
    if (element := wrapper_rewritten(old_body, elements)) is not None:
        raise SpliceRefused(element)
    for pid in (old[i].pid for i in kept.values()):
        if pid:
            keeper.taken.add(pid)
            keeper.kept += 1
    # (a block's lead, when it writes its pid: not one whose pid is its data-pid attribute)
    leads = {
        b.pid: lead for b in old if b.pid and b.pid in (lead := old_body[b.lead_start : b.start])
    }
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
            new_block = _new_block(fragment, block, leads, keeper, section, pid_tags)
            parts.append(in_newlines_of(old_body, new_block))
        parts += as_written(after.get(j, []))
    parts += as_written(after.get(-1, []))
    _restore_svgs(parts, written, old_body, [b for i, b in enumerate(old) if i not in matched])
    return "".join(parts) + (old_body[old[-1].end :] if old else "\n\n")


def _restore_svgs(
    parts: list[str], written: list[int], old_body: str, changed: list[Block]
) -> None:
    """The SVGs of the old blocks the proposal changed, put back for the placeholders it echoed
    in the blocks it wrote (``context`` shows the agent each SVG as one), in order; when the
    counts differ no placeholder can be told apart, and they stay as written."""
    svgs = [n for b in changed if b.tag not in KEPT_AS_WRITTEN for n in outermost(b.node, "svg")]
    found = [(k, m) for k in written for m in PLACEHOLDER.finditer(parts[k])]
    if not svgs or len(found) != len(svgs):
        return
    for (k, m), svg in reversed(list(zip(found, svgs, strict=True))):
        parts[k] = parts[k][: m.start()] + old_body[svg.start : svg.end] + parts[k][m.end() :]


def _unseen_places(
    old: list[Block], new: list[Block], kept: dict[int, int]
) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Where each old block the agent cannot write (``KEPT_AS_WRITTEN``) and did not echo goes
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
        if block.tag not in KEPT_AS_WRITTEN or i in place:
            continue
        prev = next((place[k] for k in range(i - 1, -1, -1) if k in place), None)
        if prev is not None:
            after.setdefault(prev, []).append(i)
            continue
        nxt = next((place[k] for k in range(i + 1, len(old)) if k in place), None)
        if nxt is not None:
            before.setdefault(nxt, []).append(i)
        elif all(b.tag in KEPT_AS_WRITTEN for b in old[:i]) and new:
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
    body = mark_inner_paragraphs(fragment, block.node, keeper, section)
    offered = block.pid if block.pid in keeper.old else None
    if block.tag != "p" and offered is None and block.tag not in pid_tags:
        return "\n" + body
    text = _SPACES.sub(" ", block.node.text).strip()
    pid = keeper.choose(section, text, offered)
    return leads.get(pid, f"\n<!-- {pid} -->\n") + body
