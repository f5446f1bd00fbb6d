"""Align two sequences of items: first by key (a pid, a heading id, a source id), then by
content, then by position. The result is one merged order of slots, each naming the item on
either side, so a merge can walk the slots and take one side per slot."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = ["Item", "Slot", "align"]

_WORD = re.compile(r"\w+")
_MIN_SIMILARITY = 0.4  # share of words two unkeyed items must have in common to pair up


@dataclass(frozen=True, slots=True)
class Item:
    key: str | None  # unique within its side, or None
    kind: str  # only items of the same kind pair up by position
    content: str  # equal content means unchanged


@dataclass(frozen=True, slots=True)
class Slot:
    """``before``/``after`` are indexes into the two sequences. A moved item appears twice:
    once with only ``before`` (its old place), once with only ``after`` (its new place), both
    with the same ``pair``."""

    before: int | None
    after: int | None
    pair: int | None = None  # for a move: the index of the partner slot


def align(before: Sequence[Item], after: Sequence[Item]) -> list[Slot]:
    sig_b = [_sig(i) for i in before]
    sig_a = [_sig(i) for i in after]
    matcher = SequenceMatcher(None, sig_b, sig_a, autojunk=False)
    slots: list[Slot] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            slots.extend(Slot(i1 + k, j1 + k) for k in range(i2 - i1))
        else:
            slots.extend(_region(before, after, range(i1, i2), range(j1, j2)))
    return _link_moves(before, after, slots)


def _sig(item: Item) -> str:
    return f"k\x00{item.key}" if item.key is not None else f"c\x00{item.kind}\x00{item.content}"


def _region(before: Sequence[Item], after: Sequence[Item], bs: range, as_: range) -> list[Slot]:
    """Pair unkeyed items of the same kind: by position when both sides hold the same run of
    kinds (edits in place), else each with its most similar successor (an insertion next to an
    edit). The rest stand alone."""
    ub = [i for i in bs if before[i].key is None]
    ua = [j for j in as_ if after[j].key is None]
    pairs: list[tuple[int, int]] = []
    if [before[i].kind for i in ub] == [after[j].kind for j in ua]:
        pairs = list(zip(ub, ua, strict=True))
    else:
        words_a = {j: _words(after[j].content) for j in ua}
        last = -1
        for i in ub:
            words_b = _words(before[i].content)
            best, best_score = -1, _MIN_SIMILARITY
            for j in ua:
                if j > last and after[j].kind == before[i].kind:
                    score = len(words_b & words_a[j]) / (len(words_b | words_a[j]) or 1)
                    if score > best_score:
                        best, best_score = j, score
            if best >= 0:
                pairs.append((i, best))
                last = best
    slots: list[Slot] = []
    bi, aj = bs.start, as_.start
    for i, j in [*pairs, (bs.stop, as_.stop)]:
        slots.extend(Slot(k, None) for k in range(bi, i))
        slots.extend(Slot(None, k) for k in range(aj, j))
        if i < bs.stop:
            slots.append(Slot(i, j))
        bi, aj = i + 1, j + 1
    return slots


def _words(content: str) -> set[str]:
    return set(_WORD.findall(content.lower()))


def _link_moves(before: Sequence[Item], after: Sequence[Item], slots: list[Slot]) -> list[Slot]:
    """A key that lost its pair on one side and appears alone on the other moved."""
    lone_b: dict[str, int] = {}
    lone_a: dict[str, int] = {}
    for n, s in enumerate(slots):
        if s.after is None and s.before is not None and before[s.before].key is not None:
            lone_b[before[s.before].key or ""] = n
        elif s.before is None and s.after is not None and after[s.after].key is not None:
            lone_a[after[s.after].key or ""] = n
    for key, nb in lone_b.items():
        na = lone_a.get(key)
        if na is not None:
            slots[nb] = Slot(slots[nb].before, None, na)
            slots[na] = Slot(None, slots[na].after, nb)
    return slots
