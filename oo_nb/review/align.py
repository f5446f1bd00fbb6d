"""Align two sequences of items: first by key (a pid, a heading id, a source id), then by
content, then by position. The result is one merged order of slots, each naming the item on
either side, so a merge can walk the slots and take one side per slot."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = ["Item", "Slot", "align"]


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


def _region(
    before: Sequence[Item], after: Sequence[Item], bs: range, as_: range
) -> list[Slot]:
    """Pair unkeyed items of the same kind in order ("then position"); the rest stand alone."""
    pairs: list[tuple[int, int]] = []
    used: set[int] = set()
    for i in bs:
        if before[i].key is not None:
            continue
        for j in as_:
            if j not in used and after[j].key is None and after[j].kind == before[i].kind:
                if pairs and j < pairs[-1][1]:
                    continue  # keep pairs in order on both sides
                pairs.append((i, j))
                used.add(j)
                break
    slots: list[Slot] = []
    bi, aj = bs.start, as_.start
    for i, j in [*pairs, (bs.stop, as_.stop)]:
        slots.extend(Slot(k, None) for k in range(bi, i))
        slots.extend(Slot(None, k) for k in range(aj, j))
        if i < bs.stop:
            slots.append(Slot(i, j))
        bi, aj = i + 1, j + 1
    return slots


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
