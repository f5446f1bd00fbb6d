"""Digests for a list of files, reading only the files that changed.

What a file gave last time comes from this process's memory (a ``Library`` refreshed again) or
from the library's cache on disk (``store.scan_cache``, shared by every process: CLI, notebook,
``oo index``, update-all). A file is read again unless its stamp is the same, and, when it was
recorded while its timestamps were too recent to tell two edits apart, its bytes too. Only the
files that changed are parsed (on an executor for many, ``executor``); the cache then gets
their rows and loses the rows of files that are gone."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oo_nb.format.document import read_regular
from oo_nb.library import digest_codec
from oo_nb.library.digest import Digest, Failure, digest_bytes, digest_many
from oo_nb.library.executor import CHUNK, digest_on, owned_pool, prestart
from oo_nb.store.scan_cache import Later, Row, ScanCache, Stamp, content_hash, still_holds

__all__ = ["DIGESTS", "Codec", "Known", "Result", "fetch_later", "read_cached", "read_digests"]

Result = Digest | Failure | None


@dataclass(frozen=True)
class Codec:
    """One kind of row the cache keeps (a ``view``), and how to make it from a file.

    ``read_many(items, executor, workers)`` reads (path, key) pairs, on ``executor`` when there
    is one (``workers``: how many processes it has, for balancing);
    ``read_one(data, path, key)`` makes the row from bytes already read (None: read them);
    ``decode`` raises ``ValueError`` for text ``encode`` did not write. A cached payload that
    starts with ``lazy_prefix`` stays text until ``Known.resolve``. With ``read_many_encodes``,
    ``read_many`` returns that text already (``encode`` done where the file was read, maybe in a
    worker process), or as bytes packed by ``digest_codec.pack_result`` for a row that would
    be lazy: a cold scan then keeps compact text and never ships or holds the rows as
    objects."""

    view: str
    version: str
    encode: Callable[[Any], str]
    decode: Callable[[str, str, str], Any]
    read_one: Callable[[bytes | None, str, str], Any]
    read_many: Callable[[list[tuple[str, str]], Executor | None, int], list[Any]]
    lazy_prefix: str | None = None
    read_many_encodes: bool = False


@dataclass(slots=True)
class Known:
    """What a file gave, and the stamp (and, for a recent file, the hash) of what was read.
    A lazy row from the cache stays JSON text until it is needed (``resolve``): a rescan of a
    library where nothing changed decodes nothing."""

    stamp: Stamp | None  # None: not to be trusted again (the file moved under the read)
    hash: str | None
    result: Any
    payload: str | bytes | Later | None = None  # a row not decoded yet (bytes: packed)
    codec: Codec | None = None  # what decodes it
    cache: tuple[Path, str] | None = None  # where a payload left in the database is: root, rel

    @property
    def is_digest(self) -> bool:
        return self.payload is not None or isinstance(self.result, Digest)

    def resolve(self, path: str, key: str) -> Any:
        """The result; a cached row is decoded now, or the file read again when the cached
        text is not one (damaged or planted)."""
        if isinstance(self.payload, Later):
            fetch_later([self])
        if self.payload is not None and self.codec is not None:
            try:
                if isinstance(self.payload, Later):  # gone from the database: read the file
                    raise ValueError("not in the cache any more")
                limit = digest_codec.row_limit(self.stamp.size) if self.stamp else None
                text = digest_codec.unpack(self.payload, limit or digest_codec.UNPACK_LIMIT)
                self.result = self.codec.decode(text, path, key)
            except ValueError:
                self.result = self.codec.read_one(None, path, key)
                self.stamp = None
            self.payload = None
        return self.result


def fetch_later(known: Iterable[Known]) -> None:
    """Read the payloads these results left in the database (``ScanCache.load(defer=...)``),
    one query per library; one no longer there (replaced since) stays ``LATER`` and its file
    is read again when it is resolved."""
    by_cache: dict[tuple[Path, str, str], dict[str, Known]] = {}
    for k in known:
        if isinstance(k.payload, Later) and k.cache is not None and k.codec is not None:
            root, rel = k.cache
            by_cache.setdefault((root, k.codec.view, k.codec.version), {})[rel] = k
    for (root, view, version), wanted in by_cache.items():
        stamps = {rel: k.stamp for rel, k in wanted.items() if k.stamp is not None}
        with ScanCache(root, view, version) as cache:
            found = cache.fetch(stamps)
        for rel, k in wanted.items():
            if rel in found:
                k.payload = found[rel]


def read_digests(
    items: list[tuple[Path, str]],
    root: Path | None,
    known: dict[str, Known],
    workers: int,
    *,
    recursive: bool = True,
    executor: Executor | None = None,
) -> dict[str, Known]:
    """``read_cached`` with the ``Library``'s digests."""
    return read_cached(items, root, known, workers, DIGESTS, recursive=recursive, executor=executor)


def read_cached(
    items: list[tuple[Path, str]],
    root: Path | None,
    known: dict[str, Known],
    workers: int,
    codec: Codec,
    *,
    recursive: bool = True,
    executor: Executor | None = None,
) -> dict[str, Known]:
    """``items``: (path, key) of every file of the library, the key passed to the codec (the
    slug, say). ``root``: the folder whose cache is used (None: none, e.g. a library of one
    file). The changed files are read on ``executor`` (the caller's, left running), else with
    ``workers`` > 1 on a process pool of ours, started while the rest is stat'ed once there are
    ``PRESTART_AT`` files to read, and closed before returning. Returns what each file gives
    now, by ``str(path)``."""
    now = time.time_ns()
    cache = ScanCache(root, codec.view, codec.version) if root is not None else None
    prefix = _root_prefix(root)
    todo: list[tuple[Path, str, Stamp | None]] = []
    ours = contextlib.ExitStack()
    try:
        # rows that stay text until used are left in the database: fetch_later reads them
        stored = cache.load(codec.lazy_prefix) if cache is not None else {}
        out: dict[str, Known] = {}
        confirmed: dict[str, Row] = {}
        for p, key in items:
            path, stamp = str(p), Stamp.of(p)
            mem = known.get(path)
            if mem is not None and mem.stamp is not None and _holds(mem.stamp, mem.hash, p, stamp):
                out[path] = mem
                continue
            rel = _rel(path, prefix)
            row = stored.get(rel)
            if row is not None and still_holds(row, p, stamp):
                found = _from_row(row, path, key, codec, (root, rel) if root else None)
                if found is not None:
                    assert stamp is not None
                    if row.hash is not None and not stamp.recent(
                        now
                    ):  # old enough: no more hashing
                        confirmed[rel] = Row(stamp, None, row.payload)
                        found.hash = None
                    out[path] = found
                    continue
            todo.append((p, key, stamp))
            if len(todo) == PRESTART_AT and executor is None and workers > 1:
                executor = ours.enter_context(owned_pool(workers))
                prestart(executor, workers)
        fresh = _read(todo, now, codec, executor, workers)
        out.update(fresh)
        if cache is not None:
            seen = {_rel(str(p), prefix) for p, _ in items}
            gone = [rel for rel in stored if rel not in seen and (recursive or "/" not in rel)]
            rows = _rows(todo, fresh, prefix, codec, confirmed)
            if len(todo) >= PRESTART_AT:  # a large save (its payloads made already): off the path
                cache.save_behind(list(rows), gone)
            elif todo or confirmed or gone:  # else no write lock taken at all
                cache.save(rows, gone)
        return out
    finally:
        ours.close()  # our pool, if one was started
        if cache is not None:
            cache.close()


def _rows(
    todo: list[tuple[Path, str, Stamp | None]],
    fresh: dict[str, Known],
    prefix: str,
    codec: Codec,
    confirmed: dict[str, Row],
) -> Iterator[tuple[str, Row]]:
    """The rows to store, encoded one at a time as the database takes them."""
    yield from confirmed.items()
    for p, _key, _stamp in todo:
        k = fresh[str(p)]
        if k.stamp is not None:
            # a packed payload is stored packed: a third of the bytes to write, none to unpack
            payload = k.payload if k.payload is not None else codec.encode(k.result)
            yield _rel(str(p), prefix), Row(k.stamp, k.hash, payload)


def _from_row(
    row: Row, path: str, key: str, codec: Codec, cache: tuple[Path, str] | None = None
) -> Known | None:
    """A cached row as a result: a lazy one stays text (see ``Known``), or in the database
    (``LATER``, at ``cache``), others are decoded now. None when the row is not something
    ``encode`` wrote."""
    payload = row.payload
    if isinstance(payload, Later):
        return Known(row.stamp, row.hash, None, payload, codec, cache) if cache else None
    if codec.lazy_prefix is not None and (
        isinstance(payload, bytes) or payload.startswith(codec.lazy_prefix)
    ):
        return Known(row.stamp, row.hash, None, payload, codec)  # bytes: packed
    if isinstance(payload, bytes):
        return None  # only a lazy row is ever stored packed
    try:
        return Known(row.stamp, row.hash, codec.decode(payload, path, key))
    except ValueError:
        return None  # planted or damaged: the file is read, and the row replaced


def _root_prefix(root: Path | None) -> str:
    """What every path found under ``root`` starts with (``Path(".") / "a"`` is ``a``)."""
    if root is None or str(root) == ".":
        return ""
    text = str(root)
    return text if text.endswith(os.sep) else text + os.sep


def _rel(path: str, prefix: str) -> str:
    """The path relative to the library root, in POSIX form: the cache key, the same whatever
    spelling of the root the library was opened with."""
    rel = path[len(prefix) :] if path.startswith(prefix) else path
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


def _holds(stamp: Stamp, digest: str | None, path: Path, now: Stamp | None) -> bool:
    return still_holds(Row(stamp, digest, ""), path, now)


def _read(
    todo: list[tuple[Path, str, Stamp | None]],
    now: int,
    codec: Codec,
    executor: Executor | None,
    workers: int,
) -> dict[str, Known]:
    """Read the changed files. A recent one is read here, its bytes hashed with the row; an
    older one may go to a worker process, since any later change gives it a new stamp."""
    out: dict[str, Known] = {}
    older = [
        (p, key, stamp) for p, key, stamp in todo if stamp is not None and not stamp.recent(now)
    ]
    items = [(str(p), key) for p, key, _ in older]
    results = codec.read_many(items, executor, workers) if items else []
    for (p, key, old), result in zip(older, results, strict=True):
        if isinstance(result, bytes):  # packed: a row that stays lazy
            out[str(p)] = Known(old, None, None, result, codec)
            continue
        if codec.read_many_encodes:
            assert old is not None
            found = _from_row(Row(old, None, result), str(p), key, codec)
            if found is not None:
                out[str(p)] = found  # a digest stays text (lazy), ready for the cache as it is
                continue
            result = codec.read_one(None, str(p), key)  # never: encode's own text
        out[str(p)] = Known(old, None, result)
    for p, key, stamp in todo:
        if str(p) in out:
            continue
        try:
            data: bytes | None = read_regular(p)
        except OSError:
            data = None  # read_one reads again, and reports why it cannot
        result = codec.read_one(data, str(p), key)
        same = data is not None and stamp is not None and Stamp.of(p) == stamp
        out[str(p)] = Known(
            stamp if same else None,
            content_hash(data) if same and data is not None else None,
            result,
        )
    return out


# The library's digests. The readers are looked up when called (tests count them).
PACK_FROM = 2000  # files read in one scan from which their text is kept compressed (memory)
PRESTART_AT = 2 * CHUNK  # files to read from which our pool is started during the stat


def _digest_many(
    items: list[tuple[str, str]], executor: Executor | None, workers: int
) -> list[str | bytes]:
    """Each file's digest as cache text; packed (``digest_codec.pack_result``) when there are
    many: 10,000 digests' text is some 160 MB, packed 45."""
    pack = len(items) >= PACK_FROM
    if executor is not None and len(items) > 1:
        return digest_on(executor, items, pack=pack, workers=max(2, workers))
    return [digest_codec.pack_result(result, pack) for result in digest_many(items)]


DIGESTS = Codec(
    view="digest",
    version=digest_codec.VERSION,
    encode=digest_codec.encode,
    decode=digest_codec.decode,
    read_one=lambda data, path, slug: digest_bytes(data, path, slug),
    read_many=lambda items, executor, workers: _digest_many(items, executor, workers),
    lazy_prefix='{"kind":"digest"',  # how ``digest_codec.encode`` starts a digest
    read_many_encodes=True,
)
