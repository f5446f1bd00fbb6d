"""The library's update job: when it runs (a cadence as cron and systemd say it) and what it
runs (``cd`` into the library, then this interpreter, by absolute path and with ``-P`` so that
nothing in the library folder can be imported in place of oo_nb, running
``oo schedule . --run``, which takes the library's lock, runs ``update-all --auto`` and logs to
``DIR/.oo/schedule.log``).

Paths go into a crontab line and a systemd unit: each is quoted for its reader, and a path with
a line break or another control character is refused (no quoting makes one safe in a crontab).
"""

from __future__ import annotations

import hashlib
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from oo_nb.errors import ValidationError
from oo_nb.store.seal import DATA_DIR_ENV

__all__ = ["Cadence", "Job", "job_for", "parse_cadence"]

LOG_FILE = "schedule.log"
_HOURS = re.compile(r"^(\d{1,2})h$")
_AT = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Cadence:
    text: str  # as the user gave it: daily, weekly, 6h
    cron: str  # the five time fields of a crontab line
    calendar: str  # systemd's OnCalendar=


def parse_cadence(every: str, at: str = "06:00") -> Cadence:
    """A cadence as cron and systemd write it.

    Parameters
    ----------
    every : str
        ``daily``, ``weekly`` (Mondays), ``hourly`` or ``Nh`` (every N hours, 1 to 23).
    at : str
        ``HH:MM``: the time of daily and weekly runs; its minute places the hourly ones.

    Returns
    -------
    Cadence

    Raises
    ------
    ValidationError
        Either value is not one of those forms.
    """
    m = _AT.match(at)
    if m is None:
        raise ValidationError(f"--at must be HH:MM (24 h), not {at!r}", key="at")
    hour, minute = int(m.group(1)), int(m.group(2))
    text = every.strip().lower()
    if text == "daily":
        return Cadence(text, f"{minute} {hour} * * *", f"*-*-* {hour:02d}:{minute:02d}:00")
    if text == "weekly":
        return Cadence(text, f"{minute} {hour} * * 1", f"Mon *-*-* {hour:02d}:{minute:02d}:00")
    if text == "hourly":
        text = "1h"
    hours = _HOURS.match(text)
    if hours is None or not 1 <= int(hours.group(1)) <= 23:
        raise ValidationError(
            f"--every must be daily, weekly, hourly or Nh (N from 1 to 23), not {every!r}",
            key="every",
        )
    n = int(hours.group(1))
    return Cadence(
        text,
        f"{minute} */{n} * * *" if n > 1 else f"{minute} * * * *",
        f"*-*-* 00/{n}:{minute:02d}:00",
    )


@dataclass(frozen=True)
class Job:
    library: Path  # absolute
    cadence: Cadence
    python: str  # absolute path of the interpreter
    args: tuple[str, ...]  # after the interpreter: -P -m oo_nb schedule . --run
    # the seal key's folder as the installing shell resolved it ($OO_DATA_DIR, else
    # $XDG_DATA_HOME/oo-nb, ...): cron passes neither variable, and a run reading another key
    # would find the alerts the user confirmed "not sealed" on every run
    data_dir: str | None = None

    @property
    def environment(self) -> dict[str, str]:
        """The variables the job sets for its run."""
        return {DATA_DIR_ENV: self.data_dir} if self.data_dir else {}

    @property
    def id(self) -> str:
        """Names this library's job (its markers, its unit files) whatever its path holds."""
        return hashlib.sha256(str(self.library).encode("utf-8", "surrogateescape")).hexdigest()[:12]

    @property
    def log(self) -> Path:
        return self.library / ".oo" / LOG_FILE

    def env_words(self) -> list[str]:
        """The job's variables as shell assignments (``NAME=quoted``)."""
        return [f"{k}={shlex.quote(v)}" for k, v in self.environment.items()]

    def shell_command(self) -> str:
        """The job as one shell line: every path single-quoted (``shlex.quote``)."""
        argv = " ".join([*self.env_words(), *(shlex.quote(a) for a in (self.python, *self.args))])
        log = shlex.quote(f".oo/{LOG_FILE}")
        return f"cd {shlex.quote(str(self.library))} && mkdir -p .oo && {argv} >> {log} 2>&1"


def _checked(path: str, what: str) -> str:
    if _CONTROL.search(path):
        raise ValidationError(
            f"{what} {path!r} holds a line break or control character: it cannot be scheduled safely",
            key=what,
        )
    return path


def job_for(
    library: str | Path, cadence: Cadence, python: str | None = None, data_dir: str | None = None
) -> Job:
    """The update job of a library.

    Parameters
    ----------
    library : str or Path
        The library folder (made absolute).
    cadence : Cadence
        When it runs.
    python : str, optional
        The interpreter's absolute path (default: this one, ``sys.executable``).
    data_dir : str, optional
        The seal key's folder the run must use (``store.seal``), set as ``OO_DATA_DIR``.

    Returns
    -------
    Job

    Raises
    ------
    ValidationError
        Not a folder, a relative interpreter, or a path holding a line break or control
        character.
    """
    folder = Path(library).expanduser().absolute()
    if not folder.is_dir():
        raise ValidationError("is not a folder", file=str(folder))
    interpreter = python or sys.executable
    if not interpreter or not Path(interpreter).is_absolute():
        raise ValidationError(f"the interpreter must be an absolute path, not {interpreter!r}")
    _checked(str(folder), "library")
    _checked(interpreter, "python")
    if data_dir is not None:
        data_dir = _checked(str(Path(data_dir).expanduser().absolute()), "data folder")
    args = ("-P", "-m", "oo_nb", "schedule", ".", "--run")
    return Job(folder, cadence, interpreter, args, data_dir)
