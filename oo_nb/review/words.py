"""Word-level highlights between two texts: runs of equal, deleted and inserted words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

__all__ = ["WordOp", "word_diff"]

# A word with the spaces before it: half as many tokens as splitting spaces apart, and a word
# added at the end of a sentence leaves the sentence's last word equal.
_WORD = re.compile(r"\s*\S+|\s+")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


@dataclass(frozen=True, slots=True)
class WordOp:
    op: Literal["=", "-", "+"]
    text: str


def _sentences(text: str) -> list[str]:
    cuts = [m.end() for m in _SENTENCE_END.finditer(text)]
    return [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True) if j > i]


def word_diff(before: str, after: str) -> tuple[WordOp, ...]:
    """Sentences are matched first, then words inside the sentences that differ: a paragraph
    edited in several places costs a few small word matches instead of one large one."""
    a, b = _sentences(before), _sentences(after)
    if len(a) <= 1 or len(b) <= 1:
        return _words(before, after)
    ops: list[WordOp] = []
    key_a, key_b = [x.strip() for x in a], [x.strip() for x in b]  # spacing is no change
    for _, i1, i2, j1, j2 in SequenceMatcher(None, key_a, key_b, autojunk=False).get_opcodes():
        for op in _words("".join(a[i1:i2]), "".join(b[j1:j2])):
            _push(ops, op.op, op.text)
    return tuple(ops)


def _words(before: str, after: str) -> tuple[WordOp, ...]:
    a, b = _WORD.findall(before), _WORD.findall(after)
    # An edit usually touches a small part: match the common head and tail directly, so the
    # quadratic matcher only sees the middle.
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    ops: list[WordOp] = []
    _push(ops, "=", "".join(a[:head]))
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    matcher = SequenceMatcher(None, mid_a, mid_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            _push(ops, "=", "".join(mid_a[i1:i2]))
            continue
        _push(ops, "-", "".join(mid_a[i1:i2]))
        _push(ops, "+", "".join(mid_b[j1:j2]))
    _push(ops, "=", "".join(a[len(a) - tail :]))
    return tuple(ops)


def _push(ops: list[WordOp], op: Literal["=", "-", "+"], text: str) -> None:
    if not text:
        return
    if ops and ops[-1].op == op:
        ops[-1] = WordOp(op, ops[-1].text + text)
    else:
        ops.append(WordOp(op, text))
