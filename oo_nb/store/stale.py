"""Leftovers of a process that was killed (SIGKILL, a power cut: no cleanup could run), removed
the next time oo_nb works in the same place.

- the atomic write's temp files ``.NAME.PID.NS.tmp`` (a whole copy of a document or snapshot);
- the Claude Code backend's scratch folders ``oo-claude-PID-XXXX`` in the temp folder.

A leftover is stale when the process named by its PID is gone, or when it is older than a limit
(a PID can be reused by an unrelated process). A live writer's files are young and its PID runs:
they are never touched. The temp folder is shared with everything else the user runs: a scratch
folder is removed only when it holds the marker oo_nb wrote in it (``mark_scratch``: a plain
file of this user naming the PID the folder's name has). The user's own ``oo-claude-notes/`` or
``oo-claude-99999-drafts/`` were deleted by their name alone.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import time
from pathlib import Path

__all__ = [
    "SCRATCH_MARKER",
    "TEMP_FILE",
    "is_stale",
    "mark_scratch",
    "pid_alive",
    "sweep_scratch_folders",
    "sweep_temp_files",
]

TEMP_FILE = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.\d+\.tmp$")  # atomic.atomic_write_bytes
TEMP_MAX_AGE_S = 3600.0  # no write takes an hour
SCRATCH_MAX_AGE_S = 24 * 3600.0  # an agent run is bounded by its timeout (1 h by default)
SCRATCH_MARKER = ".oo-nb-scratch"


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except OverflowError:
        return False
    return True


def is_stale(pid: int | None, mtime: float, max_age_s: float, now: float | None = None) -> bool:
    """A leftover whose process is gone, or that is older than ``max_age_s``."""
    if pid is not None and pid != os.getpid() and not pid_alive(pid):
        return True
    return (now if now is not None else time.time()) - mtime > max_age_s


def sweep_temp_files(
    folder: Path, *, contains: str = "", max_age_s: float = TEMP_MAX_AGE_S
) -> list[Path]:
    """Remove stale ``.NAME.PID.NS.tmp`` files in ``folder`` (not below it) whose NAME holds
    ``contains``. Returns what was removed; a folder that is not there has nothing to sweep."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = TEMP_FILE.match(entry.name)
        if m is None or contains not in m.group("name"):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                continue
            if is_stale(int(m.group("pid")), st.st_mtime, max_age_s):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:  # gone meanwhile, or not ours to remove: not this run's business
            continue
    return removed


def mark_scratch(folder: Path, pid: int | None = None) -> None:
    """Mark ``folder`` (just made, named ``PREFIX PID-XXXX``) as oo_nb's scratch folder of
    process ``pid`` (this one): the only kind ``sweep_scratch_folders`` removes."""
    (folder / SCRATCH_MARKER).write_text(f"{os.getpid() if pid is None else pid}\n", "ascii")


def _marked(folder: str, pid: int) -> bool:
    """Whether ``folder`` holds our marker naming ``pid``: a plain file (never followed through
    a link) of this user."""
    try:
        fd = os.open(
            os.path.join(folder, SCRATCH_MARKER), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
        )
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            return False
        return os.read(fd, 64) == f"{pid}\n".encode()
    finally:
        os.close(fd)


def sweep_scratch_folders(
    parent: Path, prefix: str, *, max_age_s: float = SCRATCH_MAX_AGE_S
) -> list[Path]:
    """Remove stale scratch folders ``PREFIX PID-XXXX`` in ``parent`` (the temp folder): real
    folders (never a link) owned by this user, holding the marker oo_nb wrote for that PID,
    whose process is gone or that are too old."""
    removed: list[Path] = []
    pattern = re.compile(rf"^{re.escape(prefix)}(?P<pid>\d+)-.+$")
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry.name)
        if m is None:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            pid = int(m.group("pid"))
            if _marked(entry.path, pid) and is_stale(pid, st.st_mtime, max_age_s):
                shutil.rmtree(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed
