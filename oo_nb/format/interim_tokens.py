"""INTERIM token source for ``article_model`` until ``format/html_tokens.py`` (branch
i26-tokenizer) lands: the same API, following the WHATWG tokenizer where the article model
depends on it (every comment ending, bogus comments, attribute values quoted or not, raw text
and RCDATA elements). Delete this file and switch the one import in ``article_model`` then."""

from __future__ import annotations

import html
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = ["Attr", "Token", "tokenize"]

_RAW_TEXT = frozenset(
    ("script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "title", "textarea")
)
_COMMENT_END = re.compile(r"--!?>")
_SPACE = " \t\n\f\r"
_NAME_END = re.compile(r"[\t\n\f\r />]")
_ATTR_NAME_END = re.compile(r"[\t\n\f\r />=]")


@dataclass(frozen=True, slots=True)
class Attr:
    name: str
    value: str
    start: int
    end: int
    value_start: int
    value_end: int


@dataclass(frozen=True, slots=True)
class Token:
    kind: Literal["start", "end", "text", "comment", "doctype"]
    start: int
    end: int
    name: str = ""
    attrs: tuple[Attr, ...] = ()
    self_closing: bool = False
    data: str = ""


def tokenize(
    text: str,
    start: int = 0,
    end: int | None = None,
    *,
    state: str = "data",
    last_start_tag: str = "",
) -> Iterator[Token]:
    stop = len(text) if end is None else end
    text = text[:stop]
    pos = start
    if state != "data" and last_start_tag:
        pos = yield from _raw(text, pos, last_start_tag)
    while pos < stop:
        lt = text.find("<", pos)
        if lt < 0:
            yield Token("text", pos, stop, data=html.unescape(text[pos:stop]))
            return
        token = _markup(text, lt)
        if token is None:  # a "<" that opens nothing is text
            nxt = text.find("<", lt + 1)
            nxt = stop if nxt < 0 else nxt
            yield Token("text", pos, nxt, data=html.unescape(text[pos:nxt]))
            pos = nxt
            continue
        if lt > pos:
            yield Token("text", pos, lt, data=html.unescape(text[pos:lt]))
        if token.kind == "text":  # an unfinished tag at the end: dropped, as a browser does
            return
        yield token
        pos = token.end
        if token.kind == "start" and token.name in _RAW_TEXT and not token.self_closing:
            pos = yield from _raw(text, pos, token.name)


def _raw(text: str, pos: int, name: str) -> Generator[Token, None, int]:
    """The text of a raw text or RCDATA element, up to its end tag (not consumed here)."""
    closer = re.compile(rf"</{name}(?=[\t\n\f\r />])", re.I).search(text, pos)
    end = closer.start() if closer else len(text)
    if end > pos:
        data = text[pos:end]
        yield Token(
            "text", pos, end, data=html.unescape(data) if name in ("title", "textarea") else data
        )
    return end


def _markup(text: str, lt: int) -> Token | None:
    nxt = text[lt + 1 : lt + 2]
    if text.startswith("<!--", lt):
        return _comment(text, lt)
    if nxt == "!":
        close = text.find(">", lt)
        end = len(text) if close < 0 else close + 1
        body = text[lt + 2 : end - 1 if close >= 0 else end]
        kind: Literal["doctype", "comment"] = (
            "doctype" if body[:7].lower() == "doctype" else "comment"
        )
        return Token(kind, lt, end, data=body)
    if nxt == "?":
        close = text.find(">", lt)
        end = len(text) if close < 0 else close + 1
        return Token("comment", lt, end, data=text[lt + 1 : end - 1 if close >= 0 else end])
    if nxt == "/":
        after = text[lt + 2 : lt + 3]
        if after == ">":
            return Token("comment", lt, lt + 3)  # "</>": dropped by a browser; an empty marker
        if not after.isascii() or not after.isalpha():
            close = text.find(">", lt)
            end = len(text) if close < 0 else close + 1
            return Token("comment", lt, end, data=text[lt + 2 : end - 1])
        return _tag(text, lt, lt + 2, "end")
    if nxt.isascii() and nxt.isalpha():
        return _tag(text, lt, lt + 1, "start")
    return None


def _comment(text: str, lt: int) -> Token:
    body = lt + 4
    if text.startswith(">", body):
        return Token("comment", lt, body + 1)
    if text.startswith("->", body):
        return Token("comment", lt, body + 2)
    m = _COMMENT_END.search(text, body)
    if m is None:
        return Token("comment", lt, len(text), data=text[body:])
    return Token("comment", lt, m.end(), data=text[body : m.start()])


def _tag(text: str, lt: int, at: int, kind: Literal["start", "end"]) -> Token:
    m = _NAME_END.search(text, at)
    pos = m.start() if m else len(text)
    name = text[at:pos].lower()
    attrs: list[Attr] = []
    seen: set[str] = set()
    self_closing = False
    n = len(text)
    while True:
        while pos < n and text[pos] in _SPACE:
            pos += 1
        if pos >= n:
            return Token("text", lt, n)  # EOF in a tag
        c = text[pos]
        if c == ">":
            return Token(
                kind, lt, pos + 1, name, tuple(attrs) if kind == "start" else (), self_closing
            )
        if c == "/":
            self_closing = text.startswith(">", pos + 1)
            pos += 1
            continue
        self_closing = False
        a_start = pos
        m = _ATTR_NAME_END.search(text, pos + 1)  # a leading "=" belongs to the name
        pos = m.start() if m else n
        a_name = text[a_start:pos].lower()
        while pos < n and text[pos] in _SPACE:
            pos += 1
        v_start = v_end = pos
        value = ""
        if pos < n and text[pos] == "=":
            pos += 1
            while pos < n and text[pos] in _SPACE:
                pos += 1
            if pos < n and text[pos] in "\"'":
                q = text.find(text[pos], pos + 1)
                if q < 0:
                    return Token("text", lt, n)
                v_start, v_end, pos = pos + 1, q, q + 1
            else:
                v_start = pos
                while pos < n and text[pos] not in _SPACE + ">":
                    pos += 1
                v_end = pos
            value = html.unescape(text[v_start:v_end])
        if a_name not in seen:
            seen.add(a_name)
            attrs.append(Attr(a_name, value, a_start, pos, v_start, v_end))
