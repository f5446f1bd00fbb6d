"""Control, bidi and zero-width characters (``vocab.UNSAFE_CHARS``) already in a document, where a
reader meets them: the article's text and attribute values (a right-to-left override makes the
page show "$0.50" where the text, and so oo_nb's frames, quotes and search, hold "05.0$") and the
strings of the JSON blocks (the title, contract and changelog the page shows; the source titles
and facts the frames, the review and the next References entries show). ``oo check`` and the
audit report them (``unsafe-text``); agent HTML never brings new ones (``sanitize.sanitize_html``).

The article is read as a browser reads it (``html_tokens``): character references count as the
characters they stand for, comments do not count, and CR is a line end, not a character.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from html.entities import html5
from typing import Any

from oo_nb.format.html_tokens import tokenize
from oo_nb.format.vocab import UNSAFE_CHARS, terminal_safe, unsafe_found

__all__ = ["article_unsafe_lines", "block_unsafe_fields", "unsafe_fields"]


@functools.cache
def _references() -> re.Pattern[str]:
    """A numeric character reference, or a named one that stands for an unsafe character (such
    as ``&rlm;``)."""
    names = sorted(n for n, v in html5.items() if UNSAFE_CHARS.search(v))
    named = "|".join(re.escape(n) for n in names)
    return re.compile(f"&#([xX][0-9a-fA-F]+|[0-9]+)|&(?:{named})")


@functools.cache
def _encodings() -> tuple[bytes, dict[int, frozenset[bytes]]]:
    """``UNSAFE_CHARS`` in UTF-8 (CR aside): the bytes that start none of its characters'
    encodings, and those encodings by their first byte. (Every unsafe character is in the BMP:
    the class is read once over it, a few ms.)"""
    bmp = "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x10000)))
    by_lead: dict[int, set[bytes]] = {}
    for char in UNSAFE_CHARS.findall(bmp):
        if char != "\r":
            encoded = char.encode()
            by_lead.setdefault(encoded[0], set()).add(encoded)
    others = bytes(b for b in range(256) if b not in by_lead)
    return others, {lead: frozenset(found) for lead, found in by_lead.items()}


_LEADS_LOOKED_AT = 256  # past this many candidate bytes the character class reads the text


def _holds_one(text: str) -> bool:
    """Whether ``text`` holds an unsafe character (CR aside), read in its UTF-8: the bytes that
    start no unsafe character's encoding are deleted in one pass of C (a character class costs
    ``re`` ~12 ns a character, this ~4 ns a byte), and where one of those that are left stands
    its encoding is looked at (an em dash starts with the byte a bidi control does)."""
    data = text.encode("utf-8", "surrogatepass")
    others, by_lead = _encodings()
    leads = data.translate(None, others)
    if len(leads) > _LEADS_LOOKED_AT:  # (Arabic text: a byte of each letter)
        return any(m.group() != "\r" for m in UNSAFE_CHARS.finditer(text))
    for lead in set(leads):
        encodings = by_lead[lead]
        if lead < 0x80:
            return True  # a control character (its encoding is the byte)
        at = data.find(lead)
        while at >= 0:
            if data[at : at + 2] in encodings or data[at : at + 3] in encodings:
                return True
            at = data.find(lead, at + 1)
    return False


def _may_hold_one(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` may hold an unsafe character a browser reads: the character
    (CR aside: a line end to a browser) or a reference to one. A quick test, mostly in C, before
    the article is tokenized; it may say yes where the tokenizer then finds none."""
    if _holds_one(text[start:end]):
        return True
    for m in _references().finditer(text, start, end):
        digits = m.group(1)
        if digits is None or len(digits) > 8:
            return True  # a named one, or past U+10FFFF (int() refuses thousands of digits)
        code = int(digits[1:], 16) if digits[0] in "xX" else int(digits)
        if code > 0x10FFFF or UNSAFE_CHARS.match(chr(code)):
            return True
    return False


def article_unsafe_lines(
    text: str, start: int, end: int, line_of: Callable[[int], int]
) -> list[tuple[int, list[str]]]:
    """``(line, characters)`` for each line of ``text[start:end]`` (the article) whose text or
    attribute values hold unsafe characters, escaped as ``vocab.unsafe_found`` names them;
    ``line_of`` turns an offset into its line (``Document.line_of``)."""
    if not _may_hold_one(text, start, end):
        return []
    lines: dict[int, list[str]] = {}
    for offset, value in _values(text, start, end):
        m = UNSAFE_CHARS.search(value)
        if m is None:
            continue
        line = line_of(offset) + value.count("\n", 0, m.start())
        lines.setdefault(line, []).extend(unsafe_found(value))
    return [(line, list(dict.fromkeys(names))) for line, names in sorted(lines.items())]


def _values(text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    """Each text run and attribute value a browser reads, decoded, with where it starts."""
    for token in tokenize(text, start, end):
        if token.kind == "text":
            yield token.start, token.data
        elif token.kind == "start":
            for attr in token.attrs:
                yield attr.value_start, attr.value


def block_unsafe_fields(text: str, value: Any) -> list[tuple[str, list[str]]]:
    """``unsafe_fields`` of a JSON block parsed into ``value`` from ``text``: most blocks hold
    none, which a look at the text (mostly in C) tells before their strings are walked."""
    if not _json_may_hold_one(text):
        return []
    return unsafe_fields(value)


@functools.cache
def _json_escapes() -> re.Pattern[str]:
    """A JSON escape that stands for an unsafe character (``\u202e``, ``\b``...)."""
    chars = [chr(c) for c in range(0x10000) if UNSAFE_CHARS.match(chr(c))]
    hexes = "|".join(f"{ord(c):04x}" for c in chars)
    return re.compile(rf"\\(?:[bfr]|u(?i:{hexes}))")


def _json_may_hold_one(text: str) -> bool:
    """Whether JSON ``text`` may hold an unsafe character in a string: written as it is (CR
    aside: a line end between tokens) or as an escape. Two searches in C for most blocks."""
    for m in UNSAFE_CHARS.finditer(text):
        if m.group() != "\r":
            return True
    return _json_escapes().search(text) is not None


def unsafe_fields(value: Any, path: str = "") -> list[tuple[str, list[str]]]:
    """``(field, characters)`` for each string of a block's JSON (its keys too) holding unsafe
    characters; the field named as ``title`` or ``entries[0].summary``."""
    found: list[tuple[str, list[str]]] = []
    if isinstance(value, str):
        names = unsafe_found(value)
        if names:
            found.append((path or "(the block)", names))
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{terminal_safe(str(key))}" if path else terminal_safe(str(key))
            if isinstance(key, str) and unsafe_found(key):
                found.append((f"{where} (key)", unsafe_found(key)))
            found += unsafe_fields(item, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += unsafe_fields(item, f"{path}[{i}]")
    return found
