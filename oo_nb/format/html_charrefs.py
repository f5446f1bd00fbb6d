"""Character references (``&amp;``, ``&#233;``, ``&#x20AC;``) resolved as the WHATWG tokenizer does.

One function, ``resolve``, for the three places the tokenizer meets them: text, RCDATA (title,
textarea) and attribute values, where the legacy rule keeps ``&amp=`` and ``&ampx`` as written so
old query strings survive.
"""

from __future__ import annotations

import re
from html.entities import html5

__all__ = ["resolve"]

# Named references are matched longest first among the table's names (``&notin;`` beats
# ``&not``); the run is letters and digits, with its ``;`` when one follows directly.
_REF = re.compile(r"&(?:#[xX]([0-9A-Fa-f]+);?|#([0-9]+);?|([A-Za-z0-9]+;?))")
_LONGEST_NAME = max(map(len, html5))

# The spec's table for numeric references to C1 controls: what Windows-1252 put there.
_C1_REPLACEMENTS = {
    0x80: "\u20ac",
    0x82: "\u201a",
    0x83: "\u0192",
    0x84: "\u201e",
    0x85: "\u2026",
    0x86: "\u2020",
    0x87: "\u2021",
    0x88: "\u02c6",
    0x89: "\u2030",
    0x8A: "\u0160",
    0x8B: "\u2039",
    0x8C: "\u0152",
    0x8E: "\u017d",
    0x91: "\u2018",
    0x92: "\u2019",
    0x93: "\u201c",
    0x94: "\u201d",
    0x95: "\u2022",
    0x96: "\u2013",
    0x97: "\u2014",
    0x98: "\u02dc",
    0x99: "\u2122",
    0x9A: "\u0161",
    0x9B: "\u203a",
    0x9C: "\u0153",
    0x9E: "\u017e",
    0x9F: "\u0178",
}


def _numeric(digits: str, base: int) -> str:
    digits = digits.lstrip("0")
    if len(digits) > 8:  # past U+10FFFF; int() would also refuse a few thousand digits
        return "\ufffd"
    code = int(digits or "0", base)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return _C1_REPLACEMENTS.get(code) or chr(code)


def _named(run: str, after: str, in_attribute: bool) -> str:
    for length in range(min(len(run), _LONGEST_NAME), 0, -1):
        name = run[:length]
        if name in html5:
            rest = run[length:]
            if in_attribute and name[-1] != ";":
                follower = (rest or after)[:1]
                if follower == "=" or (follower.isascii() and follower.isalnum()):
                    return "&" + run
            return html5[name] + rest
    return "&" + run


def resolve(text: str, *, in_attribute: bool = False) -> str:
    """``text`` (already newline-normalised) with its character references replaced."""
    if "&" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        hexa, decimal, run = match.groups()
        if hexa is not None:
            return _numeric(hexa, 16)
        if decimal is not None:
            return _numeric(decimal, 10)
        return _named(run, text[match.end() : match.end() + 1], in_attribute)

    return _REF.sub(replace, text)
