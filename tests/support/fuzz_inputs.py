"""Fuzz inputs for the document codec: mutations of real documents (byte flips, truncation,
deleted or doubled blocks, nested and duplicate markers, giant blocks, invalid UTF-8, CRLF, NUL
bytes, JSON type confusion) and hypothesis strategies that build documents from parts."""

from __future__ import annotations

import contextlib
import copy
import json
import random
import re
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

__all__ = ["MUTATORS", "binary_documents", "mutate", "structured_documents"]

_BLOCK = re.compile(rb'<script id="(oo-[a-z-]+)" type="application/json">(.*?)</script>', re.DOTALL)
# Keys the typed views read: type confusion on these reaches the model's code paths.
KNOWN_KEYS = (
    "title", "version", "as_of", "update_every_days", "freshness", "changelog", "identity",
    "subject", "scope", "audience", "tone", "research", "intents", "required_sections",
    "source_policy", "prefer_domains", "deny_domains", "require_https", "budget", "max_cost_usd",
    "images", "allow", "max_per_article", "max_file_kb", "resize_max_px", "instructions",
    "procedure", "sentinel", "event", "criteria", "status", "last_checked", "model", "sources",
    "facts", "id", "url", "tier", "accessed", "verified", "key", "value", "source", "source_ids",
    "entries", "timestamp", "summary", "last_updated", "text", "description",
)  # fmt: skip
HOSTILE_TEXT = (
    "</script><script>alert(1)</script>", "\nOO_HTML\n", "<!--", "-->", "<article id=\"article\">",
    "</article>", "\u2028", "\x00", "\ufeff", "$(touch pwned)", "`id`", "' OR 1=1 --",
    "\\", "\"", "javascript:alert(1)", "é" * 3, "\U0001f600", "\r\n", "http://[::1", "1e400",
)  # fmt: skip
_SCALARS: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2**64, -(2**63), 0.5, -0.0, 1e300, "", "x", "weekly", "daily",
    "2026-02-30", "2026-13-01", "0000-00-00", "9999-12-31T99:99", "s1", "nan", "inf", "-inf",
    "$1.50", [], {}, [[]], [{}],
)  # fmt: skip


def random_json(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.55:
        if rng.random() < 0.3:
            return rng.choice(HOSTILE_TEXT) * rng.randint(1, 3)
        return copy.deepcopy(rng.choice(_SCALARS))  # [] and {} in there are shared otherwise
    if roll < 0.78:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(KNOWN_KEYS): random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _confuse(value: Any, rng: random.Random) -> Any:
    """Replace one node somewhere inside ``value`` with a random JSON value."""
    if not isinstance(value, (dict, list)) or not value or rng.random() < 0.25:
        return random_json(rng)
    if isinstance(value, dict):
        key = rng.choice(list(value))
        value[key] = _confuse(value[key], rng)
    else:
        i = rng.randrange(len(value))
        value[i] = _confuse(value[i], rng)
    return value


# --------------------------------------------------------------------------- mutators
def _blocks(data: bytes) -> list[re.Match[bytes]]:
    return list(_BLOCK.finditer(data))


def _pick_block(data: bytes, rng: random.Random) -> re.Match[bytes] | None:
    blocks = _blocks(data)
    return rng.choice(blocks) if blocks else None


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data))]


def delete_block(data: bytes, rng: random.Random) -> bytes:
    m = _pick_block(data, rng)
    return data if m is None else data[: m.start()] + data[m.end() :]


def double_block(data: bytes, rng: random.Random) -> bytes:
    m = _pick_block(data, rng)
    return data if m is None else data[: m.end()] + b"\n" + m.group(0) + data[m.end() :]


def unclose_block(data: bytes, rng: random.Random) -> bytes:
    m = _pick_block(data, rng)
    return data if m is None else data[: m.end() - 9] + data[m.end() :]


def confuse_json(data: bytes, rng: random.Random) -> bytes:
    """Type confusion inside one block, re-serialised (sometimes with ``</`` left raw)."""
    m = _pick_block(data, rng)
    if m is None:
        return data
    value = json.loads(m.group(2))
    for _ in range(rng.randint(1, 3)):
        value = _confuse(value, rng)
    text = json.dumps(value, ensure_ascii=rng.random() < 0.3, indent=rng.choice((None, 2)))
    if rng.random() < 0.8:
        text = text.replace("</", "<\\/")
    try:
        body = text.encode("utf-8")
    except UnicodeEncodeError:
        body = text.encode("utf-8", "surrogatepass")
    return data[: m.start(2)] + b"\n" + body + b"\n" + data[m.end(2) :]


_INSERTS = (
    b'<script id="oo-manifest" type="application/json">', b"</script>", b"<script>", b"<!--",
    b"-->", b'<article id="article">', b"</article>", b"<article>", b"\nOO_HTML\n",
    b"\n: << 'OO_HTML'\n", b"\nLIKI_HTML\n", b"<style>", b"</style>", b"<!-- INDEX-CONTENT-START -->",
    b"<!-- OO:CSS:START -->", b"<!-- pid:x:zz -->", b"<script id='oo-contract'>",
    b"<script ID=oo-changelog type=application/json>", b"<script data-id=\"oo-changelog\">",
    b'<script id="liki-manifest">', b"\x00", b"\r", b"\r\n", b"\xff", b"\xc3", b"\xed\xa0\x80",
    b"\xc0\xaf", b"\xef\xbb\xbf", b"[s99999999999999999999]", b"<figure><img src=\"data:,\"></figure>",
    b"[" * 3000, b"{\"a\":" * 1500,
)  # fmt: skip


def insert_marker(data: bytes, rng: random.Random) -> bytes:
    """Nested and duplicate markers, stray tags, bad bytes, at a random place (often inside a
    block or the article, where they hurt most)."""
    piece = rng.choice(_INSERTS) * rng.choice((1, 1, 1, 2, 5))
    m = _pick_block(data, rng) if rng.random() < 0.5 else None
    i = rng.randint(m.start(2), m.end(2)) if m else rng.randrange(len(data) + 1)
    return data[:i] + piece + data[i:]


def giant_block(data: bytes, rng: random.Random) -> bytes:
    m = _pick_block(data, rng)
    if m is None:
        return data
    size = rng.choice((10_000, 100_000, 1_000_000))
    filler = rng.choice(
        (
            b'"' + b"x" * size + b'"',
            b"[" + b"1," * (size // 2) + b"1]",
            b'{"k": "' + b"\\u00e9" * (size // 6) + b'"}',
        )
    )
    return data[: m.start(2)] + filler + data[m.end(2) :]


def deep_nesting(data: bytes, rng: random.Random) -> bytes:
    m = _pick_block(data, rng)
    if m is None:
        return data
    depth = rng.choice((200, 900, 5000, 100_000))
    body = (
        b"[" * depth + b"]" * depth
        if rng.random() < 0.5
        else b'{"a":' * depth + b"1" + b"}" * depth
    )
    return data[: m.start(2)] + body + data[m.end(2) :]


def invalid_utf8(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data) + 1)
    return (
        data[:i]
        + rng.choice((b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\xe2\x82"))
        + data[i:]
    )


def crlf(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return data.replace(b"\n", b"\r\n")
    cut = rng.randrange(len(data) + 1)  # mixed line ends
    return data[:cut] + data[cut:].replace(b"\n", b"\r\n")


def nul_bytes(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data) + 1)
    return data[:i] + b"\x00" * rng.randint(1, 3) + data[i:]


def drop_line(data: bytes, rng: random.Random) -> bytes:
    """Remove the opener, the terminator, the article's end or any other line."""
    lines = data.split(b"\n")
    targets = [
        i
        for i, ln in enumerate(lines)
        if ln.strip() in (b": << 'OO_HTML'", b"OO_HTML", b"</article>")
    ]
    i = rng.choice(targets) if targets and rng.random() < 0.7 else rng.randrange(len(lines))
    del lines[i]
    return b"\n".join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


Mutator = Callable[[bytes, random.Random], bytes]
MUTATORS: dict[str, Mutator] = {
    "flip": flip_bytes,
    "truncate": truncate,
    "delete-block": delete_block,
    "double-block": double_block,
    "unclose-block": unclose_block,
    "json-types": confuse_json,
    "marker": insert_marker,
    "giant": giant_block,
    "deep": deep_nesting,
    "utf8": invalid_utf8,
    "crlf": crlf,
    "nul": nul_bytes,
    "drop-line": drop_line,
    "swap-lines": swap_lines,
}
# Cheap, productive mutators more often; giant blocks rarely (they cost a parse of megabytes).
_WEIGHTS = {"json-types": 8, "marker": 6, "flip": 4, "giant": 0.3, "deep": 0.7}


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    names = list(MUTATORS)
    weights = [_WEIGHTS.get(n, 2) for n in names]
    applied = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        name = rng.choices(names, weights)[0]
        if data:
            with contextlib.suppress(RecursionError, ValueError):  # json-types on a too deep block
                data = MUTATORS[name](data, rng)
        applied.append(name)
    return "+".join(applied), data


# --------------------------------------------------------------------------- strategies
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.sampled_from(HOSTILE_TEXT),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KNOWN_KEYS) | st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_ARTICLE_TOKENS = (
    "<p>", "</p>", "text [s1] ", "[s2] [s3]", '<h2 id="references">References</h2>', '<h2 id="a">A</h2>',
    "<h3>", "</h3>", "<!-- pid:a:deadbeef -->", "<!-- pid:a:zz -->", "<ol><li>", '<a href="https://x.y/">',
    "</a>", "</li></ol>", '<figure class="fig-right"><img src="data:image/png;base64,iVBORw0KGgo=" alt="a">',
    "<figcaption>c</figcaption></figure>", '<div class="stub-notice">', "<div>", "</div>", "<table><tr><td>",
    "<script>", "</script>", "<!--", "-->", "<article>", "</article>", "OO_HTML", "\n", "&amp;", "&#0;",
    "\x0b", "<![CDATA[", "]]>", '<p data-pid="pid:a:0">', "<", ">",
)  # fmt: skip
_HEADERS = ("#!/usr/bin/env bash\n", "# comment\n", "", "\ufeff", "<!DOCTYPE html>\n", "#\r\n")
_OPENERS = (
    ": << 'OO_HTML'\n",
    ': <<"OO_HTML"\n',
    ": <<-OO_HTML\n",
    ": << 'LIKI_HTML'\n",
    ": << OO_HTML \r\n",
    ": << 'OTHER'\n",
)
_TERMINATORS = ("OO_HTML\n", "OO_HTML", "OO_HTML\r\n", "LIKI_HTML\n", " OO_HTML\n", "")
_BLOCK_NAMES = (
    "oo-manifest",
    "oo-contract",
    "oo-source-cache",
    "oo-changelog",
    "liki-manifest",
    "other",
)


@st.composite
def _block(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(_BLOCK_NAMES))
    value = draw(_json_values)
    body = json.dumps(value, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        body = body.replace("</", "<\\/")
    return f'<script id="{name}" type="application/json">\n{body}\n</script>\n'


@st.composite
def _article(draw: st.DrawFn) -> str:
    tokens = draw(st.lists(st.sampled_from(_ARTICLE_TOKENS) | st.text(max_size=10), max_size=30))
    return '<article id="article">' + "".join(tokens) + "</article>\n"


@st.composite
def structured_documents(draw: st.DrawFn) -> bytes:
    """Documents assembled from plausible parts in arbitrary order and combination."""
    parts = draw(
        st.lists(
            _block() | _article() | st.sampled_from(_ARTICLE_TOKENS) | st.text(max_size=30),
            max_size=10,
        )
    )
    text = (
        "".join(draw(st.lists(st.sampled_from(_HEADERS), max_size=3)))
        + draw(st.sampled_from(_OPENERS))
        + "<!DOCTYPE html>\n<body>\n"
        + "".join(parts)
        + draw(st.sampled_from(_TERMINATORS))
        + draw(st.sampled_from(("", "exit 0\n", 'OO_HTML\n<script id="oo-manifest">{}</script>\n')))
    )
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text.encode("utf-8", "surrogatepass")


def binary_documents() -> st.SearchStrategy[bytes]:
    """Arbitrary bytes, sometimes behind a valid opener so the parser gets past line one."""
    return st.tuples(
        st.sampled_from((b"", b": << 'OO_HTML'\n", b"#!/bin/bash\n: << 'OO_HTML'\n<html>")),
        st.binary(max_size=400),
    ).map(lambda t: t[0] + t[1])
