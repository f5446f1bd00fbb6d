"""``<!DOCTYPE …>`` read as the WHATWG tokenizer's DOCTYPE states read it.

Rare in the documents (one a page), so this follows the states one by one rather than fast;
``read_doctype`` returns the fields and where the declaration ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DoctypeFields", "ascii_lower", "read_doctype"]

_BLANKS = re.compile(r"[\t\n\f\r ]*")
_NAME = re.compile(r"[^\t\n\f\r >]+")
_IDENTIFIER_END = {'"': re.compile(r'[">]'), "'": re.compile(r"['>]")}
_UPPER_TO_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True, slots=True)
class DoctypeFields:
    end: int
    name: str | None = None
    public_id: str | None = None
    system_id: str | None = None
    force_quirks: bool = False


def ascii_lower(raw: str) -> str:
    """``raw`` with ASCII letters lowered and no other (HTML's names: "K" (Kelvin) stays)."""
    return raw.lower() if raw.isascii() else raw.translate(_UPPER_TO_LOWER)


def _clean(raw: str) -> str:
    return raw.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")


class _Reader:
    def __init__(self, text: str, at: int) -> None:
        self.text = text
        self.at = at
        self.name: str | None = None
        self.public_id: str | None = None
        self.system_id: str | None = None

    def char(self) -> str:
        return self.text[self.at : self.at + 1]

    def skip_blanks(self) -> str:
        match = _BLANKS.match(self.text, self.at)
        assert match is not None  # a ``*`` pattern always matches
        self.at = match.end()
        return self.char()

    def done(self, *, quirks: bool = False, step: int = 0) -> DoctypeFields:
        return DoctypeFields(self.at + step, self.name, self.public_id, self.system_id, quirks)

    def bogus(self, *, quirks: bool) -> DoctypeFields:
        close = self.text.find(">", self.at)
        self.at = len(self.text) if close < 0 else close + 1
        return self.done(quirks=quirks)

    def identifier(self, quote: str) -> tuple[str, bool]:
        """The quoted identifier after ``quote``, and whether its closing quote came."""
        begin = self.at + 1
        stop = _IDENTIFIER_END[quote].search(self.text, begin)
        if stop is None:
            self.at = len(self.text)
            return _clean(self.text[begin:]), False
        self.at = stop.start() + 1
        return _clean(self.text[begin : stop.start()]), stop.group() == quote


def read_doctype(text: str, at: int) -> DoctypeFields:
    """The DOCTYPE whose ``<!DOCTYPE`` keyword ends at ``at``."""
    reader = _Reader(text, at)
    char = reader.skip_blanks()  # DOCTYPE state, then before DOCTYPE name
    if char in ("", ">"):
        return reader.done(quirks=True, step=len(char))
    name = _NAME.match(text, reader.at)
    assert name is not None  # the character here is neither blank nor ``>``
    reader.name = _clean(ascii_lower(name.group()))
    reader.at = name.end()
    char = reader.skip_blanks()  # after DOCTYPE name
    if char in ("", ">"):
        return reader.done(quirks=not char, step=len(char))
    keyword = ascii_lower(text[reader.at : reader.at + 6])
    if keyword not in ("public", "system"):
        return reader.bogus(quirks=True)
    reader.at += 6
    if keyword == "public":
        char = reader.skip_blanks()
        if char not in ('"', "'"):
            return _missing_identifier(reader, char)
        reader.public_id, closed = reader.identifier(char)
        if not closed:
            return reader.done(quirks=True)
        char = reader.skip_blanks()  # after the public identifier, between the two
        if char in ("", ">"):
            return reader.done(quirks=not char, step=len(char))
        if char not in ('"', "'"):
            return reader.bogus(quirks=True)
    else:
        char = reader.skip_blanks()
        if char not in ('"', "'"):
            return _missing_identifier(reader, char)
    reader.system_id, closed = reader.identifier(char)
    if not closed:
        return reader.done(quirks=True)
    char = reader.skip_blanks()  # after the system identifier
    if char in ("", ">"):
        return reader.done(quirks=not char, step=len(char))
    return reader.bogus(quirks=False)


def _missing_identifier(reader: _Reader, char: str) -> DoctypeFields:
    if char in ("", ">"):
        return reader.done(quirks=True, step=len(char))
    return reader.bogus(quirks=True)
