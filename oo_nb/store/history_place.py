"""Writing only inside the library: the history folders and the files the store opens in place
(locks, the log, the caches) are never followed through a symbolic link, and never written
through a hard link.

A library copied or cloned from someone else may hold ``.oo-history`` (or a document's folder in
it, or ``research.lock``) as a link to a file or folder elsewhere; opening it to take a lock
truncated and overwrote that file, and snapshots went wherever the link pointed. A link or
anything but a folder (a plain file for the files) is refused, naming it; nothing is written.
A file written in place with more than one name (a hard link, which tar, ``cp -a`` and
``rsync -H`` keep) shares its bytes with another file: taking a lock emptied a document that way.
It is refused too. A lock holding anything but a holder's note is not ours and is not cut.

Reading is held to the same place: a snapshot planted as a link (to a file elsewhere whose bytes
match the log) was followed by a rollback and its bytes written into the document.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import socket
import stat
from pathlib import Path

from oo_nb.errors import OOError
from oo_nb.format.names import HISTORY_DIR

__all__ = [
    "check_history_folder",
    "history_folder",
    "in_place_problem",
    "library_file",
    "open_plain_file",
    "read_kept_file",
    "write_holder_note",
]

_WHY = "history is kept only inside the library, never through a link; nothing was written there"


def library_file(path: Path) -> Path:
    """The file the document ``path`` names: itself, or where its symbolic link leads when that
    lies inside the folder holding the link (history belongs to the file, whichever link names
    it). A link leading out of that folder is refused (``OOError``): an update followed one,
    rewrote the file it led to and made a ``.oo-history`` beside it."""
    if not path.is_symlink():
        return path
    target, folder = path.resolve(), path.parent.resolve()
    if not target.is_relative_to(folder):
        raise OOError(
            f"is a symbolic link to {target}, outside the folder that holds it; oo writes a "
            "document only inside its library: copy the file in instead. Nothing was written",
            file=str(path),
        )
    return target


def history_folder(path: Path, *sub: str) -> Path:
    """``.oo-history/<file name>/<sub...>`` of the document ``path`` (``history.history_dir``),
    each folder made when missing. Raises ``OOError`` when one is a link or not a folder, or
    the document a link out of its folder (``library_file``)."""
    path = library_file(path)
    here = path.parent
    for name in (HISTORY_DIR, path.name, *sub):
        here = here / name
        with contextlib.suppress(FileExistsError):  # a link, even a dangling one, is not followed
            os.mkdir(here, 0o755)
        _refuse_unless_folder(here, os.lstat(here).st_mode, path)
    return here


def check_history_folder(path: Path) -> None:
    """``history_folder`` without making anything: raises ``OOError`` when a folder of the
    document's history that exists is a link or not a folder (a missing one is fine), or the
    document a link out of its folder."""
    path = library_file(path)
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


def in_place_problem(file: Path, st: os.stat_result) -> str | None:
    """Why ``file`` (its ``lstat`` or ``fstat``) must not be written in place, or None: a
    symbolic link, anything but a regular file, or a file with another name (a hard link)."""
    if stat.S_ISLNK(st.st_mode):
        return f"{file} is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return f"{file} is not a regular file"
    if st.st_nlink > 1:
        return (
            f"{file} has {st.st_nlink} names (a hard link: another file shares its bytes, and "
            "writing it would change that file too); remove this name if the file is not oo's"
        )
    return None


def open_plain_file(file: Path, flags: int) -> int:
    """``os.open`` of a file in a history folder that refuses a link (``O_NOFOLLOW``), anything
    but a regular file and a hard link (``in_place_problem``); ``O_CLOEXEC`` keeps it out of
    child processes."""
    try:
        fd = os.open(file, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OOError(f"{file} is a symbolic link; the {_WHY}") from None
        if exc.errno in (errno.ENXIO, errno.EISDIR):  # a fifo nobody reads, a folder
            raise OOError(f"{file} is not a regular file; the {_WHY}") from None
        raise
    problem = in_place_problem(file, os.fstat(fd))
    if problem is not None:
        os.close(fd)
        raise OOError(f"{problem}; the {_WHY}")
    os.set_blocking(fd, True)
    return fd


def read_kept_file(file: Path, depth: int = 4) -> bytes:
    """The bytes of ``file``, kept in a document's history (``.oo-history/NAME/snapshots/FILE``:
    its last ``depth`` names), opened one name at a time without following a link at any of
    them (a folder swapped for a link between a check and the read is refused too). Raises
    ``OOError`` naming a link, or what is not a folder / plain file; ``FileNotFoundError`` when
    one is missing. A file with a second name is read: only writing in place shares bytes."""
    *folders, name = file.parts[-depth:]
    here = Path(*file.parts[:-depth])
    fd = os.open(here, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for folder in folders:
            here = here / folder
            inner = _open_below(fd, folder, here, os.O_RDONLY | os.O_DIRECTORY)
            os.close(fd)
            fd = inner
        inner = _open_below(fd, name, file, os.O_RDONLY | os.O_NONBLOCK)
        os.close(fd)
        fd = inner
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a fifo's read would block for ever
            raise OOError(f"{file} is not a regular file; {_READ_WHY}")
        data = bytearray()
        while chunk := os.read(fd, 1 << 20):
            data += chunk
        return bytes(data)
    finally:
        os.close(fd)


_READ_WHY = "a document's history is read only inside the library, never through a link"


def _open_below(folder_fd: int, name: str, path: Path, flags: int) -> int:
    """Open ``name`` in the folder open as ``folder_fd``, never through a link."""
    try:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder_fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        if stat.S_ISLNK(os.lstat(name, dir_fd=folder_fd).st_mode):
            raise OOError(f"{path} is a symbolic link; {_READ_WHY}") from None
        raise OOError(f"{path} is not a folder; {_READ_WHY}") from None


# What a lock holds while taken (``write_holder_note``); empty when free.
_HOLDER_NOTE = re.compile(rb"pid \d+ on [^\n]* \([^\n]*\) since [^\n]*")


def write_holder_note(fd: int, file: Path, action: str, now: str) -> None:
    """Write who holds the lock ``file`` (open as ``fd``, locked) over the last holder's note.
    Anything else in it is not a note oo wrote, and is not cut: ``OOError``."""
    held = os.pread(fd, 4096, 0)
    if held and not _HOLDER_NOTE.fullmatch(held):
        raise OOError(
            f"{file} holds something oo did not write there (a lock is empty or names its "
            f"holder); it was left as it is: move it away if it is yours, or remove it"
        )
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} ({action}) since {now}".encode(), 0)
