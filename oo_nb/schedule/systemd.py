"""The job as a systemd user timer: ``oo-nb-ID.service`` (one shot, in the library's folder) and
``oo-nb-ID.timer`` (the cadence; ``Persistent=`` runs a missed one after a boot) under
``~/.config/systemd/user`` (``$OO_SYSTEMD_USER_DIR`` elsewhere), enabled with
``systemctl --user``. Values are written as systemd reads them: ``%`` doubled (it starts a
specifier), the command's words double-quoted with ``\\`` and ``"`` escaped."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from oo_nb.errors import OOError
from oo_nb.schedule.job import LOG_FILE, Job

__all__ = [
    "SYSTEMD_DIR_ENV",
    "install_systemd",
    "remove_systemd",
    "systemd_runs",
    "unit_dir",
    "unit_names",
    "units",
]

SYSTEMD_DIR_ENV = "OO_SYSTEMD_USER_DIR"


def systemd_runs() -> bool:
    """Whether systemd is this machine's init (and so may run a user timer)."""
    return Path("/run/systemd/system").is_dir() and shutil.which("systemctl") is not None


def unit_dir() -> Path:
    override = os.environ.get(SYSTEMD_DIR_ENV)
    if override:
        return Path(override)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user"


def unit_names(job_id: str) -> tuple[str, str]:
    return f"oo-nb-{job_id}.service", f"oo-nb-{job_id}.timer"


def _value(text: str) -> str:
    return text.replace("%", "%%")


def _word(text: str) -> str:
    return '"' + _value(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def environment_lines(job: Job) -> list[str]:
    """The service's ``Environment=`` lines for the job's variables."""
    return [f"Environment={_word(f'{k}={v}')}" for k, v in job.environment.items()]


def units(job: Job) -> dict[str, str]:
    """File name -> text of the service and the timer."""
    service, timer = unit_names(job.id)
    library = str(job.library)
    exec_start = " ".join(_word(a) for a in (job.python, *job.args))
    log = _value(str(job.library / ".oo" / LOG_FILE))
    return {
        service: (
            "[Unit]\n"
            f"Description=oo update-all --auto for {_value(library)}\n\n"
            "[Service]\n"
            "Type=oneshot\n"
            f"WorkingDirectory={_value(library)}\n"
            + "".join(f"{line}\n" for line in environment_lines(job))
            + f"ExecStart={exec_start}\n"
            f"StandardOutput=append:{log}\n"
            f"StandardError=append:{log}\n"
        ),
        timer: (
            "[Unit]\n"
            f"Description=oo update-all ({job.cadence.text}) for {_value(library)}\n\n"
            "[Timer]\n"
            f"OnCalendar={job.cadence.calendar}\n"
            "Persistent=true\n\n"
            "[Install]\n"
            "WantedBy=timers.target\n"
        ),
    }


def _systemctl(*args: str) -> None:
    done = subprocess.run(
        ["systemctl", "--user", *args], capture_output=True, text=True, timeout=60
    )
    if done.returncode != 0:
        raise OOError(f"systemctl --user {' '.join(args)} failed: {done.stderr.strip()}")


def install_systemd(job: Job, *, enable: bool = True) -> list[Path]:
    folder = unit_dir()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in units(job).items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    if enable:
        _systemctl("daemon-reload")
        _systemctl("enable", "--now", unit_names(job.id)[1])
    return written


def remove_systemd(job_id: str, *, disable: bool = True) -> bool:
    folder = unit_dir()
    paths = [folder / name for name in unit_names(job_id)]
    if not any(p.exists() for p in paths):
        return False
    if disable:
        _systemctl("disable", "--now", unit_names(job_id)[1])
    for p in paths:
        p.unlink(missing_ok=True)
    if disable:
        _systemctl("daemon-reload")
    return True
