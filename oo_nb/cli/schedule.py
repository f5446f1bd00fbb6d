"""``oo schedule DIR``: install (``--every daily|weekly|hourly|Nh``), show (no option) or remove
(``--remove``) the library's update job: a crontab entry between marker comments, or a systemd
user timer where systemd runs. ``--dry-run`` prints what would be installed. The job itself is
``oo schedule DIR --run``: one run at a time (the library's ``.oo/schedule.lock``), then
``update-all --auto``, logged to ``DIR/.oo/schedule.log``."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from shlex import quote

from oo_nb.alerts.trust import env_problem
from oo_nb.cli.verbs import TextResult, build_parser, load
from oo_nb.errors import OOError, ValidationError
from oo_nb.schedule import cron, systemd
from oo_nb.schedule.env_file import ENV_FILE, env_file_defaults, read_env_file
from oo_nb.schedule.job import Job, job_for, parse_cadence
from oo_nb.store import clock
from oo_nb.store.library_trust import trust_steps
from oo_nb.store.seal import key_path

__all__ = ["HELP", "add_arguments", "run", "seal_key_mismatch"]

HELP = "install, show or remove the library's scheduled `update-all --auto` (cron or a systemd user timer)"

_LOG_TAIL = 8


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="the library folder")
    what = p.add_mutually_exclusive_group()
    what.add_argument(
        "--every", metavar="CADENCE", help="install: daily, weekly, hourly or Nh (e.g. 6h)"
    )
    what.add_argument("--remove", action="store_true", help="remove the library's job")
    what.add_argument("--run", action="store_true", help="run the job now, as the schedule does")
    p.add_argument(
        "--at",
        default="06:00",
        metavar="HH:MM",
        help="time of day for daily and weekly runs (default 06:00)",
    )
    p.add_argument(
        "--via",
        choices=("auto", "cron", "systemd"),
        default="auto",
        help="cron, a systemd user timer, or auto: systemd where it runs, else cron",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="print what would be installed or removed"
    )


def _via(choice: str) -> str:
    if choice != "auto":
        return choice
    return "systemd" if systemd.systemd_runs() else "cron"


def _install(job: Job, via: str, dry_run: bool) -> TextResult:
    if via == "cron":
        block = cron.cron_block(job)
        if not dry_run:
            cron.install_cron(job)
        head = "would add to the crontab" if dry_run else "installed in the crontab"
        return TextResult("\n".join([f"{head}:", *block, f"log: {job.log}"]), value=block)
    files = systemd.units(job)
    folder = systemd.unit_dir()
    if not dry_run:
        systemd.install_systemd(job)
    head = "would write" if dry_run else "installed and enabled"
    lines = [f"{head} systemd user units in {folder}:"]
    for name, text in files.items():
        lines += [f"--- {name}", text.rstrip()]
    return TextResult("\n".join([*lines, f"log: {job.log}"]), value=files)


def _remove(job: Job, via: str, dry_run: bool) -> TextResult:
    if dry_run:
        where = "the crontab" if via == "cron" else str(systemd.unit_dir())
        return TextResult(f"would remove job {job.id} ({job.library}) from {where}")
    gone = cron.remove_cron(job.id) if via == "cron" else systemd.remove_systemd(job.id)
    if not gone:
        return TextResult(f"no scheduled job for {job.library}", exit_code=1)
    return TextResult(f"removed the scheduled job for {job.library}")


def _show(job: Job, via: str) -> TextResult:
    lines: list[str] = []
    if via == "cron":
        block = cron.installed_block(job.id)
        lines += (
            ["in the crontab:", *block] if block else [f"no job for {job.library} in the crontab"]
        )
    else:
        timer = systemd.unit_names(job.id)[1]
        found = (systemd.unit_dir() / timer).is_file()
        lines.append(f"systemd timer {timer}" + ("" if found else ": not installed"))
    if job.log.is_file():
        tail = job.log.read_text("utf-8", errors="replace").splitlines()[-_LOG_TAIL:]
        lines += [f"last lines of {job.log}:", *("  " + line for line in tail)]
    return TextResult(
        "\n".join(lines), exit_code=0 if len(lines) > 1 or "no job" not in lines[0] else 1
    )


def seal_key_mismatch(folder: Path) -> str | None:
    """Why the library's installed job (crontab or systemd unit) would read another seal key
    than this shell does (one installed before jobs carried OO_DATA_DIR, or from another
    shell): its runs would find the alerts confirmed here "not sealed". None when no job is
    installed or it reads this key."""
    here = str(key_path().parent.absolute())
    job = job_for(folder, parse_cadence("daily"), data_dir=here)
    try:
        cron_lines = [x for x in cron.installed_block(job.id) if not x.startswith("#")]
    except (OOError, OSError, subprocess.SubprocessError):  # no crontab to read: no cron job
        cron_lines = []
    unit = systemd.unit_dir() / systemd.unit_names(job.id)[0]
    unit_lines = unit.read_text("utf-8", errors="replace").splitlines() if unit.is_file() else []
    wanted = [w.replace("%", "\\%") for w in job.env_words()]
    stale = any(not all(w in line for w in wanted) for line in cron_lines)
    stale = stale or (
        bool(unit_lines) and not set(systemd.environment_lines(job)) <= set(unit_lines)
    )
    if not stale:
        return None
    return (
        f"the scheduled job of {folder} reads the seal key of another folder than {here} "
        "(where settings are confirmed from this shell): its runs will find them not confirmed; "
        f"install it again (`oo schedule {quote(str(folder))} --every …`)"
    )


@contextlib.contextmanager
def _env_of(folder: Path) -> Iterator[None]:
    """``DIR/.oo/env`` in the environment for the run only (cron gives the job almost none;
    in a kernel the next call may be on another library), only when the user confirmed it
    (``oo alerts DIR --trust`` seals it), and never over a variable already set: a library from
    elsewhere brings its own ``.oo/env``, which could send the alerts of the channels the user
    confirmed (``url_env``) to its author, or run on its author's key."""
    settings = read_env_file(folder)  # a name it may never set is named first
    problem = env_problem(folder / ".oo")
    if problem is not None:
        raise ValidationError(
            f"{problem}: not read, and nothing was run. A library from elsewhere could set its "
            f"own alert URL or API key here; read the file, then {trust_steps(folder)} "
            "(or delete it)",
            file=str(folder / ".oo" / ENV_FILE),
        )
    with env_file_defaults(folder, settings):  # the user's own environment wins
        yield


@contextlib.contextmanager
def _one_at_a_time(folder: Path) -> Iterator[bool]:
    """Hold the library's schedule lock for the run; yields False when another run holds it."""
    settings = folder / ".oo"
    settings.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(settings / "schedule.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing lets the lock go


def _run_now(folder: Path) -> TextResult:
    stamp = clock.now().isoformat(timespec="seconds")
    with _one_at_a_time(folder) as mine:
        if not mine:
            return TextResult(
                f"[{stamp}] another scheduled run of {folder} is still going: this one skipped"
            )
        ns = build_parser(verbs=["update-all"]).parse_args(
            ["update-all", str(folder), "--auto", "--no-progress"]
        )
        with _env_of(folder):  # its problem is the run's error, not the log's
            try:
                result = load("update-all").run(ns)
            except OOError as exc:
                return TextResult(f"[{stamp}] update-all --auto: error: {exc}", exit_code=2)
        return TextResult(
            f"[{stamp}] update-all --auto\n{result.to_text()}", exit_code=result.exit_code
        )


def run(ns: argparse.Namespace) -> TextResult:
    folder = Path(ns.dir)
    if ns.run:
        if not folder.is_dir():
            raise ValidationError("is not a folder", file=str(folder))
        return _run_now(folder)
    cadence = parse_cadence(ns.every or "daily", ns.at)
    job = job_for(folder, cadence, data_dir=str(key_path().parent))  # the key --trust used
    via = _via(ns.via)
    if ns.every:
        return _install(job, via, ns.dry_run)
    if ns.remove:
        return _remove(job, via, ns.dry_run)
    return _show(job, via)
