"""Atomic replace: readers see the old file or the new one, never a mix (temp file in the same
folder, fsync, rename, fsync of the folder). The file's mode is kept. The temp file
``.NAME.PID.NS.tmp`` is removed on any error and on SIGTERM (``sigterm``); after a SIGKILL the
next write sweeps it (``stale``). Writing a document drops its rows from the scan cache of any
library above it (``scan_cache.forget``)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from oo_nb.errors import OOError
from oo_nb.format.names import DOC_SUFFIX
from oo_nb.store.sigterm import cleanup_on_sigterm

__all__ = ["atomic_write_bytes", "fsync_dir"]


def atomic_write_bytes(
    path: Path, data: bytes, *, mode: int | None = None, exclusive: bool = False
) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a mix.
    ``exclusive`` refuses to replace an existing file (new documents never overwrite)."""
    with cleanup_on_sigterm():  # SIGTERM mid-write: the temp file is removed, then the process ends
        _write(path, data, mode, exclusive)
    if path.name.endswith(DOC_SUFFIX):
        from oo_nb.store.scan_cache import forget

        forget(path)  # a library's cached rows for it go (its new stamp would tell anyway)


def _write(path: Path, data: bytes, mode: int | None, exclusive: bool) -> None:
    if exclusive and path.exists():
        raise OOError("already exists; not overwritten", file=str(path))
    if mode is None:
        mode = _mode_of(path)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if exclusive:
            os.link(tmp, path)  # fails if the name appeared meanwhile
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except FileExistsError:
        tmp.unlink(missing_ok=True)
        raise OOError("already exists; not overwritten", file=str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def _mode_of(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o644


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (the folder's entry, not the file)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
