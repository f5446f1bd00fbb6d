"""The job as a crontab entry between two marker comments, read and written with ``crontab -l``
and ``crontab -`` (``$OO_CRONTAB`` names another crontab program, e.g. a test's stand-in). Only
the lines between this library's markers are ever replaced or removed: the user's other lines,
other libraries' jobs and blank lines stay as they were."""

from __future__ import annotations

import os
import shutil
import subprocess

from oo_nb.errors import OOError
from oo_nb.schedule.job import Job

__all__ = [
    "CRONTAB_ENV",
    "cron_block",
    "install_cron",
    "read_crontab",
    "remove_cron",
    "replace_block",
]

CRONTAB_ENV = "OO_CRONTAB"
_BEGIN = "# BEGIN oo-nb schedule "
_END = "# END oo-nb schedule "


def _crontab() -> str:
    program = os.environ.get(CRONTAB_ENV) or shutil.which("crontab")
    if not program:
        raise OOError(
            "no crontab program here (install cron, or use --via systemd where systemd runs)"
        )
    return program


def cron_line(job: Job) -> str:
    # cron turns an unescaped % into a line break: every % of a path is escaped for it
    return f"{job.cadence.cron} {job.shell_command().replace('%', chr(92) + '%')}"


def cron_block(job: Job) -> list[str]:
    shown = str(job.library).encode("ascii", "backslashreplace").decode("ascii")
    return [
        f"{_BEGIN}{job.id} ({shown}, every {job.cadence.text}; `oo schedule DIR --remove`)",
        cron_line(job),
        f"{_END}{job.id}",
    ]


def read_crontab() -> list[str]:
    """The user's crontab lines ([] when there is none yet)."""
    done = subprocess.run([_crontab(), "-l"], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        if "no crontab" in done.stderr.lower():
            return []
        raise OOError(f"crontab -l failed: {done.stderr.strip() or done.returncode}")
    return done.stdout.splitlines()


def _write_crontab(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n" if lines else ""
    done = subprocess.run([_crontab(), "-"], input=text, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise OOError(f"crontab - failed: {done.stderr.strip() or done.returncode}")


def replace_block(lines: list[str], job_id: str, block: list[str]) -> list[str]:
    """``lines`` with this job's block (markers included) replaced by ``block`` ([]: removed)."""
    out: list[str] = []
    inside = False
    placed = False
    for line in lines:
        if line.startswith(f"{_BEGIN}{job_id}"):
            inside = True
            continue
        if inside:
            if line.startswith(f"{_END}{job_id}"):
                inside = False
                if not placed:
                    out += block
                    placed = True
            continue
        out.append(line)
    if inside:
        raise OOError(
            f"the crontab has a begin marker for job {job_id} and no end marker: fix it by hand"
        )
    if not placed:
        out += block
    return out


def install_cron(job: Job) -> list[str]:
    """Install (or replace) the job; returns the block written."""
    block = cron_block(job)
    _write_crontab(replace_block(read_crontab(), job.id, block))
    return block


def remove_cron(job_id: str) -> bool:
    """Remove the job's block; False when there was none."""
    lines = read_crontab()
    kept = replace_block(lines, job_id, [])
    if kept == lines:
        return False
    _write_crontab(kept)
    return True


def installed_block(job_id: str) -> list[str]:
    """This job's lines as the crontab holds them now ([] when not installed)."""
    lines = read_crontab()
    start = next((i for i, line in enumerate(lines) if line.startswith(f"{_BEGIN}{job_id}")), None)
    if start is None:
        return []
    end = next(
        (i for i in range(start, len(lines)) if lines[i].startswith(f"{_END}{job_id}")), start
    )
    return lines[start : end + 1]
