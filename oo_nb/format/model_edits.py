"""Edits of HTML read through the article model (``article_model``): a splice at the byte spans
of its nodes, so that every byte no edit names stays as it was written."""

from __future__ import annotations

import re

__all__ = ["IMG_START", "spliced"]

# the cheap test before a fragment is read: no "<img" (any case), no image element in it
IMG_START = re.compile(r"<img\b", re.IGNORECASE)


def spliced(text: str, edits: dict[int, tuple[int, str]]) -> str:
    """``text`` with each span ``start..end`` (``edits``: start -> (end, replacement)) replaced;
    a span inside an earlier one (an image inside a figure that goes) is left to it."""
    out: list[str] = []
    at = 0
    for start in sorted(edits):
        end, replacement = edits[start]
        if start < at:
            continue
        out += [text[at:start], replacement]
        at = end
    out.append(text[at:])
    return "".join(out)
