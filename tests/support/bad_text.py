"""Hostile text for the "clear errors instead of tracebacks" tests and attacks: a ``"\\ud800"``
escape planted in a block, a file name that is not UTF-8, and JSON nested hundreds deep."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from oo_nb.format.document import Document

__all__ = ["LONE_ESCAPE", "deep_list", "plant_lone_surrogate", "undecodable_name"]

LONE_ESCAPE = "\\ud800"  # as written in the file: valid JSON, half of a UTF-16 pair
_STRING_VALUE = re.compile(r':\s*"')


def plant_lone_surrogate(
    data: bytes, block: str = "oo-manifest", escape: str = LONE_ESCAPE
) -> tuple[bytes, int, int]:
    """``data`` with ``escape`` at the start of the first string value of ``block``; also the
    file line and column where the escape now is."""
    doc = Document.parse(data)
    span = doc.blocks[block]
    found = _STRING_VALUE.search(doc.text, span.start, span.end)
    assert found is not None, f"no string value in {block}"
    at = found.end()
    text = doc.text[:at] + escape + doc.text[at:]
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return text.encode("utf-8"), line, column


def undecodable_name(folder: Path, stem: bytes = b"caf\xe9") -> Path:
    """A path in ``folder`` whose file name is not UTF-8 (Latin-1 ``café``): Python holds the
    bad byte as a surrogate escape, as it does for any such name found on disk."""
    return folder / os.fsdecode(stem + b".o-o.html")


def deep_list(depth: int, leaf: Any = "x") -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value
