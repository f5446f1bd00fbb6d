"""Write a changed JSON block by splicing only the values that changed.

Re-serialising a whole block for one edit reflows every array and string in it (a folded
``required_sections`` unfolds, a hand-wrapped list joins up), so a one-value contract edit reads
as a rewrite in ``git diff``. Here the old text is walked next to the old and new values: a value
that differs is replaced in place (a scalar by its token, a container by its dump, indented where
it stands), items appended to an array are inserted after its last item, and every other byte of
the block stays as it was. ``Document.with_block`` checks the result parses to the new value and
falls back to a full dump otherwise.
"""

from __future__ import annotations

import json
from typing import Any

from oo_nb.format.jsonblock import dump_block, members, skip_ws

__all__ = ["splice_json"]

_DECODER = json.JSONDecoder()
Edit = tuple[int, int, str]  # replace text[start:end] with the string


def splice_json(text: str, old: Any, new: Any, indent: str = "  ") -> str:
    """``text`` (JSON holding ``old``, with any surrounding whitespace) changed to hold ``new``.
    Raises ``ValueError`` when ``text`` is not what this walk can follow."""
    edits: list[Edit] = []
    start = skip_ws(text, 0)
    _, end = _DECODER.raw_decode(text, start)
    _diff(text, start, end, old, new, indent, edits, in_array=False)
    parts, pos = [], 0
    for s, e, replacement in sorted(edits):  # edits never overlap: one pass, linear in the text
        parts += [text[pos:s], replacement]
        pos = e
    return "".join([*parts, text[pos:]])


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON (``True`` is not ``1``, ``1`` is not ``1.0``)."""
    if isinstance(a, (dict, list)):
        return _dumps(a) == _dumps(b)
    return type(a) is type(b) and a == b


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def _diff(
    text: str,
    start: int,
    end: int,
    old: Any,
    new: Any,
    indent: str,
    edits: list[Edit],
    *,
    in_array: bool,
) -> None:
    if _same(old, new):
        return
    if isinstance(old, dict) and isinstance(new, dict) and list(old) == list(new):
        by_key = dict(members(text, start))  # a repeated key: the last one, as json.loads keeps
        for key in new:
            s, e = by_key[key]
            _diff(text, s, e, old[key], new[key], indent, edits, in_array=False)
        return
    if isinstance(old, list) and isinstance(new, list) and old and len(new) >= len(old):
        items = [span for _, span in members(text, start)]
        for i, (s, e) in enumerate(items):
            _diff(text, s, e, old[i], new[i], indent, edits, in_array=True)
        if len(new) > len(old):
            edits.append(_append(text, items[-1], new[len(old) :], indent))
        return
    edits.append((start, end, _render(new, indent, _line_indent(text, start), in_array=in_array)))


def _append(text: str, last: tuple[int, int], items: list[Any], indent: str) -> Edit:
    """Items inserted after the last one, on lines of their own when the array has them."""
    s, e = last
    line_start = text.rfind("\n", 0, s) + 1
    own_line = text[line_start:s].strip() == ""
    pad = text[line_start:s] if own_line else ""
    sep = ",\n" + pad if own_line else ", "
    return (e, e, "".join(sep + _render(item, indent, pad, in_array=True) for item in items))


def _render(value: Any, indent: str, line_indent: str, *, in_array: bool) -> str:
    return dump_block(value, indent, in_array=in_array).replace("\n", "\n" + line_indent)


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    head = text[line_start:pos]
    return head[: len(head) - len(head.lstrip(" \t"))]
