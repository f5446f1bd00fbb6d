"""A warm library's frames, kept columnar beside its digests: ``DIR/.oo-cache/frame-NAME.npz``.

A frame is built from every document's digest (decode, then one Python row each: seconds at
10,000 documents). Once built it is stored as numpy arrays, a column at a time: numbers,
dates and masks as they are, categories as codes, text as one UTF-8 buffer with the length of
each value, lists as one JSON array. Loading one takes a few reads and no row-by-row work.
A stored frame is used only under the key it was stored with: the stamp of every document of
the library, the day it was judged on and the version of the code that built it, so a changed
or added file, another day or another version builds it again. The file holds no pickle
(``np.load(allow_pickle=False)``); one that does not load as written (damaged, planted) is
ignored and replaced, and a cache folder or file that is a link is never read or written."""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from oo_nb.format.names import CACHE_DIR
from oo_nb.library.digest_codec import code_version

__all__ = ["frame_key", "load_frame", "save_frame"]

_HERE = Path(__file__).resolve().parent
_VERSION = code_version(_HERE / "frame_store.py", _HERE / "frames.py", _HERE / "digest.py")
_MAX_BYTES = 1 << 30  # a stored frame larger than this is not one we wrote


def frame_key(stamps: Iterable[tuple[str, object]], day: object) -> str:
    """The key of the frames of a library whose documents have these (path, stamp) pairs."""
    h = hashlib.blake2b(f"{_VERSION}|{day}".encode(), digest_size=16)
    for path, stamp in stamps:
        h.update(f"{path}\0{stamp!r}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _path(root: Path, name: str) -> Path:
    return root / CACHE_DIR / f"frame-{name}.npz"


def _safe_place(path: Path) -> bool:
    return not path.parent.is_symlink() and path.parent.is_dir() and not path.is_symlink()


def load_frame(root: Path, name: str, key: str) -> pd.DataFrame | None:
    """The frame stored under ``key``, or None (none stored, another key, not readable)."""
    path = _path(root, name)
    if not _safe_place(path):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            if os.fstat(fh.fileno()).st_size > _MAX_BYTES:
                return None
            data = fh.read()
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            if sum(info.file_size for info in arrays.zip.infolist()) > _MAX_BYTES:
                return None  # compressed to look small: not one we wrote
            meta = json.loads(arrays["meta"].tobytes())
            if meta.get("key") != key:
                return None
            return _decode(meta, arrays)
    except Exception:  # whatever does not load as written (damaged, planted): built again
        return None


def save_frame(root: Path, name: str, key: str, frame: pd.DataFrame) -> None:
    """Store ``frame`` under ``key``, replacing what was stored; never raises for the cache."""
    path = _path(root, name)
    if not _safe_place(path):
        return
    try:
        meta, arrays = _encode(frame)
    except (TypeError, ValueError):
        return  # a column of a kind not stored: it is built each time
    meta["key"] = key
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    with contextlib.suppress(OSError):
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(buf.getvalue())
        os.replace(tmp, path)
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)


# ----------------------------------------------------------------- columns
def _encode(frame: pd.DataFrame) -> tuple[dict[str, Any], dict[str, np.ndarray[Any, Any]]]:
    columns: list[dict[str, Any]] = []
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    for i, name in enumerate(frame.columns):
        col = frame[name]
        dtype = str(col.dtype)
        kind = _kind(col)
        columns.append({"name": str(name), "dtype": dtype, "kind": kind})
        p = f"c{i}"
        if kind == "text":
            _put_text(arrays, p, col)
        elif kind == "category":
            cat = col.cat
            arrays[p + "codes"] = cat.codes.to_numpy()
            _put_text(arrays, p, pd.Series(cat.categories, dtype="object"))
            columns[-1]["ordered"] = bool(cat.ordered)
            columns[-1]["categories"] = str(cat.categories.dtype)
        elif kind == "masked":
            arrays[p + "values"] = col.array._data
            arrays[p + "mask"] = col.array._mask
        elif kind == "json":
            values = [None if v is None else list(v) for v in col]
            blob = json.dumps(values).encode()
            arrays[p + "json"] = np.frombuffer(blob, dtype=np.uint8)
        else:  # numpy: bool, int, float, datetime64
            arrays[p + "values"] = col.to_numpy()
    return {"columns": columns, "rows": len(frame)}, arrays


def _kind(col: pd.Series[Any]) -> str:
    dtype = col.dtype
    if isinstance(dtype, pd.StringDtype):
        return "text"
    if isinstance(dtype, pd.CategoricalDtype):
        if not all(isinstance(c, str) for c in dtype.categories):
            raise TypeError("categories that are not text")
        return "category"
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and hasattr(col.array, "_mask"):
        return "masked"
    if dtype == np.dtype(object):
        if not all(v is None or isinstance(v, list) for v in col):
            raise TypeError("objects that are not lists")
        return "json"
    if isinstance(dtype, np.dtype) and dtype.kind in "biufM":
        return "numpy"
    raise TypeError(f"a column of {dtype}")


def _put_text(arrays: dict[str, np.ndarray[Any, Any]], p: str, col: pd.Series[Any]) -> None:
    values = col.astype(object).where(col.notna(), None).to_numpy()
    missing = np.array([v is None for v in values], dtype=bool)
    texts = ["" if v is None else v for v in values]
    arrays[p + "lengths"] = np.array([len(t) for t in texts], dtype=np.int64)
    arrays[p + "missing"] = missing
    arrays[p + "text"] = np.frombuffer("".join(texts).encode("utf-8", "surrogatepass"), np.uint8)


def _get_text(arrays: Any, p: str) -> np.ndarray[Any, Any]:
    text = arrays[p + "text"].tobytes().decode("utf-8", "surrogatepass")
    lengths = arrays[p + "lengths"]
    missing = arrays[p + "missing"]
    if len(lengths) != len(missing) or int(lengths.sum()) != len(text) or (lengths < 0).any():
        raise ValueError("text column does not add up")
    ends = list(itertools.accumulate(lengths.tolist()))
    starts = [0, *ends[:-1]]
    out = np.empty(len(ends), dtype=object)
    out[:] = [text[a:b] for a, b in zip(starts, ends, strict=True)]
    out[missing] = None
    return out


def _decode(meta: dict[str, Any], arrays: Any) -> pd.DataFrame:
    rows = int(meta["rows"])
    data: dict[str, Any] = {}
    for i, column in enumerate(meta["columns"]):
        p, kind, dtype = f"c{i}", column["kind"], column["dtype"]
        if kind == "text":
            series = pd.Series(_get_text(arrays, p), dtype=dtype)
        elif kind == "category":
            categories = _get_text(arrays, p)
            labels = pd.Index(list(categories), dtype=column["categories"])
            cat = pd.CategoricalDtype(labels, ordered=bool(column["ordered"]))
            codes = arrays[p + "codes"]
            if len(codes) and (codes.max() >= len(categories) or codes.min() < -1):
                raise ValueError("category codes out of range")
            series = pd.Series(pd.Categorical.from_codes(codes, dtype=cat))
        elif kind == "masked":
            array = pd.array(arrays[p + "values"], dtype=dtype)
            array[arrays[p + "mask"]] = pd.NA
            series = pd.Series(array)
        elif kind == "json":
            values = json.loads(arrays[p + "json"].tobytes())
            series = pd.Series(values, dtype=object) if values else pd.Series([], dtype=object)
        else:
            series = pd.Series(arrays[p + "values"]).astype(dtype)
        if len(series) != rows:
            raise ValueError("a column of another length")
        data[column["name"]] = series
    return pd.DataFrame(data, columns=[c["name"] for c in meta["columns"]])
