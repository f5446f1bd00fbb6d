"""One research at a time per document: a run claims the document before it pays for research.

Two cron runs that overlap (a Claude Code run can take an hour) would both find no proposal
awaiting review and both research. The claim is an advisory ``flock`` on
``.oo-history/NAME.o-o.html/research.lock``, taken without waiting: a run that cannot take it
is told who holds it and researches nothing. The claim is let go when the run's proposal is
saved or written, when the run fails, and in any case when its process ends (the kernel drops
a dead process's lock, so a killed run never blocks the next one).
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from oo_nb.format.vocab import UNSAFE_IN_LINE
from oo_nb.store.history import utc_now
from oo_nb.store.history_place import history_folder, open_plain_file, write_holder_note

__all__ = ["RESEARCH_LOCK", "ResearchClaim", "claim_research"]

RESEARCH_LOCK = "research.lock"


class ResearchClaim:
    """A held claim on one document's research; ``release`` lets it go (twice is harmless)."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing drops the flock

    def __del__(self) -> None:  # a result dropped without being written: do not hold the claim
        self.release()


def claim_research(path: Path, action: str = "research") -> ResearchClaim | str:
    """The claim on ``path``'s research, or who holds it (a sentence) when another run does.
    Raises ``OOError`` when the lock or the history folder is a link, the lock a hard link or a
    file holding something oo did not write (``history_place``)."""
    lock = history_folder(path) / RESEARCH_LOCK
    fd = open_plain_file(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
        holder = UNSAFE_IN_LINE.sub("?", holder)  # printed: no escape sequence of a hand-made file
        os.close(fd)
        if exc.errno not in (errno.EAGAIN, errno.EACCES):
            raise
        return holder or "another process"
    try:
        write_holder_note(fd, lock, action, utc_now())
    except BaseException:
        os.close(fd)
        raise
    return ResearchClaim(fd)
