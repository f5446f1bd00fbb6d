"""Writing only inside the library: the history folders and the files the store opens in place
(locks, the log) are never followed through a symbolic link.

A library copied or cloned from someone else may hold ``.oo-history`` (or a document's folder in
it, or ``research.lock``) as a link to a file or folder elsewhere; opening it to take a lock
truncated and overwrote that file, and snapshots went wherever the link pointed. A link or
anything but a folder (a plain file for the files) is refused, naming it; nothing is written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from oo_nb.errors import OOError
from oo_nb.format.names import HISTORY_DIR

__all__ = ["check_history_folder", "history_folder", "open_plain_file"]

_WHY = "history is kept only inside the library, never through a link; nothing was written there"


def history_folder(path: Path, *sub: str) -> Path:
    """``.oo-history/<file name>/<sub...>`` of the document ``path`` (``history.history_dir``),
    each folder made when missing. Raises ``OOError`` when one is a link or not a folder."""
    if path.is_symlink():  # history belongs to the file, whichever link names it
        path = path.resolve()
    here = path.parent
    for name in (HISTORY_DIR, path.name, *sub):
        here = here / name
        with contextlib.suppress(FileExistsError):  # a link, even a dangling one, is not followed
            os.mkdir(here, 0o755)
        _refuse_unless_folder(here, os.lstat(here).st_mode, path)
    return here


def check_history_folder(path: Path) -> None:
    """``history_folder`` without making anything: raises ``OOError`` when a folder of the
    document's history that exists is a link or not a folder (a missing one is fine)."""
    if path.is_symlink():
        path = path.resolve()
    here = path.parent
    for name in (HISTORY_DIR, path.name):
        here = here / name
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return
        _refuse_unless_folder(here, mode, path)


def _refuse_unless_folder(here: Path, mode: int, doc: Path) -> None:
    if stat.S_ISLNK(mode):
        raise OOError(f"{here} is a symbolic link; the {_WHY}", file=str(doc))
    if not stat.S_ISDIR(mode):
        raise OOError(f"{here} is not a folder; the {_WHY}", file=str(doc))


def open_plain_file(file: Path, flags: int) -> int:
    """``os.open`` of a file in a history folder that refuses a link (``O_NOFOLLOW``) and
    anything but a regular file; ``O_CLOEXEC`` keeps it out of child processes."""
    try:
        fd = os.open(file, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OOError(f"{file} is a symbolic link; the {_WHY}") from None
        if exc.errno in (errno.ENXIO, errno.EISDIR):  # a fifo nobody reads, a folder
            raise OOError(f"{file} is not a regular file; the {_WHY}") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OOError(f"{file} is not a regular file; the {_WHY}")
    os.set_blocking(fd, True)
    return fd
