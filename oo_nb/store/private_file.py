"""Read a secret kept in a library's ``.oo/`` folder: a plain file of this user's, with one name,
that no one else may read, opened without following a link. A library from elsewhere (a clone, a
tarball) could ship ``.oo/pw`` as a link or a hard link to ``~/.ssh/id_ed25519``, which is the
user's and 0600 too; tar keeps modes, so the mode alone proves nothing."""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

__all__ = ["MAX_SECRET", "PrivateFileError", "read_private"]

MAX_SECRET = 64 * 1024


class PrivateFileError(Exception):
    """Why the file cannot be read as a private file (the caller names the setting)."""


def read_private(path: Path) -> str:
    """The text of ``path`` (at most ``MAX_SECRET`` bytes), or :class:`PrivateFileError`."""
    if path.parent.is_symlink():
        raise PrivateFileError(f"{path.parent} is a link")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise PrivateFileError(f"{path} does not exist") from None
    except OSError as exc:  # ELOOP: a link
        raise PrivateFileError(f"{path} cannot be read as a plain file ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        problem = _problem(os.fstat(handle.fileno()), path)
        if problem:
            raise PrivateFileError(f"{path} {problem}")
        try:
            return handle.read(MAX_SECRET).decode("utf-8")
        except UnicodeDecodeError:
            raise PrivateFileError(f"{path} is not UTF-8 text") from None


def _problem(info: os.stat_result, path: Path) -> str:
    if not stat.S_ISREG(info.st_mode):
        return "is not a plain file"
    if info.st_nlink != 1:
        return "has another name (a hard link)"
    if info.st_uid != os.getuid():
        return "belongs to another user"
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        return f"may be read by others: `chmod 600 {shlex.quote(str(path))}`"
    return ""
