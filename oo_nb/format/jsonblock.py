"""JSON inside ``<script type="application/json">``: strict parsing and safe, readable dumping."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from oo_nb.errors import BlockError, OOError
from oo_nb.format.surrogates import LONE_SURROGATE, encodable

__all__ = [
    "MAX_DEPTH",
    "depth_exceeds",
    "describe_unencodable",
    "dump_block",
    "key_path",
    "locate_error",
    "members",
    "parse_block",
    "skip_ws",
    "too_deep",
    "unencodable_offset",
    "value_offset",
]

_INLINE_WIDTH = 100
MAX_DEPTH = 64


def parse_block(
    text: str, *, block: str, file: str | None = None, first_line: int = 1, first_column: int = 1
) -> Any:
    """Parse a block's JSON; errors name the file line and column (``first_line`` and
    ``first_column`` are where the block's text starts in the file: the block's first line
    usually begins after ``<script …>``, so its columns are shifted by that much)."""
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise BlockError(
            f"invalid JSON: nested deeper than {MAX_DEPTH} levels",
            file=file,
            block=block,
            line=first_line,
        ) from None
    except json.JSONDecodeError as exc:
        column = exc.colno if exc.lineno > 1 else exc.colno + first_column - 1
        raise BlockError(
            f"invalid JSON: {exc.msg}",
            file=file,
            block=block,
            line=first_line + exc.lineno - 1,
            column=column,
        ) from None
    except ValueError as exc:  # NaN / Infinity, which JSON does not allow
        raise BlockError(str(exc), file=file, block=block, line=first_line) from None
    # "\ud800" is valid JSON but decodes to half a UTF-16 pair, which no UTF-8 file can hold:
    # every later write, print or page would fail on it. Refused here, where every reader
    # decodes a block, so all of them (check, show, the library, the index) agree.
    bad = unencodable_offset(text)
    if bad is not None:
        line, column = _position(text, bad, first_line, first_column)
        raise BlockError(
            f"invalid JSON: {describe_unencodable(text, bad)}",
            file=file,
            block=block,
            line=line,
            column=column,
        )
    # Copying, dumping and reading the views recurse once per level: a hostile block nested
    # hundreds deep would end in RecursionError there. Real blocks are a few levels deep.
    # Deeper than MAX_DEPTH needs more than MAX_DEPTH opening brackets: skip the walk otherwise.
    if text.count("[") + text.count("{") > MAX_DEPTH and depth_exceeds(value, MAX_DEPTH):
        raise BlockError(
            f"invalid JSON: nested deeper than {MAX_DEPTH} levels",
            file=file,
            block=block,
            line=first_line,
        )
    return value


# A "\uD800".."\uDFFF" escape: the only way valid JSON text from a UTF-8 file gets a surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_STRING_PIECE = re.compile(r"\\u([0-9a-fA-F]{4})|\\.|[^\\]+", re.DOTALL)


def _suspect(text: str) -> bool:
    """Whether ``text`` may hold a lone surrogate (two regex searches, the second only for
    non-ASCII text; real blocks almost never get past it)."""
    return _SURROGATE_ESCAPE.search(text) is not None or not encodable(text)


def unencodable_offset(text: str) -> int | None:
    """Offset in ``text`` (valid JSON) of the first string character that decodes to a lone
    surrogate (an unpaired ``\\ud800``-``\\udfff`` escape, or such a character itself in text
    built in memory), or None when every string can be written as UTF-8. A proper pair
    (``\\ud83d\\ude00``, one emoji) is fine."""
    if not _suspect(text):
        return None
    for m in _STRING.finditer(text):  # valid JSON: every '"' outside a string opens one
        token = m.group(0)
        if _suspect(token):
            at = _lone_surrogate(token)
            if at is not None:
                return m.start() + at
    return None


def _lone_surrogate(token: str) -> int | None:
    high: int | None = None  # a high-half escape waiting for its low half
    for m in _STRING_PIECE.finditer(token):
        code = int(m.group(1), 16) if m.group(1) else None
        if high is not None:
            if code is not None and 0xDC00 <= code <= 0xDFFF:
                high = None
                continue
            return high
        if code is not None:
            if 0xD800 <= code <= 0xDBFF:
                high = m.start()
            elif 0xDC00 <= code <= 0xDFFF:
                return m.start()
        elif (raw := LONE_SURROGATE.search(m.group(0))) is not None:
            return m.start() + raw.start()
    return high


def describe_unencodable(text: str, offset: int) -> str:
    """What is wrong at ``offset`` (from ``unencodable_offset``), in words."""
    shown = text[offset : offset + 6] if text[offset] == "\\" else f"\\u{ord(text[offset]):04x}"
    return (
        f"{shown} is a lone surrogate (half of a UTF-16 pair), which cannot be written as "
        "UTF-8; remove it or write the character itself"
    )


def _position(text: str, offset: int, first_line: int, first_column: int) -> tuple[int, int]:
    """File line and column of ``offset`` in a block's text that starts at ``first_line``,
    ``first_column`` (only its first line is shifted by the ``<script …>`` before it)."""
    line_start = text.rfind("\n", 0, offset) + 1
    column = offset - line_start + 1 + (first_column - 1 if line_start == 0 else 0)
    return first_line + text.count("\n", 0, offset), column


_PATH_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")
_DECODER = json.JSONDecoder()


def skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\n\r":
        pos += 1
    return pos


def key_path(key: str) -> list[str | int]:
    """``"facts[3].source"`` -> ``["facts", 3, "source"]`` (the key names our errors use)."""
    return [
        int(m.group(1)) if m.group(1) is not None else m.group(2) for m in _PATH_PART.finditer(key)
    ]


def value_offset(text: str, path: Sequence[str | int]) -> int | None:
    """Offset in ``text`` (one JSON value) of the value at ``path``: object keys and list
    indexes. When a key is absent, the offset of the deepest object or list reached (where the
    key belongs). None when ``text`` is not JSON this scan can follow. Only used to locate an
    error, so it re-decodes skipped values rather than keeping a position table for every read."""
    pos = skip_ws(text, 0)
    try:
        for part in path:
            found = _member(text, pos, part)
            if found is None:
                return pos
            pos = found
    except (ValueError, IndexError):
        return None
    return pos


def _member(text: str, pos: int, part: str | int) -> int | None:
    """Offset of member ``part`` of the object or list starting at ``pos`` (the last one when
    an object repeats a key, as ``json.loads`` keeps the last), or None."""
    opener = text[pos]
    if opener not in "{[" or (opener == "{") != isinstance(part, str):
        return None
    found = None
    for key, (start, _end) in members(text, pos):
        if key == part:
            found = start
    return found


def members(text: str, pos: int) -> list[tuple[str | int, tuple[int, int]]]:
    """(key, or index in a list; (start, end) of the value) for each member of the object or
    list whose opening bracket is at ``pos``. Raises ``ValueError`` on text that is not JSON."""
    opener = text[pos]
    out: list[tuple[str | int, tuple[int, int]]] = []
    pos = skip_ws(text, pos + 1)
    while text[pos] not in "}]":
        key: str | int = len(out)
        if opener == "{":
            if text[pos] != '"':
                raise ValueError("expected a key")
            key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
            pos = skip_ws(text, pos)
            if text[pos] != ":":
                raise ValueError("expected ':'")
            pos = skip_ws(text, pos + 1)
        _, end = _DECODER.raw_decode(text, pos)
        out.append((key, (pos, end)))
        pos = skip_ws(text, end)
        if text[pos] == ",":
            pos = skip_ws(text, pos + 1)
    return out


def locate_error(exc: OOError, text: str, *, first_line: int = 1, first_column: int = 1) -> OOError:
    """``exc`` (an error about ``exc.key`` in a block whose JSON is ``text``) with the line and
    column of that key's value filled in, when it has none yet and the key can be found."""
    if exc.line is not None or not exc.key:
        return exc
    offset = value_offset(text, key_path(exc.key))
    if offset is None:
        return exc
    exc.line, exc.column = _position(text, offset, first_line, first_column)
    exc.args = (exc._compose(),)
    return exc


def depth_exceeds(value: Any, limit: int) -> bool:
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((v, depth + 1) for v in children if isinstance(v, (dict, list)))
    return False


def too_deep(value: Any, limit: int, *, shown_parts: int = 6) -> str | None:
    """The key path (``sources[0].title[0][0]…``) of the first object or list nested deeper
    than ``limit`` levels in ``value``, or None. Iterative: a hostile value may be nested far
    deeper than Python's recursion limit. Only the first ``shown_parts`` parts are named
    (``depth_exceeds`` answers the same question faster, without the path)."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = (
        [(value, ())] if isinstance(value, (dict, list)) else []
    )
    while stack:
        item, path = stack.pop()
        if len(path) >= limit:
            return _path_text(path, shown_parts)
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        stack.extend((v, (*path, k)) for k, v in pairs if isinstance(v, (dict, list)))
    return None


def _path_text(path: Sequence[str | int], shown: int) -> str:
    text = ""
    for part in path[:shown]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text + ("…" if len(path) > shown else "")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON: {name} is not allowed")


# one decoder for every block (json.loads with an option builds one per call: half its cost on
# a small block)
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


_LT = re.compile(r"<(?!\\/)")


def dump_block(value: Any, indent: str = "  ", *, in_array: bool = False) -> str:
    """Serialise for a script block: pretty like the original files (one source or fact per
    line), non-ASCII kept, ``</`` written ``<\\/`` and every other ``<`` ``\\u003c``: no string
    can end the script early or open a ``<!--``/``<script`` state inside it."""
    text = _dump(
        value, indent, 0, in_array=in_array
    )  # in_array: an item (flat objects on one line)
    return _LT.sub("\\\\u003c", text.replace("</", "<\\/"))


def _scalar(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("non-finite number cannot be written to JSON")
    return json.dumps(value, ensure_ascii=False)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _flat(value: Any) -> bool:
    """A container holding only scalars or lists of scalars fits on one line."""
    items = value.values() if isinstance(value, dict) else value
    return all(
        _is_scalar(v) or (isinstance(v, list) and all(_is_scalar(x) for x in v)) for v in items
    )


def _inline(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _dump(value: Any, indent: str, depth: int, *, in_array: bool) -> str:
    if _is_scalar(value):
        return _scalar(value)
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    if isinstance(value, dict) and in_array and _flat(value):
        return _inline(value)
    if isinstance(value, list) and all(_is_scalar(v) for v in value):
        one_line = _inline(value)
        if len(one_line) <= _INLINE_WIDTH and not any(
            isinstance(v, str) and len(v) > 40 for v in value
        ):
            return one_line
    pad = indent * (depth + 1)
    close = indent * depth
    if isinstance(value, dict):
        parts = [
            f"{pad}{_scalar(str(k))}: {_dump(v, indent, depth + 1, in_array=False)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(parts) + "\n" + close + "}"
    parts = [f"{pad}{_dump(v, indent, depth + 1, in_array=True)}" for v in value]
    return "[\n" + ",\n".join(parts) + "\n" + close + "]"
