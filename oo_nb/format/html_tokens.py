"""HTML read as a browser reads it: the WHATWG tokenizer, with the source offsets of every token.

Every reader of the article and of the page sits on ``tokenize``, so what the project thinks a
page holds is what Chromium shows: a comment ends where a browser ends it (``<!-->``, ``--!>``),
a ``<`` or ``"`` inside an attribute value stays in the value, a second ``id=`` is dropped, and the
content of ``script``, ``style``, ``title``, ``textarea`` and the other raw-text elements is text up
to its own end tag. Proved on the html5lib tokenizer tests (tests/format/test_html_conformance.py).

Offsets are half-open character offsets into the string given, and the tokens tile the range
read: concatenating ``text[t.start:t.end]`` gives it back. Source a browser drops (``</>``, a tag
cut by the end of input) is covered by the text token around it, whose ``data`` is what the
browser keeps. Not modelled (tree-builder rules, not the tokenizer's): foreign content (a CDATA
section, which ``cdata_section`` reads where the tree builder finds one, and ``<style>`` inside
``<svg>``), the newline dropped after ``<pre>``/``<textarea>``.

Fast paths (``str.find`` for text, one regular expression for a plain tag, the common run of
text, tags and comments read in bulk by ``findall``) keep to the states' results (tested against
them); ``benchmarks/html_tokens.py`` measures them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

from oo_nb.format.html_charrefs import resolve
from oo_nb.format.html_doctype import ascii_lower, read_doctype

__all__ = [
    "STATES",
    "Attr",
    "DoctypeToken",
    "Kind",
    "RawToken",
    "Token",
    "cdata_section",
    "content_end",
    "markup_at",
    "plain_tags",
    "raw_tokens",
    "tokenize",
]

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
# A tag whose attributes each follow a blank and are bare or quoted right after "=" (most tags):
# read in one match, with what the states would read from it.
_ATTR = r"""[\t\n\f\r ]+[^\t\n\f\r />="'<][^\t\n\f\r />="'<]*(?:="[^"]*"|='[^']*')?"""
_QUOTED_TAG = re.compile(rf"<(/?)([A-Za-z][^\t\n\f\r />]*)((?:{_ATTR})*)[\t\n\f\r ]*(/?)>")
# A run of text and such tags, none of them the start tag of an element whose content is text
# (``_CONTENT_STATE``): what ``plain_tags`` takes in bulk.
_TAG_BODY = rf"/?[A-Za-z][^\t\n\f\r />]*(?:{_ATTR})*[\t\n\f\r ]*/?>"
_WHOLE_TAG = re.compile("<" + _TAG_BODY)
# Not the start tag of an element whose content is text (``_CONTENT_STATE``): after one the
# tree builder switches the tokenizer's state.
_NOT_CONTENT = rf"(?!(?ai:{'|'.join(_CONTENT_STATE)})[\t\n\f\r />])"
_PLAIN_RUN = re.compile(rf"[^<]*(?:<{_NOT_CONTENT}" + _TAG_BODY + r"[^<]*)*")
# The common steps in the data state, read in bulk (``_scan``): text (decoded apart when it
# holds "&" or CR), then a tag ``_QUOTED_TAG`` reads (not the start tag of an element whose
# content is text) or a comment of the plain form (no CR or NUL in it, not ``<!-->``).
_STEP = re.compile(
    rf"""([^<]*+)(<(?:(/)|{_NOT_CONTENT})([A-Za-z][^\t\n\f\r />]*)((?:{_ATTR})*)"""
    r"[\t\n\f\r ]*(/?)>|<!--(?!-?>)([^\r\0]*?)--!?>)"
    # anything else (a lone "<", other markup, a step cut by the window's end), to the window's
    # end in one step of C (".+" in DOTALL jumps there): the states read it
    r"|(?s:.+)"
)
# How far one bulk reading of steps looks ahead (``_scan``): twice the last run, within these.
_WINDOWS = (2048, 65536)
# ``_ATTR`` in groups: its blanks, its name, "=" and its quoted value, the value in double or
# single quotes (read by ``findall``: the attributes of a tag follow each other with no gap)
_QUOTED_ATTR = re.compile(
    r"""([\t\n\f\r ]+)([^\t\n\f\r />="'<][^\t\n\f\r />="'<]*)(=(?:"([^"]*)"|'([^']*)'))?"""
)
_TAG_NAME = re.compile(r"[^\t\n\f\r />]*")
_ATTR_NAME = re.compile(r"[^\t\n\f\r />][^\t\n\f\r />=]*")
_UNQUOTED = re.compile(r"[^\t\n\f\r >]+")
_COMMENT_CLOSE = re.compile(r"--!?>")
_DASH_OR_LT = re.compile(r"[-<]")
_DASHES = re.compile(r"-+")
_LETTERS = re.compile(r"[A-Za-z]*")


Kind = Literal["start", "end", "text", "comment", "doctype"]


class Attr(NamedTuple):
    """One attribute kept on a start tag: its name and value as a browser reads them.

    ``start``/``end`` span the whole attribute (name, ``=``, quotes); ``value_start``/``value_end``
    the raw value text inside any quotes (equal when the attribute has no value). (A named
    tuple: one is made per attribute of every tag read, three times quicker than a frozen
    dataclass.)
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

    kind: Kind
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
    name = _NAMES.get(raw)
    if name is None:
        name = _nulls(ascii_lower(raw))
        if len(_NAMES) < _MAX_NAMES:
            _NAMES[raw] = name
    return name


# The names met so far and how they read (a page uses a few dozen, each many times over).
_NAMES: dict[str, str] = {}
_MAX_NAMES = 4096


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
    if end_tag is None:
        return len(text)
    while True:  # from one "<" to the next (memchr), not a pattern read character by character
        at = text.find("<", at)
        if at < 0:
            return len(text)
        if end_tag.match(text, at):
            return at
        at += 1


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


# A token before it is made a Token: (kind, start, end, name, attrs, self_closing, data).
_Raw = tuple[Kind, int, int, str, tuple["Attr", ...], bool, str]
RawToken = _Raw


class _Reader:
    """One pass over ``text`` (ended where the tokens must end). A ``lean`` reader reads the same
    tokens but decodes no text and builds no attributes."""

    def __init__(self, text: str, lean: bool) -> None:
        self.text = text
        self.lean = lean

    def markup(self, lt: int) -> tuple[_Raw | DoctypeToken | str, int]:
        """What starts at the ``<`` at ``lt``: a token, or the text a browser keeps of it."""
        text = self.text
        plain = _PLAIN_TAG.match(text, lt)
        if plain:
            kind: Literal["start", "end"] = "end" if plain.group(1) else "start"
            end = plain.end()
            name = _name(plain.group(2))
            return (kind, lt, end, name, (), False, ""), end
        quoted = _QUOTED_TAG.match(text, lt)
        if quoted:
            end, name = quoted.end(), _name(quoted.group(2))
            if quoted.group(1):
                return ("end", lt, end, name, (), False, ""), end
            attrs = () if self.lean else self.quoted_attrs(quoted.group(3), quoted.start(3))
            self_closing = bool(quoted.group(4))
            return ("start", lt, end, name, attrs, self_closing, ""), end
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

    def quoted_attrs(self, raw: str, at: int) -> tuple[Attr, ...]:
        """The attributes of a tag ``_QUOTED_TAG`` matched, ``raw`` from offset ``at``."""
        attrs: list[Attr] = []
        seen: set[str] = set()
        for blanks, raw_name, assigned, double, single in _QUOTED_ATTR.findall(raw):
            start = at + len(blanks)
            name_end = start + len(raw_name)
            at = name_end + len(assigned)
            key = _NAMES.get(raw_name) or _name(raw_name)
            if key in seen:  # a repeated attribute: the first one wins
                continue
            seen.add(key)
            if assigned:
                value = double or single
                if "&" in value or "\r" in value or "\0" in value:  # (else read as written)
                    value = resolve(_nulls(_newlines(value)), in_attribute=True)
                attrs.append(Attr(key, value, start, at, name_end + 2, at - 1))
            else:
                attrs.append(Attr(key, "", start, at, name_end, name_end))
        return tuple(attrs)

    def tag(self, lt: int, name_at: int, kind: Literal["start", "end"]) -> tuple[_Raw | str, int]:
        text, size, lean = self.text, len(self.text), self.lean
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
                value_start = value_end = at = name_end
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
            if lean:
                continue
            key = _name(attr_name.group())
            if key not in seen:  # a repeated attribute: the first one wins
                seen.add(key)
                raw = _nulls(_newlines(text[value_start:value_end]))
                value = resolve(raw, in_attribute=True)
                attrs.append(Attr(key, value, attr_start, at, value_start, value_end))
        if kind == "end":  # (its attributes are read, and dropped)
            return ("end", lt, at, _name(name.group()), (), False, ""), at
        tag_name = _name(name.group())
        return ("start", lt, at, tag_name, tuple(attrs), self_closing, ""), at

    def declaration(self, lt: int) -> tuple[_Raw | DoctypeToken, int]:
        text = self.text
        if text.startswith("<!--", lt):
            return self.comment(lt)
        if ascii_lower(text[lt + 2 : lt + 9]) == "doctype":
            doctype = read_doctype(text, lt + 9)
            token = DoctypeToken(
                "doctype",
                lt,
                doctype.end,
                doctype.name or "",
                public_id=doctype.public_id,
                system_id=doctype.system_id,
                force_quirks=doctype.force_quirks,
            )
            return token, doctype.end
        # ``<![CDATA[`` outside SVG and MathML is a bogus comment too, "[CDATA[" in its data.
        return self.bogus_comment(lt, lt + 2)

    def comment(self, lt: int) -> tuple[_Raw, int]:
        text, body = self.text, lt + 4
        if text.startswith(">", body) or text.startswith("->", body):  # ``<!-->``, ``<!--->``
            end = text.index(">", body) + 1
            return ("comment", lt, end, "", (), False, ""), end
        close = _COMMENT_CLOSE.search(text, body)
        if close:
            raw, end = text[body : close.start()], close.end()
        else:  # cut by the end of input: the dashes of an unfinished ``--!>`` are not data
            raw, end = text[body:], len(text)
            for tail in ("--!", "--", "-"):
                if raw.endswith(tail):
                    raw = raw[: -len(tail)]
                    break
        data = "" if self.lean else _nulls(_newlines(raw))
        return ("comment", lt, end, "", (), False, data), end

    def bogus_comment(self, lt: int, body: int) -> tuple[_Raw, int]:
        close = self.text.find(">", body)
        stop = len(self.text) if close < 0 else close
        end = stop if close < 0 else stop + 1
        data = "" if self.lean else _nulls(_newlines(self.text[body:stop]))
        return ("comment", lt, end, "", (), False, data), end


def _content(text: str, at: int, state: str, last_start_tag: str) -> tuple[int, int]:
    """Where the text read in a raw-text ``state`` from ``at`` ends, and where that state ends."""
    if state == "plaintext":
        return len(text), len(text)
    if state == "cdata section":  # its ``]]>`` is dropped, so it joins the text token
        close = text.find("]]>", at)
        return (len(text), len(text)) if close < 0 else (close, close + 3)
    if state == "script data":
        stop = _script_end(text, at, last_start_tag)
    else:
        stop = _raw_text_end(text, at, last_start_tag)
    return stop, stop


def cdata_section(text: str, lt: int, end: int | None = None) -> tuple[int, str]:
    """Where the CDATA section whose ``<![CDATA[`` is at ``lt`` ends in ``text[:end]`` (past its
    ``]]>``, else at the end), and the text it holds. The tokenizer reads one only where the tree
    builder's current node is an SVG or MathML element (elsewhere it is a bogus comment): the
    tree builder asks for it there (``article_model``)."""
    source = text if end is None or end >= len(text) else text[:end]
    at = lt + len("<![CDATA[")
    stop, after = _content(source, at, "cdata section", "")
    return after, _decoded(source[at:stop], "cdata section")


def _decoded(raw: str, state: str) -> str:
    """Text read in ``state`` as a browser keeps it."""
    if state == "data":
        return resolve(_newlines(raw))
    if state == "cdata section":
        return _newlines(raw)
    data = _nulls(_newlines(raw))
    return resolve(data) if state == "rcdata" else data


def _scan(
    text: str,
    start: int,
    end: int | None,
    state: str,
    last_start_tag: str,
    follow_tree_builder: bool,
) -> Iterator[_Raw | DoctypeToken]:
    if state not in STATES:
        raise ValueError(f"unknown tokenizer state {state!r}; one of {', '.join(STATES)}")
    size = len(text) if end is None else max(start, min(end, len(text)))
    source = text if size == len(text) else text[:size]  # (offsets stay the text's)
    reader = _Reader(source, lean=False)
    at = start
    text_from = -1  # where the pending text token starts, -1 when none is pending
    pieces: list[str] = []
    # (the hot loop: one lookup each, not one per step)
    steps, known_name, quoted_attrs = _STEP.findall, _NAMES.get, reader.quoted_attrs
    window = _WINDOWS[0]
    while at < size:
        if state != "data":
            stop, next_at = _content(source, at, state, last_start_tag)
            if next_at > at:
                text_from = at if text_from < 0 else text_from
                pieces.append(_decoded(source[at:stop], state))
            at, state = next_at, "data"
            continue
        if text_from < 0:
            # Steps in bulk: ``findall`` reads a window's run of steps in C, as tuples of strings
            # whose offsets follow from their lengths (most tokens are read here: a match object
            # and its calls per token were half the loop's time). A match that is no step (its
            # second group empty: a lone "<", other markup, a step cut by the window) ends the
            # run, and the states read from there (below); the next window is twice the run,
            # so markup the steps do not read costs a bounded look ahead.
            stepped, stopped = at, False
            for data, whole, slash, raw_name, raw_attrs, self_closing, comment in steps(
                source, at, min(size, at + window)
            ):
                if not whole:
                    stopped = True
                    break
                lt = at + len(data)
                if data:
                    if "&" in data or "\r" in data:
                        data = _decoded(data, "data")
                    yield ("text", at, lt, "", (), False, data)
                at = lt + len(whole)
                if not raw_name:  # a comment
                    yield ("comment", lt, at, "", (), False, comment)
                    continue
                name = known_name(raw_name) or _name(raw_name)
                if slash:
                    yield ("end", lt, at, name, (), False, "")
                    continue
                attrs = quoted_attrs(raw_attrs, lt + 1 + len(raw_name)) if raw_attrs else ()
                yield ("start", lt, at, name, attrs, bool(self_closing), "")
                last_start_tag = name  # (never one of ``_CONTENT_STATE``: the states read those)
            window = min(max(2 * (at - stepped), _WINDOWS[0]), _WINDOWS[1])
            if not stopped and at > stepped:
                continue
        lt = source.find("<", at)
        stop = size if lt < 0 else lt
        if stop > at:
            text_from = at if text_from < 0 else text_from
            raw = source[at:stop]
            pieces.append(_decoded(raw, "data") if "&" in raw or "\r" in raw else raw)
        if lt < 0:
            break
        found: _Raw | DoctypeToken | str
        if source.startswith("<!--", lt):  # (a comment: straight to its state)
            found, at = reader.comment(lt)
        else:
            found, at = reader.markup(lt)
        if isinstance(found, str):
            text_from = lt if text_from < 0 else text_from
            pieces.append(found)
            continue
        if text_from >= 0:
            yield ("text", text_from, lt, "", (), False, "".join(pieces))
            text_from, pieces = -1, []
        yield found
        if not isinstance(found, DoctypeToken) and found[0] == "start":
            last_start_tag = found[3]
            if follow_tree_builder:
                state = _CONTENT_STATE.get(last_start_tag, "data")
    if text_from >= 0:
        yield ("text", text_from, size, "", (), False, "".join(pieces))


def raw_tokens(
    text: str, start: int = 0, end: int | None = None
) -> Iterator[RawToken | DoctypeToken]:
    """``tokenize(text, start, end)`` as plain tuples ``(kind, start, end, name, attrs,
    self_closing, data)`` (a DOCTYPE as its Token): for a tree builder that keeps the few it needs
    as Tokens (building one per token was a third of an article's reading)."""
    return _scan(text, start, end, "data", "", True)


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
    scan = _scan(text, start, end, state, last_start_tag, follow_tree_builder)
    for found in scan:
        yield found if isinstance(found, DoctypeToken) else Token(*found)


# How far past what it returns a reading may have looked (a tag's closing ">", the blank after
# an end tag's name): a reading that ends nearer than this to where the input is cut is read
# again in the cut copy (markup_at, content_end).
_LOOKAHEAD = 2


def markup_at(
    text: str, lt: int, end: int | None = None
) -> tuple[tuple[Kind, int, int, str] | None, int]:
    """The token the ``<`` at ``lt`` starts in the data state of ``text[:end]``, as ``(kind,
    start, end, name)`` (what ``tokenize`` gives, without attributes or decoded text), or None
    where a browser reads text (a lone "<") or drops what is there (``</>``, a tag cut by the
    end); and where reading goes on. For a walk that takes the plain runs between in bulk
    (``plain_tags``); ``text`` is copied only when the token comes near ``end``."""
    found, after = _Reader(text, lean=True).markup(lt)
    if end is not None and end < len(text) and after + _LOOKAHEAD > end:
        found, after = _Reader(text[:end], lean=True).markup(lt)
    if isinstance(found, str):
        return None, after
    if isinstance(found, DoctypeToken):
        return (found.kind, found.start, found.end, found.name), after
    return found[:4], after


def content_end(text: str, at: int, name: str, end: int | None = None) -> int:
    """Where the content of a ``name`` element whose start tag ends at ``at`` ends when a browser
    reads it as text (title, textarea, script, style …): at its end tag, or the end of
    ``text[:end]``; ``at`` for any other element."""
    state = _CONTENT_STATE.get(name)
    if state is None:
        return at
    stop = _content(text, at, state, name)[0]
    if end is not None and end < len(text) and stop + len(name) + 2 + _LOOKAHEAD > end:
        stop = _content(text[:end], at, state, name)[0]
    return stop


def plain_tags(text: str, start: int, stop: int) -> tuple[int, list[str]]:
    """The tags from ``start`` on while ``text`` holds only text and tags read in one match (no
    comment, no DOCTYPE, no element whose content is text), before ``stop``: where that run ends
    and the source of each tag, as ``tokenize`` reads them there. For a walk that wants only the
    tags (the page code's), in two passes of C."""
    run = _PLAIN_RUN.match(text, start, stop)
    assert run is not None  # a ``*`` pattern always matches
    return run.end(), _WHOLE_TAG.findall(text, start, run.end())
