"""What the library index shows about each document, read with the document model (never by
grepping the file, which found template values after the terminator)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from oo_nb.errors import BlockError, OOError, ValidationError
from oo_nb.format.article import first_excerpt
from oo_nb.format.blocks import MAX_CADENCE_DAYS, MAX_WHOLE, Contract, Manifest
from oo_nb.format.document import Document
from oo_nb.format.jsonblock import parse_block
from oo_nb.format.names import CONTRACT_BLOCK, MANIFEST_BLOCK, SOURCE_CACHE_BLOCK
from oo_nb.format.sentinel_state import current_sentinel
from oo_nb.library.digest_codec import code_version
from oo_nb.library.executor import owned_pool
from oo_nb.library.library import discover
from oo_nb.library.scan import Codec, read_cached

__all__ = [
    "DocEntry",
    "DocError",
    "Scan",
    "decode_entry",
    "discover",
    "encode_entry",
    "quick_excerpt",
    "read_entry",
    "scan",
]

PARALLEL_FROM = 200  # documents; below this a process pool costs more than it saves


@dataclass(frozen=True)
class DocEntry:
    path: Path
    rel: str  # POSIX path relative to the index folder (what the links use)
    title: str
    version: int
    as_of: date | None
    cadence_days: int
    excerpt: str
    bytes: int
    n_sources: int
    sentinel_status: str | None  # None: not a sentinel document
    mtime: float

    @property
    def is_new(self) -> bool:
        return self.as_of is None

    def age_days(self, today: date) -> int | None:
        return (today - self.as_of).days if self.as_of else None

    def is_stale(self, today: date) -> bool:
        """Due by its own cadence: as old as its cadence or older (the update gate skips a
        document only while its age is below the cadence)."""
        age = self.age_days(today)
        return age is not None and age >= self.cadence_days


@dataclass(frozen=True)
class DocError:
    rel: str
    message: str


@dataclass(frozen=True)
class Scan:
    root: Path
    entries: tuple[DocEntry, ...]
    errors: tuple[DocError, ...]


def quick_excerpt(article_html: str) -> str:
    """``Article.excerpt`` without reading the whole article (``article.first_excerpt``)."""
    return first_excerpt(article_html)


def _block(doc: Document, name: str) -> Any:
    """A block's JSON, parsed once and not copied (an index reads each block once), by the one
    strict block reader (``parse_block``: a lone surrogate, NaN or a bomb refused as everywhere
    else). Only a refused block pays for the line table, to name its line."""
    try:
        return parse_block(doc.block_text(name), block=name)
    except BlockError:
        return doc.block_json(name)  # raises the located BlockError


def read_entry(path: Path, root: Path, data: bytes | None = None) -> DocEntry:
    """What the index shows of the document at ``path`` (``data``: its bytes, already read)."""
    doc = Document.read(path) if data is None else Document.parse(data, path=path)
    if doc.kind != "document":
        raise OOError("is an index page, not a document", file=str(path))
    try:
        m = Manifest.from_json(_block(doc, MANIFEST_BLOCK), file=doc.file)
    except ValidationError as exc:
        raise doc.locate(exc, MANIFEST_BLOCK) from None
    try:
        c = Contract.from_json(_block(doc, CONTRACT_BLOCK), file=doc.file)
    except ValidationError as exc:
        raise doc.locate(exc, CONTRACT_BLOCK) from None
    cache = _block(doc, SOURCE_CACHE_BLOCK)
    sources = cache.get("sources") if isinstance(cache, dict) else None
    if sources is not None and not isinstance(sources, list):
        raise ValidationError(
            "must be a list", file=doc.file, block=SOURCE_CACHE_BLOCK, key="sources"
        )
    stat = path.stat()
    return DocEntry(
        path=path,
        rel=path.relative_to(root).as_posix(),
        title=m.title.strip() or c.subject.strip() or path.name,
        version=m.version,
        as_of=m.as_of,
        cadence_days=m.cadence_days,
        excerpt=quick_excerpt(doc.article_html) if doc.article_span else "",
        bytes=stat.st_size,
        n_sources=len(sources or ()),
        sentinel_status=_sentinel_status(c, doc),
        mtime=stat.st_mtime,
    )


def _sentinel_status(c: Contract, doc: Document) -> str | None:
    """The status the badge shows (``sentinel_state``); the changelog is read only for an
    original sentinel document, and a damaged one leaves the contract's status."""
    if c.sentinel is None or c.sentinel.structured:
        return c.sentinel.status if c.sentinel is not None else None
    try:
        log = doc.changelog
    except OOError:
        return c.sentinel.status
    now = current_sentinel(c.sentinel, log)
    return now.status if now is not None else None


def _entry_or_error(job: tuple[Path, Path], data: bytes | None = None) -> DocEntry | DocError:
    path, base = job
    rel = path.relative_to(base).as_posix()
    try:
        return read_entry(path, base, data)
    except OOError as exc:
        text = str(exc)
        return DocError(rel, text.removeprefix(f"{exc.file}: ") if exc.file else text)
    except OSError as exc:
        return DocError(rel, f"cannot read: {exc.strerror}")


def _default_workers(n: int) -> int:
    """Worker processes for a scan: only for large libraries."""
    if n < PARALLEL_FROM:
        return 1
    return max(1, min(os.cpu_count() or 1, 4))


def scan(root: str | Path, *, workers: int | None = None, cache: bool = True) -> Scan:
    """Read every document under ``root``; a document that cannot be read becomes an error
    entry and never stops the scan. Only documents changed since the last scan are read (the
    library's cache, ``DIR/.oo-cache``; ``cache=False``: read them all); many are read by
    several processes."""
    base = Path(root)
    paths = discover(base)

    def read_many(
        items: list[tuple[str, str]], _executor: Executor | None, _workers: int
    ) -> list[DocEntry | DocError]:
        jobs = [(Path(path), base) for path, _rel in items]
        n = workers if workers is not None else _default_workers(len(jobs))
        if n > 1 and len(jobs) > 1:
            with owned_pool(n) as pool:  # forkserver or spawn: safe in a threaded kernel
                chunk = max(1, len(jobs) // (n * 8))
                return list(pool.map(_entry_or_error, jobs, chunksize=chunk))
        return [_entry_or_error(job) for job in jobs]

    codec = _codec(
        read_one=lambda data, path, _rel: _entry_or_error((Path(path), base), data),
        read_many=read_many,
    )
    items = [(p, p.relative_to(base).as_posix()) for p in paths]
    folder = base if cache and base.is_dir() else None
    found = read_cached(items, folder, {}, 1, codec)
    results = [found[str(p)].resolve(str(p), rel) for p, rel in items]
    entries = tuple(r for r in results if isinstance(r, DocEntry))
    errors = tuple(r for r in results if isinstance(r, DocError))
    return Scan(base, entries, errors)


# --------------------------------------------------------------------------- the cache
# An entry (or the error a file gave) as JSON text for the library's cache (view
# ``index-entry``), so that ``oo index`` reads only what changed since its last run. Decoding
# checks every field's type; text ``encode_entry`` did not write raises ValueError and the file
# is read instead.
CACHE_VERSION = code_version(Path(__file__).resolve())
Entry = DocEntry | DocError
_FIELDS: dict[str, tuple[type, ...]] = {
    "title": (str,),
    "version": (int,),
    "as_of": (str, type(None)),
    "cadence_days": (int,),
    "excerpt": (str,),
    "bytes": (int,),
    "n_sources": (int,),
    "sentinel_status": (str, type(None)),
    "mtime": (float, int),
}


def encode_entry(entry: Entry) -> str:
    if isinstance(entry, DocError):
        return json.dumps({"kind": "error", "message": entry.message}, ensure_ascii=False)
    row: dict[str, Any] = {"kind": "entry"}
    for name in _FIELDS:
        row[name] = getattr(entry, name)
    row["as_of"] = entry.as_of.isoformat() if entry.as_of is not None else None
    return json.dumps(row, ensure_ascii=False, allow_nan=False)


def decode_entry(text: str, path: str, rel: str) -> Entry:
    try:
        raw = json.loads(text)
        if raw["kind"] == "error":
            if type(raw["message"]) is not str:
                raise ValueError("message: not a string")
            return DocError(rel, raw["message"])
        if raw["kind"] != "entry":
            raise ValueError(f"unknown kind {raw['kind']!r}")
        for name, types in _FIELDS.items():
            if type(raw[name]) not in types:
                raise ValueError(f"{name}: unexpected {type(raw[name]).__name__}")
        as_of = date.fromisoformat(raw["as_of"]) if raw["as_of"] is not None else None
        if not math.isfinite(raw["mtime"]):
            raise ValueError("mtime: not a finite number")
        for name in ("version", "bytes", "n_sources"):
            if abs(raw[name]) > MAX_WHOLE:
                raise ValueError(f"{name}: out of range")
        if not 1 <= raw["cadence_days"] <= MAX_CADENCE_DAYS or (
            as_of is not None and as_of.toordinal() + raw["cadence_days"] > date.max.toordinal()
        ):  # as a manifest allows: every staleness sum adds the cadence to as_of
            raise ValueError("cadence_days: out of range")
        return DocEntry(
            path=Path(path),
            rel=rel,
            title=raw["title"],
            version=raw["version"],
            as_of=as_of,
            cadence_days=raw["cadence_days"],
            excerpt=raw["excerpt"],
            bytes=raw["bytes"],
            n_sources=raw["n_sources"],
            sentinel_status=raw["sentinel_status"],
            mtime=float(raw["mtime"]),
        )
    except Exception as exc:  # anything (JSON nested past the recursion limit): read the file
        raise ValueError(f"not a cached index entry: {type(exc).__name__}: {exc}") from None


def _codec(
    read_one: Callable[[bytes | None, str, str], Entry],
    read_many: Callable[[list[tuple[str, str]], Executor | None, int], list[Entry]],
) -> Codec:
    return Codec("index-entry", CACHE_VERSION, encode_entry, decode_entry, read_one, read_many)
