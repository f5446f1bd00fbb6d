"""Lone surrogates: text a Python ``str`` can hold but no UTF-8 file, page or terminal can take.

They arrive three ways: a JSON ``"\\ud800"`` escape (half of a UTF-16 pair, decoded alone), bytes
that were not UTF-8 in a file name or a command-line argument (Python keeps each bad byte as
``\\udc80``-``\\udcff``, a "surrogate escape"), and untrusted text built in memory (agent output).
Every writer and printer fails on them later, far from the cause; these helpers find them early,
show them readably and replace them where the text must be kept."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["LONE_SURROGATE", "REPLACEMENT", "encodable", "escaped", "replaced", "scrub"]

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"  # what a reader shows for a character that could not be decoded


def encodable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8. Encoding is the fast test (C, about six times
    faster than searching for the characters); ASCII needs none."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def replaced(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (for showing it)."""
    return text if encodable(text) else LONE_SURROGATE.sub(REPLACEMENT, text)


def escaped(text: str) -> str:
    """``text`` with each lone surrogate written out: ``\\xff`` for a byte that was not UTF-8
    (a surrogate escape), ``\\ud800`` for any other, so an error can name what the user typed."""
    if encodable(text):
        return text

    def one(m: re.Match[str]) -> str:
        code = ord(m.group(0))
        return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"

    return LONE_SURROGATE.sub(one, text)


def scrub(value: Any, path: str = "") -> tuple[Any, list[str]]:
    """A JSON value with every lone surrogate in its strings (keys too) replaced by U+FFFD, and
    the paths of the strings that changed (``sections[0].html``). Untouched containers are
    returned as they are; the walk is iterative (a hostile value may be nested deeply)."""
    changed: list[str] = []
    if isinstance(value, str):
        if not encodable(value):
            changed.append(path or "(the value)")
            return replaced(value), changed
        return value, changed
    if not isinstance(value, (dict, list)):
        return value, changed
    if _all_encodable(value):
        return value, changed
    root: list[Any] = [None]
    # (source container, where its copy goes: parent copy and key, path)
    stack: list[tuple[Any, Any, Any, str]] = [(value, root, 0, path)]
    while stack:
        source, parent, slot, where = stack.pop()
        if isinstance(source, dict):
            copy: Any = {}
            for key, item in source.items():
                new_key = key
                if isinstance(key, str) and not encodable(key):
                    new_key = replaced(key)
                    changed.append(_join(where, new_key) + " (key)")
                copy[new_key] = _leaf(item, _join(where, new_key), changed, stack, copy, new_key)
        else:
            copy = [None] * len(source)
            for i, item in enumerate(source):
                copy[i] = _leaf(item, f"{where}[{i}]", changed, stack, copy, i)
        parent[slot] = copy
    return root[0], changed


def _leaf(
    item: Any, where: str, changed: list[str], stack: list[Any], parent: Any, slot: Any
) -> Any:
    if isinstance(item, str):
        if encodable(item):
            return item
        changed.append(where)
        return replaced(item)
    if isinstance(item, (dict, list)):
        stack.append((item, parent, slot, where))
        return None  # filled in when the container is copied
    return item


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def _all_encodable(value: Any) -> bool:
    """True when no string in ``value`` holds a lone surrogate (iterative, no copies)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not encodable(item):
                return False
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and not encodable(key):
                    return False
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)
    return True
