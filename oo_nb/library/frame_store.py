"""A warm library's frames, kept columnar beside its digests: ``DIR/.oo-cache/frame-NAME.arrow``.

A frame is built from every document's digest (decode, then one Python row each: seconds at
10,000 documents). Once built it is stored as an Apache Arrow IPC file, uncompressed, and
loaded memory-mapped: text stays in Arrow buffers over the file's pages (pandas' ``string`` dtype is Arrow-backed when
pyarrow is installed, as it is here), so loading builds no Python object per value, and pages
are read as they are used. Lists (a fact's source ids) are stored as JSON text per row and
made lists again on load: the frame holds them as Python lists.

A stored frame is used only under the key it was stored with: the stamp of every document of
the library (by its path relative to the library), the day it was judged on and the version of
the code that built it, so a changed or added file, another day or another version builds it
again. The file is not trusted: it is read only from a plain file (no link), validated in full
(offsets, UTF-8) before a value is touched, and must give exactly the columns and dtypes it
was stored with; one that does not (damaged, planted) is ignored and replaced. Arrow files hold
no pickle."""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from oo_nb.format.names import CACHE_DIR
from oo_nb.library.digest_codec import code_version

__all__ = ["frame_key", "load_frame", "save_frame"]

_HERE = Path(__file__).resolve().parent
_VERSION = code_version(_HERE / "frame_store.py", _HERE / "frames.py", _HERE / "digest.py")
_MAX_BYTES = 1 << 30  # a stored frame larger than this is not one we wrote
_META = b"oo-frame"  # the schema metadata entry holding our key and columns


def frame_key(stamps: str, day: object) -> str:
    """The key of a frame of a library whose documents' (relative path, stamp) pairs hash to
    ``stamps`` (``Library.refresh``), judged on ``day``, built by this version of the code."""
    return hashlib.blake2b(f"{_VERSION}|{stamps}|{day}".encode(), digest_size=16).hexdigest()


def _path(root: Path, name: str) -> Path:
    return root / CACHE_DIR / f"frame-{name}.arrow"


def _safe_place(path: Path) -> bool:
    return not path.parent.is_symlink() and path.parent.is_dir() and not path.is_symlink()


def load_frame(root: Path, name: str, key: str) -> pd.DataFrame | None:
    """The frame stored under ``key``, or None (none stored, another key, not readable)."""
    path = _path(root, name)
    if not _safe_place(path):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if not 0 < size <= _MAX_BYTES:
            return None
        mapped = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
        reader = pa.ipc.open_file(pa.BufferReader(pa.py_buffer(mapped)))
        meta = json.loads((reader.schema.metadata or {}).get(_META, b"{}"))
        if not isinstance(meta, dict) or meta.get("key") != key:
            return None
        table = reader.read_all()
        for column in table.columns:  # bad offsets or UTF-8 would be read out of bounds
            column.validate(full=True)
            _release(mapped)
        frame = _decode(meta, table)
        _release(mapped)
        return frame
    except Exception:  # whatever does not load as written (damaged, planted): built again
        return None
    finally:
        os.close(fd)  # the mapping stays valid without it


def _release(mapped: mmap.mmap) -> None:
    """Hand the pages read so far back to the page cache (validating reads every page): they
    come in again as the frame's values are used."""
    with contextlib.suppress(AttributeError, OSError):  # no madvise here: kept resident
        mapped.madvise(mmap.MADV_DONTNEED)


def save_frame(root: Path, name: str, key: str, frame: pd.DataFrame) -> None:
    """Store ``frame`` under ``key``, replacing what was stored; never raises for the cache."""
    path = _path(root, name)
    if not _safe_place(path):
        return
    try:
        table = _encode(frame, key)
    except (TypeError, ValueError, pa.ArrowException):
        return  # a column of a kind not stored: it is built each time
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    with contextlib.suppress(OSError):
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as fh, pa.ipc.new_file(fh, table.schema) as writer:
            writer.write_table(table)
        os.replace(tmp, path)
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)


# ----------------------------------------------------------------- columns
def _encode(frame: pd.DataFrame, key: str) -> pa.Table:
    if frame.columns.has_duplicates or not all(isinstance(c, str) for c in frame.columns):
        raise TypeError("columns that are not distinct names")
    lists = [str(c) for c in frame.columns if frame[c].dtype == object]
    for name in lists:
        if not all(v is None or isinstance(v, list) for v in frame[name]):
            raise TypeError("objects that are not lists")
    encoded = frame.assign(**{n: _json_column(frame[n]) for n in lists})
    table = pa.Table.from_pandas(encoded, preserve_index=False)
    columns = [_column_meta(str(c), frame[c]) for c in frame.columns]
    meta = {"key": key, "columns": columns, "lists": lists, "rows": len(frame)}
    meta["types"] = [str(t) for t in table.schema.types]
    return table.replace_schema_metadata(
        {**(table.schema.metadata or {}), _META: json.dumps(meta).encode()}
    )


def _column_meta(name: str, col: pd.Series[Any]) -> dict[str, str]:
    meta = {"name": name, "dtype": str(col.dtype)}
    if isinstance(col.dtype, pd.CategoricalDtype):  # Arrow gives categories of dtype str
        meta["categories"] = str(col.dtype.categories.dtype)
    return meta


def _json_column(col: pd.Series[Any]) -> pd.Series[Any]:
    return pd.Series([None if v is None else json.dumps(v) for v in col], dtype="string")


def _lists(column: pa.ChunkedArray) -> pd.Series[Any]:
    """A column of JSON texts as Python lists: one ``json.loads`` for the whole column."""
    # (pandas 2.2 writes Arrow-backed text as string, later versions as large_string)
    if not (pa.types.is_large_string(column.type) or pa.types.is_string(column.type)):
        raise ValueError("a list column that is not text")
    values = json.loads("[" + ",".join(column.fill_null("null").to_pylist()) + "]")
    if len(values) != len(column) or not all(v is None or isinstance(v, list) for v in values):
        raise ValueError("a list column that is not lists")
    return pd.Series(values, dtype=object)


def _decode(meta: dict[str, Any], table: pa.Table) -> pd.DataFrame:
    names = [c["name"] for c in meta["columns"]]
    types = [str(t) for t in table.schema.types]
    if table.column_names != names or types != meta["types"] or table.num_rows != meta["rows"]:
        raise ValueError("not the columns stored")
    lists = {name: _lists(table.column(name)) for name in meta["lists"]}
    frame: pd.DataFrame = table.drop_columns(meta["lists"]).to_pandas()
    for name, values in lists.items():
        frame[name] = values
    frame = frame[names]
    if not frame.index.equals(pd.RangeIndex(len(frame))):
        raise ValueError("not the index stored")
    for column in meta["columns"]:
        name = column["name"]
        if "categories" in column and isinstance(frame[name].dtype, pd.CategoricalDtype):
            cat = frame[name].cat
            labels = cat.categories.astype(column["categories"])
            dtype = pd.CategoricalDtype(labels, ordered=cat.ordered)
            frame[name] = pd.Categorical.from_codes(cat.codes, dtype=dtype)
        if str(frame[name].dtype) != column["dtype"]:
            raise ValueError(f"column {name} is not of its stored dtype")
    return frame
