"""A ``Digest`` (or ``Failure``, or "an index page": None) as JSON text, for the scan cache.

JSON, never pickle: the cache sits in the user's folder and could have been planted. Decoding
checks the shape of every part; anything that does not fit raises ``ValueError`` and the
caller reads the file instead. ``VERSION`` changes whenever the code that makes digests may
have changed (it hashes that code's source), so a cache never serves rows an older reading rule
made. ``ENCODED_FIELDS`` must name every ``Digest`` field: a test fails when one is added here
without its codec."""

from __future__ import annotations

import hashlib
import json
import math
import sys
import zlib
from collections import Counter
from datetime import date
from itertools import chain, compress, repeat
from operator import attrgetter, ne, sub
from pathlib import Path
from typing import Any

from oo_nb.format.blocks import MAX_CADENCE_DAYS, MAX_WHOLE
from oo_nb.format.legacy_script import InjectionRisk
from oo_nb.format.names import BLOCK_IDS
from oo_nb.library.digest import Digest, Failure, Problem, digest_many

__all__ = [
    "ENCODED_FIELDS",
    "VERSION",
    "code_version",
    "decode",
    "encode",
    "pack_many",
    "pack_result",
    "unpack",
]

_FORMAT = 6  # bump when the layout below changes
Result = Digest | Failure | None


def code_version(*modules: Path) -> str:
    """A hash of everything that decides what a file gives: the source of the format package,
    of the error messages kept in failures (``errors``, ``redaction``), of this codec and of
    ``modules``, and the version of Python (any edit there, even an upgrade, starts the cache
    again: an upgraded parser or error wording was served stale). The article is read by the
    package's own tokenizer (``format/html_tokens``), so no parser library's version counts
    (and a scan need not import lxml to learn it)."""
    import oo_nb.errors as errors
    import oo_nb.format as fmt
    import oo_nb.redaction as redaction

    h = hashlib.blake2b(str(_FORMAT).encode(), digest_size=12)
    h.update(repr(sys.version_info[:2]).encode())
    files = sorted(Path(fmt.__file__).resolve().parent.glob("*.py"))
    shared = [Path(m.__file__).resolve() for m in (errors, redaction) if m.__file__]
    for f in [*files, *shared, Path(__file__).resolve(), *modules]:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


VERSION = code_version(Path(__file__).resolve().parent / "digest.py")

# Digest fields written as they are (JSON scalars, lists of scalars, cite_counts, changelog)
_PLAIN = (
    "nbytes",
    "layout",
    "title",
    "version",
    "cadence_days",
    "is_sentinel",
    "sentinel_status",
    "budget_usd",
    "require_https",
    "cache_read",
    "changelog",
    "has_article",
    "original_script",
    "is_stub",
    "n_paragraphs",
    "figures",
    "unpidded",
    "bad_pids",
    "dup_pids",
    "crlf_line",
    "pid_leads",  # pid -> first words, only for malformed or duplicate pids
    "unpidded_leads",
)
_SPECIAL = (
    "deny",
    "prefer",
    "cite_sections",
    "cite_pids",
    "path",  # not stored: the path the library is opened with now
    "slug",  # not stored: the caller knows it from the path
    "as_of",
    "sources",
    "facts",
    "injection_risks",
    "unknown_code",
    "markup",
    "unsafe_blocks",
    "cite_ids",
    "cite_counts",  # not stored: Counter(cite_ids), as take_article counts them
    "references",
    "problems",
    "quotes",
)
ENCODED_FIELDS = frozenset((*_PLAIN, *_SPECIAL))
_plain_values = attrgetter(*_PLAIN)


# --------------------------------------------------------------------------- encoding
# Rows are written column by column (a list per field): smaller, and each column is checked
# and rebuilt by one C-level pass instead of a Python call per value.
def encode(result: Result) -> str:
    if result is None:
        return '{"kind":"index"}'
    if isinstance(result, Failure):
        f = result
        return _dumps(
            {
                "kind": "failure",
                "row": [f.error_type, f.message, f.line, f.block, f.column],
            }
        )
    d = result
    out: dict[str, Any] = {"kind": "digest"}
    out.update(zip(_PLAIN, _plain_values(d), strict=True))
    out["deny"], out["prefer"] = d.deny, d.prefer
    if len(d.cite_sections) != len(d.cite_pids):
        raise ValueError("citation columns differ in length")
    out["cites"] = [*_runs(d.cite_sections), *_runs(d.cite_pids)]
    out["cite_ids"] = _joined(d.cite_ids)
    out["as_of"] = _day(d.as_of)
    sources = _columns(d.sources, 9)
    days = sources[6]  # a date or None each
    sources[6] = (
        list(map(date.isoformat, days))
        if None not in days
        else [day and day.isoformat() for day in days]
    )
    out["sources"] = sources
    out["facts"] = facts = _columns(d.facts, 6)  # (source ids: tuples, written as lists)
    out["injection_risks"] = [[r.where, r.text, r.reason] for r in d.injection_risks]
    out["unknown_code"] = _columns(d.unknown_code, 3)
    out["markup"] = _columns(d.markup, 2)
    out["unsafe_blocks"] = _columns(d.unsafe_blocks, 2)
    refs = _columns(d.references, 3)
    if refs[0] == tuple(range(1, len(refs[0]) + 1)):  # positions 1..n (always, as scanned)
        del refs[0]
        if refs[1] == sources[1]:  # the sources' urls in their order (most documents)
            refs[1] = None
    out["references"] = refs
    out["problems"] = [[p.block, p.error_type, p.message, p.line, p.column] for p in d.problems]
    out["quotes"] = _columns(d.quotes, 3)
    _same(sources, (1, 2, 3, 4, 5, 6, 7, 8))  # after the references looked at the urls
    _same(facts, (2, 3, 5))
    return _dumps(out)


UNPACK_LIMIT = 64 << 20  # bytes of text: a digest is some 16 KB, of a 10 MB document a few MB


def pack_many(items: list[tuple[str, str]], pack: bool = True) -> list[str | bytes]:
    """``digest_many`` as cache text, a digest's ``pack``ed: what a scan keeps of a file it read
    (and a worker process sends back: a string pickles in one copy, a digest in thousands of
    small objects)."""
    return [pack_result(result, pack) for result in digest_many(items)]


def pack_result(result: Result, pack: bool = True) -> str | bytes:
    """A digest's text, compressed with ``pack`` (a third of the memory until it is decoded, for
    a tenth more time: worth it for a large library), anything else (failure, index page: small)
    as text."""
    text = encode(result)
    return zlib.compress(text.encode(), 1) if pack and isinstance(result, Digest) else text


def unpack(payload: str | bytes, limit: int = UNPACK_LIMIT) -> str:
    """The text of what ``pack_result`` made; ``ValueError`` for bytes it did not make (a row of
    the library's cache is packed too, and the cache file could have been planted: a payload
    longer than ``limit`` once inflated is refused, and the file is read again instead)."""
    if isinstance(payload, str):
        if len(payload) > limit:
            raise ValueError("not a cached digest: too large")
        return payload
    inflate = zlib.decompressobj()
    try:
        text = inflate.decompress(payload, limit)
    except zlib.error as exc:
        raise ValueError(f"not a packed digest: {exc}") from None
    if inflate.unconsumed_tail or not inflate.eof or inflate.unused_data:
        raise ValueError("not a packed digest: too large, cut short or followed by other bytes")
    return text.decode()  # UnicodeDecodeError is a ValueError


def row_limit(file_size: int) -> int:
    """The most text a digest of a file of ``file_size`` bytes can take: a digest holds parts of
    the file and short rows about it (half its size at most in the corpus and the synthetic
    libraries), so a cached row much longer than the file was not written by ``encode``."""
    return min(4 * file_size + (1 << 20), UNPACK_LIMIT)


def _runs(column: tuple[Any, ...]) -> tuple[list[Any], list[int]]:
    """A citation column as runs of one value: (values, counts), most of the bytes saved (a
    section has a few dozen citations, a paragraph a few). Where a run starts is found by
    C-level passes, not a Python step per citation (what groupby took)."""
    n = len(column)
    starts = [0, *compress(range(1, n), map(ne, column[1:], column))] if n else []
    return list(map(column.__getitem__, starts)), list(map(sub, [*starts[1:], n], starts))


def _joined(ids: tuple[str, ...]) -> str | list[str]:
    """Source ids ("s12": no space in them) as one string, a space between them: a tenth of the
    cost of a list to write and to read; a list when some id is empty or holds a space."""
    text = " ".join(ids)
    return text if not ids or (all(ids) and text.count(" ") == len(ids) - 1) else list(ids)


def _same(table: list[Any], columns: tuple[int, ...]) -> None:
    """Each of those columns that holds one string, null or bool in every row (the sources'
    form, the string facts' key and value: a fifth of the values) as {"all": value}. Never the
    first column, which says how many rows there are; never a list (a planted one would be
    copied into every row)."""
    if len(table[0]) < 2:
        return
    for j in columns:
        column = table[j]
        first = column[0]
        if column[-1] == first and type(first) in _SCALARS and column.count(first) == len(column):
            table[j] = {"all": first}


_SCALARS = frozenset({str, bool, type(None)})


def _columns(rows: list[Any], width: int) -> list[Any]:
    """The rows' columns, tuples (json writes them as lists; not copied)."""
    return list(zip(*rows, strict=True)) if rows else [() for _ in range(width)]


# ASCII out (other characters as \u escapes): a sixth faster to write than UTF-8 text, and to
# read back, even for documents full of typographic quotes and dashes; no check for cycles (a
# digest's values come from JSON and the document: none)
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False, check_circular=False)


def _dumps(value: Any) -> str:
    return _ENCODER.encode(value)


def _day(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


# --------------------------------------------------------------------------- decoding
def decode(text: str, path: str, slug: str) -> Result:
    """The result ``encode`` made; ``ValueError`` when the text is not one."""
    try:
        raw = json.loads(text)
        kind = raw["kind"]
        if kind == "index":
            return None
        if kind == "failure":
            error_type, message, line, block, column = raw["row"]
            _check([error_type, message], _STR)
            _check([line, column], _INT_OR_NONE)
            _check([block], _STR_OR_NONE)
            if not all(n is None or 0 <= n <= MAX_WHOLE for n in (line, column)):
                raise ValueError("failure: line out of range")
            return Failure(path, slug, error_type, message, line, block, column)
        if kind != "digest":
            raise ValueError(f"unknown kind {kind!r}")
        return _digest(raw, path, slug)
    except Exception as exc:  # anything: JSON nested past the recursion limit, a date past 9999
        # (a row this module did not write is read again from the file)
        raise ValueError(f"not a cached digest: {type(exc).__name__}: {exc}") from None


_STR: frozenset[type] = frozenset({str})
_MARKUP_CODES = frozenset(
    {"unmodelled-markup", "unlinked-reference", "article-script", "unsafe-text"}
)
_STR_OR_NONE: frozenset[type] = frozenset({str, type(None)})
_INT_OR_NONE: frozenset[type] = frozenset({int, type(None)})
_BOOL_OR_NONE: frozenset[type] = frozenset({bool, type(None)})


def _check(values: Any, allowed: frozenset[type]) -> list[Any]:
    """``values`` as a list whose items are all of the ``allowed`` types (exactly: no bool for
    an int)."""
    if type(values) is not list or not set(map(type, values)) <= allowed:
        raise ValueError("unexpected value types")
    return values


def _table(raw: Any, kinds: tuple[frozenset[type], ...]) -> list[list[Any]]:
    if type(raw) is not list or len(raw) != len(kinds):
        raise ValueError("not a table")
    columns = [_check(col, kind) for col, kind in zip(raw, kinds, strict=True)]
    if len({len(col) for col in columns}) > 1:
        raise ValueError("columns differ in length")
    return columns


_INT: frozenset[type] = frozenset({int})
_BOOL: frozenset[type] = frozenset({bool})
# The type of every plain field, as the reader makes it: a row with another type (planted or
# damaged) is not served (a title that is a list, a version "x", a cadence "7" crashed the frames)
_PLAIN_TYPES: dict[str, frozenset[type]] = {
    "nbytes": _INT,
    "layout": _STR,
    "title": _STR_OR_NONE,
    "version": _INT_OR_NONE,
    "cadence_days": _INT_OR_NONE,
    "is_sentinel": _BOOL_OR_NONE,
    "sentinel_status": _STR_OR_NONE,
    "budget_usd": frozenset({int, float, type(None)}),
    "require_https": _BOOL,
    "cache_read": _BOOL,
    "changelog": frozenset({list}),
    "has_article": _BOOL,
    "original_script": _BOOL,
    "is_stub": _BOOL,
    "n_paragraphs": _INT,
    "figures": _INT,
    "unpidded": frozenset({list}),
    "bad_pids": frozenset({list}),
    "dup_pids": frozenset({list}),
    "crlf_line": _INT_OR_NONE,
    "pid_leads": frozenset({dict}),
    "unpidded_leads": frozenset({dict}),
}


_PLAIN_KINDS = [_PLAIN_TYPES[name] for name in _PLAIN]


def _digest(raw: dict[str, Any], path: str, slug: str) -> Digest:
    values = [raw[name] for name in _PLAIN]
    if not all(map(frozenset.__contains__, _PLAIN_KINDS, map(type, values))):
        name, value = next(
            (n, v) for n, v in zip(_PLAIN, values, strict=True) if type(v) not in _PLAIN_TYPES[n]
        )
        raise ValueError(f"{name}: unexpected {type(value).__name__}")
    if any(type(v) is int and abs(v) > MAX_WHOLE for v in values):  # counts, sizes, a version
        name = next(
            n for n, v in zip(_PLAIN, values, strict=True) if type(v) is int and abs(v) > MAX_WHOLE
        )
        raise ValueError(f"{name}: out of range")
    d = Digest(path=path, slug=slug, **dict(zip(_PLAIN, values, strict=True)))
    if d.cadence_days is not None and not 1 <= d.cadence_days <= MAX_CADENCE_DAYS:
        raise ValueError("cadence_days: out of range")
    if d.budget_usd is not None and not math.isfinite(d.budget_usd):
        raise ValueError("budget_usd: not a finite number")
    _check(d.changelog, frozenset({dict}))
    for column in (d.unpidded, d.bad_pids, d.dup_pids):
        _check(column, _STR)
    for leads in (d.pid_leads, d.unpidded_leads):
        _check(list(leads.values()), _STR)
    d.deny, d.prefer = tuple(_check(raw["deny"], _STR)), tuple(_check(raw["prefer"], _STR))
    ids = raw["cite_ids"]
    if type(ids) is str:
        ids = ids.split(" ") if ids else []
    d.cite_ids = tuple(map(sys.intern, _check(ids, _STR)))
    d.cite_counts = dict(Counter(d.cite_ids))
    cites = raw["cites"]
    if type(cites) is not list or len(cites) != 4:
        raise ValueError("cites: not two columns of runs")
    d.cite_sections = _expand(cites[0], cites[1], _STR, len(d.cite_ids))
    d.cite_pids = _expand(cites[2], cites[3], _STR_OR_NONE, len(d.cite_ids))
    as_of = raw["as_of"]
    d.as_of = date.fromisoformat(as_of) if as_of is not None else None
    if d.as_of is not None and d.as_of.toordinal() + (d.cadence_days or 0) > date.max.toordinal():
        raise ValueError("as_of: its due date is past 9999-12-31")
    src = _table(_every(raw["sources"]), (*[_STR] * 6, _STR_OR_NONE, _BOOL_OR_NONE, _STR))
    src[6] = [date.fromisoformat(day) if day is not None else None for day in src[6]]
    d.sources = list(zip(*src, strict=True))
    facts = _table(
        _every(raw["facts"]), (_STR, _STR, _STR_OR_NONE, _STR_OR_NONE, frozenset({list}), _STR)
    )
    _check(list(chain.from_iterable(facts[4])), _STR)  # every fact's source ids, at once
    facts[4] = list(map(tuple, facts[4]))
    d.facts = list(zip(*facts, strict=True))
    d.injection_risks = [InjectionRisk(*_check(r, _STR)) for r in raw["injection_risks"]]
    d.unknown_code = list(zip(*_table(raw["unknown_code"], (_STR, _STR, _STR)), strict=True))
    codes, messages = _table(raw["markup"], (_STR, _STR))
    if not set(codes) <= _MARKUP_CODES:  # the audit grades by code: only those it knows
        raise ValueError("not a markup finding")
    d.markup = list(zip(codes, messages, strict=True))
    blocks, messages = _table(raw["unsafe_blocks"], (_STR, _STR))
    if not set(blocks) <= set(BLOCK_IDS):
        raise ValueError("not a block")
    d.unsafe_blocks = list(zip(blocks, messages, strict=True))
    refs = raw["references"]
    if type(refs) is list and len(refs) == 2:  # positions 1..n left out
        if refs[1] is None:  # the sources' urls
            refs = [refs[0], list(src[1])]
        sids, urls = _table(refs, (_STR_OR_NONE, _STR))
        d.references = list(zip(range(1, len(sids) + 1), sids, urls, strict=True))
    else:
        refs = _table(refs, (frozenset({int}), _STR_OR_NONE, _STR))
        if not all(0 < pos <= MAX_WHOLE for pos in refs[0]):
            raise ValueError("references: position out of range")
        d.references = list(zip(*refs, strict=True))
    d.problems = [Problem(*_problem(p)) for p in raw["problems"]]
    d.quotes = list(zip(*_table(raw["quotes"], (_STR, _STR, _BOOL_OR_NONE)), strict=True))
    return d


def _every(raw: Any) -> Any:
    """A table with each {"all": value} column (``_same``) as that value in every row."""
    if type(raw) is not list or not raw or type(raw[0]) is not list:
        return raw
    n = len(raw[0])
    return [
        [col["all"]] * n
        if type(col) is dict and len(col) == 1 and "all" in col and type(col["all"]) in _SCALARS
        else col
        for col in raw
    ]


def _expand(values: Any, counts: Any, kind: frozenset[type], n: int) -> tuple[Any, ...]:
    """The column of ``n`` citations that runs of ``values`` repeated ``counts`` times make."""
    _table([values, counts], (kind, _INT))
    # checked before the runs are expanded: a planted count of 10**7 is not 10**7 tuples
    if min(counts, default=1) < 1 or sum(counts) != n:
        raise ValueError("citation runs do not cover the citations")
    return tuple(chain.from_iterable(map(repeat, values, counts)))


def _problem(row: Any) -> list[Any]:
    block, error_type, message, line, column = row
    _check([block, error_type, message], _STR)
    _check([line, column], _INT_OR_NONE)
    if not all(n is None or 0 <= n <= MAX_WHOLE for n in (line, column)):
        raise ValueError("problem: line out of range")
    return list(row)
