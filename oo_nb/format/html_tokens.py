"""HTML read as a browser reads it: the WHATWG tokenizer, with the source offsets of every token.

Every reader of the article and of the page sits on ``tokenize``, so what the project thinks a
page holds is what Chromium shows: a comment ends where a browser ends it (``<!-->``, ``--!>``),
a ``<`` or ``"`` inside an attribute value stays in the value, a second ``id=`` is dropped, and the
content of ``script``, ``style``, ``title``, ``textarea`` and the other raw-text elements is text up
to its own end tag. Proved on the html5lib tokenizer tests (tests/format/test_html_conformance.py).

Offsets are half-open character offsets into the string given, and the tokens tile the range
read: concatenating ``text[t.start:t.end]`` gives it back. Source a browser drops (``</>``, a tag
cut by the end of input) is covered by the text token around it, whose ``data`` is what the
browser keeps. Not modelled (tree-builder rules, not the tokenizer's): foreign content (CDATA
sections and ``<style>`` inside ``<svg>``), the newline dropped after ``<pre>``/``<textarea>``.

Fast paths (``str.find`` for text, one regular expression for a plain tag) keep to the states'
results; ``benchmarks/html_tokens.py`` measures them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from oo_nb.format.html_charrefs import resolve
from oo_nb.format.html_doctype import read_doctype

__all__ = ["STATES", "Attr", "DoctypeToken", "Token", "tokenize"]

STATES = ("data", "rcdata", "rawtext", "script data", "plaintext", "cdata section")

# What a browser's tree builder (in body, scripting on as in Chromium) tells the tokenizer after
# these start tags: read the content as RCDATA, RAWTEXT, script data or PLAINTEXT.
_CONTENT_STATE = {
    "title": "rcdata",
    "textarea": "rcdata",
    "style": "rawtext",
    "xmp": "rawtext",
    "iframe": "rawtext",
    "noembed": "rawtext",
    "noframes": "rawtext",
    "noscript": "rawtext",
    "script": "script data",
    "plaintext": "plaintext",
}

_BLANKS = re.compile(r"[\t\n\f\r ]*")  # CR is read as the LF the input stream turns it into
_PLAIN_TAG = re.compile(r"<(/?)([A-Za-z][^\t\n\f\r />]*)>")
_TAG_NAME = re.compile(r"[^\t\n\f\r />]*")
_ATTR_NAME = re.compile(r"[^\t\n\f\r />][^\t\n\f\r />=]*")
_UNQUOTED = re.compile(r"[^\t\n\f\r >]+")
_COMMENT_CLOSE = re.compile(r"--!?>")
_DASH_OR_LT = re.compile(r"[-<]")
_DASHES = re.compile(r"-+")
_LETTERS = re.compile(r"[A-Za-z]*")
_UPPER_TO_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True, slots=True)
class Attr:
    """One attribute kept on a start tag: its name and value as a browser reads them.

    ``start``/``end`` span the whole attribute (name, ``=``, quotes); ``value_start``/``value_end``
    the raw value text inside any quotes (equal when the attribute has no value).
    """

    name: str
    value: str
    start: int
    end: int
    value_start: int
    value_end: int


@dataclass(frozen=True, slots=True)
class Token:
    """A start or end tag, a run of text, a comment or a DOCTYPE, and its source span."""

    kind: Literal["start", "end", "text", "comment", "doctype"]
    start: int
    end: int
    name: str = ""
    attrs: tuple[Attr, ...] = ()
    self_closing: bool = False
    data: str = ""


@dataclass(frozen=True, slots=True)
class DoctypeToken(Token):
    """A ``<!DOCTYPE>`` (kind "doctype"): its identifiers (None when absent) and quirks flag.

    Apart so the tokens the documents are made of carry three fields fewer: building a frozen
    dataclass is a large share of the tokenizer's time."""

    public_id: str | None = None
    system_id: str | None = None
    force_quirks: bool = False


def _newlines(raw: str) -> str:
    return raw.replace("\r\n", "\n").replace("\r", "\n") if "\r" in raw else raw


def _nulls(raw: str) -> str:
    return raw.replace("\0", "\ufffd") if "\0" in raw else raw


def _name(raw: str) -> str:
    """A tag or attribute name: ASCII letters lowered (only those), NULL replaced."""
    lowered = raw.lower() if raw.isascii() else raw.translate(_UPPER_TO_LOWER)
    return _nulls(lowered)


def _after_blanks(text: str, at: int) -> int:
    blanks = _BLANKS.match(text, at)
    assert blanks is not None  # a ``*`` pattern always matches
    return blanks.end()


@lru_cache(maxsize=64)
def _end_tag(name: str) -> re.Pattern[str] | None:
    """The "appropriate end tag" for the last start tag ``name``, up to its name's end."""
    if not name or not (name.isascii() and name.isalpha()):
        return None
    return re.compile(r"</(?ai:" + name + r")(?=[\t\n\f\r />])")


def _raw_text_end(text: str, at: int, last_start_tag: str) -> int:
    """Where RCDATA or RAWTEXT content starting at ``at`` ends: its end tag or the input's end."""
    end_tag = _end_tag(last_start_tag)
    found = end_tag.search(text, at) if end_tag else None
    return found.start() if found else len(text)


def _script_end(text: str, at: int, last_start_tag: str) -> int:
    """Where script data starting at ``at`` ends, through its escaped states (``<!--``,
    ``<script>`` inside them)."""
    end_tag = _end_tag(last_start_tag)
    state = "data"
    while True:
        if state == "data":
            at = text.find("<", at)
            if at < 0:
                return len(text)
            if text.startswith("</", at):
                if end_tag and end_tag.match(text, at):
                    return at
                at += 2
            elif text.startswith("<!--", at):
                state, at = "escaped", at + 2  # at the dashes: ``<!-->`` closes again
            else:
                at += 1
            continue
        found = _DASH_OR_LT.search(text, at)
        if found is None:
            return len(text)
        at = found.start()
        if text[at] == "-":
            dashes = _DASHES.match(text, at)
            assert dashes is not None
            after = dashes.end()
            if after - at >= 2 and text.startswith(">", after):
                state, after = "data", after + 1
            at = after
            continue
        slash = text.startswith("</", at)
        if state == "escaped" and slash and end_tag and end_tag.match(text, at):
            return at
        letters = _LETTERS.match(text, at + 1 + slash)
        assert letters is not None
        after = letters.end()
        is_script = letters.group().lower() == "script" and text[after : after + 1] in (
            "\t", "\n", "\f", "\r", " ", "/", ">"
        )  # fmt: skip
        if is_script and state == "escaped" and not slash:
            state = "double escaped"
        elif is_script and state == "double escaped" and slash:
            state = "escaped"
        at = max(after, at + 1 + slash)


class _Reader:
    """One pass over ``text``; offsets in tokens are shifted by ``base``."""

    def __init__(self, text: str, base: int) -> None:
        self.text = text
        self.base = base

    def markup(self, lt: int) -> tuple[Token | str, int]:
        """What starts at the ``<`` at ``lt``: a token, or the text a browser keeps of it."""
        text = self.text
        plain = _PLAIN_TAG.match(text, lt)
        if plain:
            kind: Literal["start", "end"] = "end" if plain.group(1) else "start"
            end = plain.end()
            return Token(kind, self.base + lt, self.base + end, _name(plain.group(2))), end
        char = text[lt + 1 : lt + 2]
        if char.isascii() and char.isalpha():
            return self.tag(lt, lt + 1, "start")
        if char == "/":
            after = text[lt + 2 : lt + 3]
            if after.isascii() and after.isalpha():
                return self.tag(lt, lt + 2, "end")
            if after == ">":  # ``</>``: dropped by browsers
                return "", lt + 3
            if not after:
                return "</", lt + 2
            return self.bogus_comment(lt, lt + 2)
        if char == "!":
            return self.declaration(lt)
        if char == "?":
            return self.bogus_comment(lt, lt + 1)
        return "<", lt + 1

    def tag(self, lt: int, name_at: int, kind: Literal["start", "end"]) -> tuple[Token | str, int]:
        text, base, size = self.text, self.base, len(self.text)
        name = _TAG_NAME.match(text, name_at)
        assert name is not None
        at = name.end()
        attrs: list[Attr] = []
        seen: set[str] = set()
        self_closing = False
        while True:
            at = _after_blanks(text, at)
            if at >= size:
                return "", size  # cut by the end of input: browsers drop the tag
            char = text[at]
            if char == ">":
                at += 1
                break
            if char == "/":
                if text.startswith(">", at + 1):
                    self_closing, at = True, at + 2
                    break
                at += 1
                continue
            attr_name = _ATTR_NAME.match(text, at)
            assert attr_name is not None
            attr_start, name_end = at, attr_name.end()
            after = _after_blanks(text, name_end)
            if not text.startswith("=", after):
                value, value_start, value_end, at = "", name_end, name_end, name_end
            else:
                value_at = _after_blanks(text, after + 1)
                quote = text[value_at : value_at + 1]
                if not quote:
                    return "", size
                if quote in ('"', "'"):
                    close = text.find(quote, value_at + 1)
                    if close < 0:
                        return "", size
                    value_start, value_end, at = value_at + 1, close, close + 1
                elif quote == ">":  # ``a=>``: an empty value, and the tag ends
                    value_start = value_end = at = value_at
                else:
                    unquoted = _UNQUOTED.match(text, value_at)
                    assert unquoted is not None
                    value_start, value_end = value_at, unquoted.end()
                    at = value_end
                raw = _nulls(_newlines(text[value_start:value_end]))
                value = resolve(raw, in_attribute=True)
            key = _name(attr_name.group())
            if key not in seen:  # a repeated attribute: the first one wins
                seen.add(key)
                attrs.append(
                    Attr(
                        key,
                        value,
                        base + attr_start,
                        base + at,
                        base + value_start,
                        base + value_end,
                    )
                )
        if kind == "end":
            return Token("end", base + lt, base + at, _name(name.group())), at
        token = Token(
            "start", base + lt, base + at, _name(name.group()), tuple(attrs), self_closing
        )
        return token, at

    def declaration(self, lt: int) -> tuple[Token | str, int]:
        text = self.text
        if text.startswith("<!--", lt):
            return self.comment(lt)
        if text[lt + 2 : lt + 9].translate(_UPPER_TO_LOWER) == "doctype":
            doctype = read_doctype(text, lt + 9)
            token = DoctypeToken(
                "doctype",
                self.base + lt,
                self.base + doctype.end,
                doctype.name or "",
                public_id=doctype.public_id,
                system_id=doctype.system_id,
                force_quirks=doctype.force_quirks,
            )
            return token, doctype.end
        # ``<![CDATA[`` outside SVG and MathML is a bogus comment too, "[CDATA[" in its data.
        return self.bogus_comment(lt, lt + 2)

    def comment(self, lt: int) -> tuple[Token, int]:
        text, body = self.text, lt + 4
        if text.startswith(">", body) or text.startswith("->", body):  # ``<!-->``, ``<!--->``
            end = text.index(">", body) + 1
            return Token("comment", self.base + lt, self.base + end), end
        close = _COMMENT_CLOSE.search(text, body)
        if close:
            raw, end = text[body : close.start()], close.end()
        else:  # cut by the end of input: the dashes of an unfinished ``--!>`` are not data
            raw, end = text[body:], len(text)
            for tail in ("--!", "--", "-"):
                if raw.endswith(tail):
                    raw = raw[: -len(tail)]
                    break
        data = _nulls(_newlines(raw))
        return Token("comment", self.base + lt, self.base + end, data=data), end

    def bogus_comment(self, lt: int, body: int) -> tuple[Token, int]:
        close = self.text.find(">", body)
        stop = len(self.text) if close < 0 else close
        end = stop if close < 0 else stop + 1
        data = _nulls(_newlines(self.text[body:stop]))
        return Token("comment", self.base + lt, self.base + end, data=data), end


def _content(text: str, at: int, state: str, last_start_tag: str) -> tuple[str, int]:
    """The text read in a raw-text ``state`` from ``at``, and where that state ends."""
    if state == "plaintext":
        return _nulls(_newlines(text[at:])), len(text)
    if state == "cdata section":  # its ``]]>`` is dropped, so it joins the text token
        close = text.find("]]>", at)
        stop = len(text) if close < 0 else close
        return _newlines(text[at:stop]), stop if close < 0 else stop + 3
    if state == "script data":
        stop = _script_end(text, at, last_start_tag)
    else:
        stop = _raw_text_end(text, at, last_start_tag)
    data = _nulls(_newlines(text[at:stop]))
    return (resolve(data) if state == "rcdata" else data), stop


def tokenize(
    text: str,
    start: int = 0,
    end: int | None = None,
    *,
    state: str = "data",
    last_start_tag: str = "",
    follow_tree_builder: bool = True,
) -> Iterator[Token]:
    """The tokens of ``text[start:end]``, with offsets into ``text``.

    ``state`` and ``last_start_tag`` start the tokenizer elsewhere than in the data state (as the
    conformance tests ask). With ``follow_tree_builder`` (the default) a start tag of ``script``,
    ``style``, ``title``, ``textarea``, ``plaintext`` … switches to the state a browser's tree
    builder gives their content; without it the tokenizer stays in the data state.
    """
    if state not in STATES:
        raise ValueError(f"unknown tokenizer state {state!r}; one of {', '.join(STATES)}")
    source = text[start:end]
    reader = _Reader(source, start)
    size = len(source)
    at = 0
    text_from = -1  # where the pending text token starts, -1 when none is pending
    pieces: list[str] = []
    while at < size:
        if state != "data":
            data, next_at = _content(source, at, state, last_start_tag)
            if next_at > at:
                text_from = at if text_from < 0 else text_from
                pieces.append(data)
            at, state = next_at, "data"
            continue
        lt = source.find("<", at)
        stop = size if lt < 0 else lt
        if stop > at:
            text_from = at if text_from < 0 else text_from
            pieces.append(resolve(_newlines(source[at:stop])))
        if lt < 0:
            break
        found, at = reader.markup(lt)
        if isinstance(found, str):
            text_from = lt if text_from < 0 else text_from
            pieces.append(found)
            continue
        if text_from >= 0:
            yield Token("text", start + text_from, start + lt, data="".join(pieces))
            text_from, pieces = -1, []
        yield found
        if found.kind == "start":
            last_start_tag = found.name
            if follow_tree_builder:
                state = _CONTENT_STATE.get(found.name, "data")
    if text_from >= 0:
        yield Token("text", start + text_from, start + size, data="".join(pieces))
