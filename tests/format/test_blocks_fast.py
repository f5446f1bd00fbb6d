"""The block views' shortcuts (oo_nb/format/blocks.py) give what the long way gives: the same
values of the same types, and the same errors, on tricky values (hypothesis is not installed:
lists and seeded random mixes of them)."""

from __future__ import annotations

import itertools
import random
import re
import sys
import unicodedata
from dataclasses import FrozenInstanceError, fields, is_dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from oo_nb.errors import OOError
from oo_nb.format import blocks
from oo_nb.format.blocks import (
    Changelog,
    Contract,
    Fact,
    Manifest,
    Source,
    SourceCache,
    domain_of,
    fact_source_ids,
    parse_date,
)
from oo_nb.format.document import Document
from oo_nb.format.names import SOURCE_CACHE_BLOCK
from tests.conftest import CORPUS
from tests.format.test_fast_paths import by_urlsplit

SHARED_CORPUS = Path("/work/shared/corpus")


class Text(str):
    """A str subclass: never taken by a fast path that checks ``type(x) is str``."""


def shape(value: Any) -> Any:
    """A comparable form of a view that keeps every type and the attribute order."""
    if is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            list(vars(value)),
            [shape(getattr(value, f.name)) for f in fields(value)],
        )
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [shape(v) for v in value])
    if isinstance(value, dict):
        return ("dict", [(shape(k), shape(v)) for k, v in value.items()])
    if isinstance(value, float) and value != value:
        return ("nan",)
    return (type(value).__name__, value)


def outcome(read: Any, *args: Any) -> Any:
    try:
        return ("ok", shape(read(*args)))
    except OOError as exc:
        where = (exc.message, getattr(exc, "key", None), getattr(exc, "block", None))
        return ("error", type(exc).__name__, str(exc), *where, exc.line, exc.column)


# --------------------------------------------------------------------------- dates
def date_values() -> list[Any]:
    years = ["0000", "0001", "1999", "2023", "2024", "2100", "9999", "２０２４", "٢٠٢٤", "202"]
    months = ["00", "01", "02", "1", "12", "13", "０1", "W0"]
    days = ["00", "01", "28", "29", "30", "31", "32", "3", "1 "]
    seps = ["-", "/", ""]
    tails = ["", "T09:30:00Z", " ", "\n", "x", "0", "-", "\ud800"]
    heads = ["", " ", "\t", "\u3000", "x"]
    values: list[Any] = []
    for y, m, d, sep in itertools.product(years, months, days, seps):
        values.append(f"{y}{sep}{m}{sep}{d}")
    for head, tail in itertools.product(heads, tails):
        values += [f"{head}2024-02-29{tail}", f"{head}2023-02-29{tail}", f"{head}2024-2-3{tail}"]
    whole = "2024-01-31T12:00:00+01:00"
    values += [whole[:k] for k in range(len(whole) + 1)]
    values += ["2024-W01-1", "2024-W01", "20240101", "2024-001", "2024-01-01x", "2024—01—01"]
    values += [None, 20240101, 2024.0, b"2024-01-01", ["2024-01-01"], date(2024, 1, 1)]
    values += [datetime(2024, 1, 1), Text("2024-01-01"), Text(" 2024-13-01"), True, {}]
    return values


def test_parse_date_fast_path_is_the_long_way() -> None:
    values = date_values()
    assert len(values) > 2000
    for _ in range(2):  # read, then from the dates already read
        for value in values:
            got, want = parse_date(value), blocks._parse_date(value)
            assert (type(got), got) == (type(want), want), repr(value)
    assert len(blocks._DAYS) <= blocks._DAYS_KEPT
    assert parse_date("2024-02-29") == date(2024, 2, 29)
    assert parse_date("2023-02-29") is None and parse_date("2024-2-3") is None
    assert parse_date(" 2024-01-31T10:00Z") == date(2024, 1, 31)
    assert parse_date("٢٠٢٤-01-01") == date(2024, 1, 1)  # \d: any decimal digit, as before


# --------------------------------------------------------------------------- domains
def test_domain_of_agrees_with_urlsplit_on_tricky_hosts() -> None:
    schemes = ["https://", "http://", "HTTP://", "hTTps://", "httpſ://", "ftp://", "//", ""]
    hosts = [
        "example.com", "www.example.com", "WWW.EXAMPLE.COM", "xn--bcher-kva.example",
        "bücher.de", "user:pw@h.com", "user@www.h.com", "h.com:8080", "h.com:", "h.com:99999",
        "[::1]", "[2001:db8::1]:443", "[::1", "192.168.0.1", "h.com.", "www.", ".", "-h-.com",
        "\u212aelvin.com", "\u0130x.com", "ſx.com", "h_o.com", "h.com\\", "h%2e.com", "a b.com",
        "ex\tample.com", "ＥＸ.com", "www.www.h.com", "",
    ]  # fmt: skip
    tails = ["", "/", "/a//b", "?q", "#f", ":", "\n", " ", "/\tx", "@x/"]
    n = 0
    for scheme, host, tail in itertools.product(schemes, hosts, tails):
        for url in (scheme + host + tail, " " + scheme + host + tail):
            assert domain_of(url) == by_urlsplit(url), repr(url)
            n += 1
    assert n > 4000
    assert domain_of("ft.com") == "ft.com" and domain_of("ft.com/a//b") == ""
    assert domain_of("httpſ://h.com/") == ""  # not http: urlsplit finds no host


# --------------------------------------------------------------------------- fact markers
def markers_by_search(fact: str) -> tuple[str, ...]:
    """What fact_source_ids gave for a string fact before it read the markers from the end
    (ASCII digits only since the vocabulary: "[s١]" is no citation; "[S1]" is s1, as the page
    links it)."""
    markers = re.search(r"(?:\s*\[[sS][0-9]+\])+\s*$", fact)
    found = re.findall(r"[sS]([0-9]+)", markers.group(0)) if markers else []
    return tuple(dict.fromkeys(f"s{n}" for n in found))


def spaces() -> list[str]:
    """Every character ``\\s`` matches (str.isspace), and a few it does not."""
    found = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    assert all(re.fullmatch(r"\s", c) for c in found)
    return [*found, "\u200b", "\ufeff", "x"]


def test_fact_markers_read_from_the_end_are_the_search() -> None:
    rng = random.Random(15)
    pieces = ["[s1]", "[s12]", "[s]", "[s١]", "[S1]", "[s1", "s1]", "]", "[", "s", "1", "x"]
    pieces += [" ", "\t", "\n", "\x1c", "\u2003", "\x85", "\u200b", "[s1][s2]", "[s2] [s1]"]
    samples = ["text [s1] [s2]", "text [s1][s1] \n", "[s1]", "", "]", "a[s1]b", "x [s3]\n\n"]
    samples += ["fact" + "".join(p) for p in itertools.product(pieces[:8], repeat=2)]
    samples += [f"f{c}[s7]{c}" for c in spaces()]
    samples += [
        "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(20_000)
    ]
    for text in samples:
        assert fact_source_ids(text) == markers_by_search(text), repr(text)
        assert fact_source_ids(Text(text)) == markers_by_search(text), repr(text)
    assert fact_source_ids("Revenue grew [s3] [s1][s3]\n") == ("s3", "s1")


def test_object_fact_source_ids_keep_their_order_and_drop_repeats() -> None:
    fact = {"source": "s2", "source_id": "s1", "source_ids": ["s1", 3, "s2"], "sources": ["s4"]}
    assert fact_source_ids(fact) == ("s2", "s1", "3", "s4")
    assert fact_source_ids({"source": "", "sources": "s1"}) == ()
    assert fact_source_ids({"source_ids": ["s5"]}) == ("s5",)


# --------------------------------------------------------------------------- items
VALUES: list[Any] = [
    None, "", "x", "s3", Text("t"), Text(""), 0, 1, -1, 2.0, 2.5, True, False, [], ["s1"],
    ["s1", 2], {}, {"a": 1}, "2024-02-29", "2023-02-29", " 2024-01-01", "2024-01-01T09:30:00Z",
    "https://www.Example.com:8080/p", "ft.com - Financial Times", "text [s1] [s2]",
    2**53 - 1, 2**53, -(2**53), float("nan"), float("inf"),
]  # fmt: skip
SOURCE_KEYS = ["id", "url", "title", "tier", "accessed", "description", "verified"]
FACT_KEYS = ["id", "text", "key", "value", "source", "source_id", "source_ids", "sources"]
FACT_KEYS += ["quote", "quote_found"]
ENTRY_KEYS = ["version", "timestamp", "date", "summary", "model", "tokens"]


def items(keys: list[str], n: int, seed: int) -> list[Any]:
    """Objects of a random mix of those keys and values, and a few items of other types."""
    rng = random.Random(seed)
    out: list[Any] = [None, 3, "plain string", Text("string"), [], ["x"], {}]
    for _ in range(n):
        chosen = rng.sample(keys, rng.randint(0, len(keys)))
        out.append({k: rng.choice(VALUES) for k in chosen})
    return out


def owner(raw: dict[str, Any]) -> blocks._Fields:
    return blocks._Fields(raw, SOURCE_CACHE_BLOCK, "x.o-o.html")


def test_source_fast_path_is_the_long_way() -> None:
    f = owner({})
    good = {"id": "s1", "url": "https://www.a.com/x", "title": "T", "tier": "news"}
    for i, item in enumerate([good, *items(SOURCE_KEYS, 4000, 1)]):
        got = outcome(blocks._source, item, i, f)
        assert got == outcome(blocks._source_checked, item, i, f), repr(item)
    # some took each way
    assert outcome(blocks._source, {"url": 3}, 0, f)[0] == "error"
    assert blocks._source(good, 0, f) == Source(
        "s1", "https://www.a.com/x", "T", "news", None, "a.com", "", None, "object"
    )


def test_fact_fast_path_is_the_long_way() -> None:
    f = owner({})
    for i, item in enumerate(items(FACT_KEYS, 4000, 2)):
        got = outcome(blocks._fact, item, i, f)
        assert got == outcome(blocks._fact_checked, item, i, f), repr(item)
    assert outcome(blocks._fact, {"text": 3}, 4, f)[0] == "error"
    assert blocks._fact("x [s2]", 0, f) == Fact("f1", "x [s2]", None, None, ("s2",), "string")


def test_changelog_entry_fast_path_is_the_long_way() -> None:
    for i, item in enumerate(items(ENTRY_KEYS, 4000, 3)):
        got = outcome(blocks._entry, item, i, "x.o-o.html")
        assert got == outcome(blocks._entry_checked, item, i, "x.o-o.html"), repr(item)
    entry = blocks._entry({"version": 2, "summary": "s", "b": 1, "timestamp": "t", "a": 2}, 0, None)
    assert list(entry.extra) == ["b", "a"]
    with pytest.raises(OOError, match="whole number") as info:
        Changelog.from_json({"entries": [{"summary": "a"}, {"version": 2**53}]}, file="x")
    assert info.value.key == "entries[1].version"  # type: ignore[attr-defined]


def test_sentinel_check_in_the_steps() -> None:
    def reference(steps: Any) -> bool:
        steps = steps if isinstance(steps, list) else []
        return any(isinstance(s, str) and "SENTINEL CHECK" in s for s in steps)

    cases: list[Any] = [
        None, "SENTINEL CHECK", [], ["1. SENTINEL CHECK: x"], ["SENTINEL", "CHECK"],
        ["SENTINEL\nCHECK"], ["a", 3, "b SENTINEL CHECK"], [3, None], [Text("SENTINEL CHECK")],
        ["SENTINEL ", "CHECK"], [b"SENTINEL CHECK"], ["sentinel check"], [["SENTINEL CHECK"]],
    ]  # fmt: skip
    for steps in cases:
        assert blocks._has_sentinel_check(steps) == reference(steps), repr(steps)


# --------------------------------------------------------------------------- whole views
def documents() -> list[Document]:
    paths = sorted(CORPUS.glob("*.o-o.html"))
    if SHARED_CORPUS.is_dir():
        paths += sorted(SHARED_CORPUS.glob("*.o-o.html"))
    return [doc for doc in map(Document.read, paths) if doc.kind == "document"]


def test_views_hold_every_field_in_order_and_stay_frozen() -> None:
    """Views built without their __init__ still hold every field (in the dataclass's order)
    and refuse to change."""

    def check(view: Any) -> None:
        if is_dataclass(view) and not isinstance(view, type):
            assert list(vars(view)) == [f.name for f in fields(view)], type(view)
            with pytest.raises(FrozenInstanceError):
                view.__setattr__(fields(view)[0].name, None)
            for f in fields(view):
                if f.name not in ("raw", "extra"):
                    check(getattr(view, f.name))
        elif isinstance(view, tuple):
            for v in view:
                check(v)

    docs = documents()
    assert docs
    for doc in docs:
        for view in (doc.manifest, doc.contract, doc.source_cache, doc.changelog):
            check(view)
    for view in (
        Manifest.from_json({}),
        Contract.from_json({"sentinel": {"event": "e"}}),
        SourceCache.from_json({"sources": ["ft.com - FT", {"url": "u"}], "facts": ["f", {}]}),
        Changelog.from_json([{"version": 1}, "note"]),
    ):
        check(view)


def test_frozen_is_the_constructor() -> None:
    values = {
        "id": "s1", "url": "u", "title": "t", "tier": "", "accessed": date(2024, 1, 1),
        "domain": "d", "description": "", "verified": True, "form": "object",
    }  # fmt: skip
    built = blocks._frozen(Source, dict(values))
    assert built == Source(**values) and repr(built) == repr(Source(**values))
    assert hash(built) == hash(Source(**values))
    assert unicodedata.name("ſ") == "LATIN SMALL LETTER LONG S"  # the one named above
