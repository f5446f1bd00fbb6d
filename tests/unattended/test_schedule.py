"""``oo schedule``: a crontab entry between markers (through a stand-in ``crontab`` that keeps a
real crontab file in a temporary HOME, and the real one where installed), systemd units checked
by ``systemd-analyze verify``, and the job itself run through ``sh`` as cron would run it."""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from oo_nb.cli import update_all
from oo_nb.cli.main import main
from oo_nb.cli.update_all import UpdateAllOutcome
from oo_nb.errors import ValidationError
from oo_nb.schedule import cron, systemd
from oo_nb.schedule.job import job_for, parse_cadence
from tests.conftest import corpus_file
from tests.support.alert_settings import write_alerts
from tests.support.magic_helpers import oo

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

FAKE_CRONTAB = """#!/bin/sh
f="$HOME/crontab.txt"
case "$1" in
  -l) [ -f "$f" ] || { echo "no crontab for tester" >&2; exit 1; }; cat "$f" ;;
  -) cat > "$f" ;;
  *) exit 2 ;;
esac
"""
USER_LINES = "MAILTO=me@example.org\n# my backups\n30 2 * * * /usr/bin/backup --all\n\n"
# the --init template's channel: where it sends is the value of $OO_ALERT_WEBHOOK
_INIT_CHANNEL = {"type": "webhook", "name": "w", "url_env": "OO_ALERT_WEBHOOK"}
HOSTILE = "lib $(touch INJECTED) `touch INJECTED2` 'quoted' \"dq\" 100%"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    fake = tmp_path / "crontab"
    fake.write_text(FAKE_CRONTAB)
    fake.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OO_CRONTAB", str(fake))
    (home / "crontab.txt").write_text(USER_LINES)
    return home


def test_cadences() -> None:
    assert parse_cadence("daily").cron == "0 6 * * *"
    assert parse_cadence("weekly", "21:30").cron == "30 21 * * 1"
    assert parse_cadence("6h").cron == "0 */6 * * *"
    assert parse_cadence("6h").calendar == "*-*-* 00/6:00:00"
    assert parse_cadence("hourly").cron == "0 * * * *"
    for bad in ("monthly", "0h", "24h", "6"):
        with pytest.raises(ValidationError, match="--every"):
            parse_cadence(bad)
    with pytest.raises(ValidationError, match="--at"):
        parse_cadence("daily", "25:00")


def test_install_replace_remove_leave_user_lines_alone(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib, other = tmp_path / "lib", tmp_path / "other"
    lib.mkdir()
    other.mkdir()
    assert main(["schedule", str(other), "--every", "daily", "--via", "cron"]) == 0
    assert main(["schedule", str(lib), "--every", "daily", "--via", "cron"]) == 0
    assert main(["schedule", str(lib), "--every", "6h", "--via", "cron"]) == 0
    text = (home / "crontab.txt").read_text()
    assert text.startswith(USER_LINES)
    assert text.count("# BEGIN oo-nb schedule") == 2  # one per library, replaced not added
    assert "0 */6 * * * cd " + str(lib) in text and "0 6 * * * cd " + str(other) in text
    line = next(x for x in text.splitlines() if str(lib) in x and not x.startswith("#"))
    assert f"{sys.executable} -P -m oo_nb schedule . --run" in line
    capsys.readouterr()
    assert main(["schedule", str(lib), "--via", "cron"]) == 0
    assert "0 */6 * * *" in capsys.readouterr().out
    assert main(["schedule", str(lib), "--remove", "--via", "cron"]) == 0
    assert main(["schedule", str(other), "--remove", "--via", "cron"]) == 0
    assert (home / "crontab.txt").read_text() == USER_LINES  # as the user left it
    assert main(["schedule", str(lib), "--remove", "--via", "cron"]) == 1


def test_dry_run_writes_nothing(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schedule", str(tmp_path), "--every", "weekly", "--dry-run", "--via", "cron"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("would add to the crontab:") and "0 6 * * 1 cd " in out
    assert (home / "crontab.txt").read_text() == USER_LINES


def test_a_hostile_path_is_quoted_not_run(home: Path, tmp_path: Path) -> None:
    lib = tmp_path / HOSTILE
    lib.mkdir()
    assert main(["schedule", str(lib), "--every", "daily", "--via", "cron"]) == 0
    line = next(
        x for x in (home / "crontab.txt").read_text().splitlines() if x.startswith("0 6 * * * ")
    )
    # what cron hands to sh: the time fields off, \% back to % (an unescaped % would end it)
    command = line.removeprefix("0 6 * * * ")
    assert "%" not in command.replace("\\%", "")
    command = command.replace("\\%", "%")
    done = subprocess.run(
        ["/bin/sh", "-c", command], cwd=tmp_path, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    log = (lib / ".oo" / "schedule.log").read_text()
    assert "update-all --auto" in log and "0 written" in log
    assert not list(tmp_path.rglob("INJECTED*"))


def test_a_line_break_in_the_path_is_refused(tmp_path: Path) -> None:
    lib = tmp_path / "two\nlines"
    lib.mkdir()
    with pytest.raises(ValidationError, match="line break"):
        job_for(lib, parse_cadence("daily"))


def test_never_two_runs_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".oo").mkdir()
    fd = os.open(tmp_path / ".oo" / "schedule.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert main(["schedule", str(tmp_path), "--run"]) == 0
        assert "still going: this one skipped" in capsys.readouterr().out
    finally:
        os.close(fd)
    assert main(["schedule", str(tmp_path), "--run"]) == 0
    assert "update-all --auto" in capsys.readouterr().out


def _environ_seen_by_the_run(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment the scheduled run's ``update-all`` runs in, filled when it runs."""
    seen: dict[str, str] = {}
    real = update_all.run

    def spy(ns: argparse.Namespace) -> UpdateAllOutcome:
        seen.update(os.environ)
        return real(ns)

    monkeypatch.setattr(update_all, "run", spy)
    return seen


def test_a_run_in_a_kernel_leaves_its_env_file_to_that_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shell: InteractiveShell
) -> None:
    """`%oo schedule A --run` loaded A/.oo/env into the kernel for good: a later `%oo update` on
    library B planned with A's model and agent (and would have paid with A's key)."""
    lib_a, lib_b = tmp_path / "A", tmp_path / "B"
    lib_a.mkdir()
    lib_b.mkdir()
    doc_b = corpus_file("ai-model-landscape.o-o.html", lib_b)
    (lib_a / ".oo").mkdir(mode=0o700)
    env = lib_a / ".oo" / "env"
    env.write_text("OO_MODEL=model-of-library-a\nANTHROPIC_API_KEY=key-of-library-a\n")
    env.chmod(0o600)
    assert main(["alerts", str(lib_a), "--trust"]) == 0
    before = dict(os.environ)
    seen = _environ_seen_by_the_run(monkeypatch)
    assert oo(shell, f'schedule "{lib_a}" --run').exit_code == 0
    assert seen["OO_MODEL"] == "model-of-library-a"  # the run itself reads them
    assert dict(os.environ) == before
    plan = oo(shell, f'update "{doc_b}" --dry-run').text()
    assert "model-of-library-a" not in plan and "model " in plan


def test_the_env_file_must_be_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".oo").mkdir()
    env = tmp_path / ".oo" / "env"
    env.write_text("OO_TEST_FROM_ENV_FILE=yes\n")
    env.chmod(0o644)
    # set, then deleted: monkeypatch undoes only what it changed, so an absent name the run
    # then sets would outlive the test (and .oo/env never overrides a variable already set)
    monkeypatch.setenv("OO_TEST_FROM_ENV_FILE", "absent")
    monkeypatch.delenv("OO_TEST_FROM_ENV_FILE")
    assert main(["schedule", str(tmp_path), "--run"]) == 2
    assert "OO_TEST_FROM_ENV_FILE" not in os.environ  # refused: nothing read from it
    env.chmod(0o600)
    assert main(["alerts", str(tmp_path), "--trust"]) == 0  # the user's own file: confirmed
    seen = _environ_seen_by_the_run(monkeypatch)
    assert main(["schedule", str(tmp_path), "--run"]) == 0
    assert seen["OO_TEST_FROM_ENV_FILE"] == "yes"
    assert "OO_TEST_FROM_ENV_FILE" not in os.environ  # for that run only


def test_a_library_env_file_is_read_only_once_confirmed_and_never_over_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A library's own .oo/env set OO_ALERT_WEBHOOK (the variable of the --init channel the user
    confirmed) to its author's URL: a scheduled run sent every alert there (attack2 finding 12)."""
    write_alerts(tmp_path, _INIT_CHANNEL, trusted=False)
    env = tmp_path / ".oo" / "env"
    env.write_text("OO_ALERT_WEBHOOK=https://collect.example/theirs\nOO_MODEL=their-model\n")
    env.chmod(0o600)  # as a tarball keeps it
    monkeypatch.setenv("OO_ALERT_WEBHOOK", "https://hooks.example/mine")
    # set, then deleted: monkeypatch then puts back the absence, whatever the run sets
    monkeypatch.setenv("OO_MODEL", "absent")
    monkeypatch.delenv("OO_MODEL")
    assert main(["schedule", str(tmp_path), "--run"]) == 2
    out = capsys.readouterr()
    assert "not confirmed as yours" in out.err + out.out and "--trust" in out.err + out.out
    assert os.environ["OO_ALERT_WEBHOOK"] == "https://hooks.example/mine"
    assert "OO_MODEL" not in os.environ  # nothing of it was read
    # --show says so; --trust names what it sets (not the values) and confirms it
    assert main(["alerts", str(tmp_path), "--trust"]) == 0
    out = capsys.readouterr().out
    assert ".oo/env sets OO_ALERT_WEBHOOK (a URL to https://collect.example/…), OO_MODEL" in out
    assert "theirs" not in out and "their-model" not in out  # no value, no URL path
    seen = _environ_seen_by_the_run(monkeypatch)
    assert main(["schedule", str(tmp_path), "--run"]) == 0
    assert seen["OO_ALERT_WEBHOOK"] == "https://hooks.example/mine"  # the user's wins
    assert seen["OO_MODEL"] == "their-model"  # what the user's environment left unset
    assert "OO_MODEL" not in os.environ  # for that run only
    # an edit after the confirmation needs it again
    env.write_text("OO_ALERT_WEBHOOK=https://collect.example/other\n")
    env.chmod(0o600)
    monkeypatch.delenv("OO_ALERT_WEBHOOK")
    assert main(["schedule", str(tmp_path), "--run"]) == 2
    assert "changed since you confirmed" in "".join(capsys.readouterr())
    assert "OO_ALERT_WEBHOOK" not in os.environ


def test_systemd_units_pass_systemd_analyze(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed")
    lib = tmp_path / HOSTILE
    lib.mkdir()
    job = job_for(lib, parse_cadence("6h"))
    units = tmp_path / "units"
    monkeypatch.setenv("OO_SYSTEMD_USER_DIR", str(units))
    written = systemd.install_systemd(job, enable=False)
    service = next(p for p in written if p.suffix == ".service").read_text()
    assert 'ExecStart="' + sys.executable + '" "-P" "-m" "oo_nb"' in service
    assert "100%%" in service  # a % is a specifier to systemd: doubled
    done = subprocess.run(
        [tool, "verify", *map(str, written)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # the check can fail: a relative ExecStart is refused
    bad = units / "bad.service"
    bad.write_text(service.replace(f'"{sys.executable}"', "python"))
    assert (
        subprocess.run([tool, "verify", str(bad)], capture_output=True, timeout=60).returncode != 0
    )
    assert systemd.remove_systemd(job.id, disable=False) and not any(units.glob("oo-nb-*"))


def test_dry_run_via_systemd_prints_units(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["schedule", str(tmp_path), "--every", "daily", "--via", "systemd", "--dry-run"]) == 0
    )
    out = capsys.readouterr().out
    assert "OnCalendar=*-*-* 06:00:00" in out and "Persistent=true" in out


@pytest.mark.skipif(shutil.which("crontab") is None, reason="no crontab program on this machine")
def test_the_real_crontab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OO_CRONTAB", raising=False)
    before = cron.read_crontab()
    job = job_for(tmp_path, parse_cadence("daily"))
    try:
        cron.install_cron(job)
        assert cron.installed_block(job.id)[1] == cron.cron_line(job)
    finally:
        cron.remove_cron(job.id)
    assert cron.read_crontab() == before


def test_magic_schedule_dry_run(tmp_path: Path, shell: InteractiveShell) -> None:
    out = oo(shell, f'schedule "{tmp_path}" --every 6h --dry-run --via cron')
    assert "-P -m oo_nb schedule . --run" in out.text and out.exit_code == 0


def test_the_job_reads_the_seal_key_the_user_confirmed_with(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's shell sets XDG_DATA_HOME, so --trust sealed with the key there; cron (HOME
    only) read ~/.local/share/oo-nb's: every scheduled run said the alerts were "not confirmed on
    this machine" (attack2 finding 14). The job now carries OO_DATA_DIR as resolved at install."""
    lib = tmp_path / "lib"
    write_alerts(
        lib, {"type": "webhook", "name": "w", "url": "http://127.0.0.1:9/x"}, trusted=False
    )
    monkeypatch.delenv("OO_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert main(["alerts", str(lib), "--trust"]) == 0
    assert main(["schedule", str(lib), "--every", "daily", "--via", "cron"]) == 0
    line = next(
        x for x in (home / "crontab.txt").read_text().splitlines() if x.startswith("0 6 * * * ")
    )
    assert f"OO_DATA_DIR={tmp_path / 'xdg' / 'oo-nb'}" in line
    # as cron runs it: no XDG_DATA_HOME, no OO_DATA_DIR
    cron_env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        ["/bin/sh", "-c", line.removeprefix("0 6 * * * ")],
        env=cron_env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    log = (lib / ".oo" / "schedule.log").read_text()
    assert "update-all --auto" in log and "not confirmed" not in log, log
    assert not (home / ".local" / "share" / "oo-nb" / "seal.key").exists()
    # a systemd unit carries it too
    text = "".join(systemd.units(job_for(lib, parse_cadence("daily"), data_dir="/d/x")).values())
    assert 'Environment="OO_DATA_DIR=/d/x"' in text


def test_alerts_show_warns_when_the_installed_job_reads_another_seal_key(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A job installed from another shell (or before jobs carried OO_DATA_DIR) reads another
    key than the one --trust seals with: --show says so instead of "no problem"."""
    lib = tmp_path / "lib"
    write_alerts(lib, {"type": "desktop"}, trusted=False)
    monkeypatch.delenv("OO_DATA_DIR", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert main(["schedule", str(lib), "--every", "daily", "--via", "cron"]) == 0  # ~/.local/share
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # the user's shell, later
    assert main(["alerts", str(lib), "--trust"]) == 0
    capsys.readouterr()
    assert main(["alerts", str(lib), "--show"]) == 1
    out = capsys.readouterr().out
    assert "WARNING: the scheduled job" in out and str(tmp_path / "xdg" / "oo-nb") in out
    assert main(["schedule", str(lib), "--every", "daily", "--via", "cron"]) == 0  # again, here
    capsys.readouterr()
    assert main(["alerts", str(lib), "--show"]) == 0
    assert "WARNING" not in capsys.readouterr().out
    # a systemd unit written from another shell: the same warning
    assert main(["schedule", str(lib), "--remove", "--via", "cron"]) == 0
    units = tmp_path / "units"
    units.mkdir()
    monkeypatch.setenv("OO_SYSTEMD_USER_DIR", str(units))
    job = job_for(lib, parse_cadence("daily"), data_dir=str(tmp_path / "elsewhere"))
    for name, text in systemd.units(job).items():
        (units / name).write_text(text)
    main(["alerts", str(lib), "--show"])
    assert "WARNING: the scheduled job" in capsys.readouterr().out


def test_trust_reads_a_channels_variable_from_the_env_file_it_confirms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documented cron set-up keeps the webhook only in .oo/env: --trust must confirm it
    (it named "the variable OO_ALERT_WEBHOOK is not set" and so could never seal .oo/env)."""
    write_alerts(tmp_path, _INIT_CHANNEL, trusted=False)
    env = tmp_path / ".oo" / "env"
    env.write_text("OO_ALERT_WEBHOOK=https://hooks.example/mine\n")
    env.chmod(0o600)
    monkeypatch.delenv("OO_ALERT_WEBHOOK", raising=False)
    assert main(["alerts", str(tmp_path), "--trust"]) == 0
    assert main(["alerts", str(tmp_path), "--show"]) == 0
    assert "OO_ALERT_WEBHOOK" not in os.environ  # set for the check only
