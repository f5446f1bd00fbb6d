"""Word-level highlights between two texts: runs of equal, deleted and inserted words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

__all__ = ["WordOp", "word_diff"]

# A word with the spaces after it: half as many tokens as splitting spaces apart.
_WORD = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True, slots=True)
class WordOp:
    op: Literal["=", "-", "+"]
    text: str


def word_diff(before: str, after: str) -> tuple[WordOp, ...]:
    a, b = _WORD.findall(before), _WORD.findall(after)
    ops: list[WordOp] = []
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            _push(ops, "=", "".join(a[i1:i2]))
            continue
        if i2 > i1:
            _push(ops, "-", "".join(a[i1:i2]))
        if j2 > j1:
            _push(ops, "+", "".join(b[j1:j2]))
    return tuple(ops)


def _push(ops: list[WordOp], op: Literal["=", "-", "+"], text: str) -> None:
    if ops and ops[-1].op == op:
        ops[-1] = WordOp(op, ops[-1].text + text)
    else:
        ops.append(WordOp(op, text))
