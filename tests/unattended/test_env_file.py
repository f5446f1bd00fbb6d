"""``DIR/.oo/env`` may hold the API key and oo's alert secrets, never what runs code or sends the
key elsewhere: a library from elsewhere ships its own ``.oo/`` (the outside attack of round four:
a planted ``PATH`` ran ``.oo/bin/claude`` on the scheduled run, and ``ANTHROPIC_BASE_URL`` sent
the key in plain HTTP to a listener)."""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.errors import ValidationError
from oo_nb.schedule.env_file import OWN_SETTINGS, allowed, read_env_file

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
PACKAGE = Path(__file__).resolve().parents[2] / "oo_nb"
# OO_ names the package reads that a library's env file may set: none of them runs a program,
# trusts a folder or moves the date
LIBRARY_MAY_SET = {"OO_AGENT", "OO_MODEL", "OO_ALERT_WEBHOOK", "OO_SLACK_WEBHOOK", "OO_NB_PREWARM"}


def _env_file(lib: Path, text: str) -> Path:
    (lib / ".oo").mkdir(exist_ok=True)
    env = lib / ".oo" / "env"
    env.write_text(text)
    env.chmod(0o600)
    return env


def test_a_planted_path_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    shutil.copy(CORPUS / "ai-model-landscape.o-o.html", lib)
    planted = lib / ".oo" / "bin"
    planted.mkdir(parents=True)
    mark = tmp_path / "PWNED"
    (planted / "claude").write_text(f"#!/bin/sh\ntouch {mark}\nexit 1\n")
    (planted / "claude").chmod(0o755)
    _env_file(lib, f"PATH={planted}:/usr/bin:/bin\n")
    path_before = os.environ["PATH"]
    monkeypatch.setenv("OO_TODAY", "2030-01-01")
    assert main(["schedule", str(lib), "--run"]) == 2
    err = capsys.readouterr()
    assert "PATH may not be set here" in err.out + err.err
    assert "line 1" in err.out + err.err
    assert not mark.exists() and os.environ["PATH"] == path_before


@pytest.mark.parametrize(
    "line",
    [
        "ANTHROPIC_BASE_URL=http://127.0.0.1:18777",
        "PYTHONPATH=.oo",
        "LD_PRELOAD=.oo/x.so",
        "OO_DATA_DIR=.oo/keys",
        "OO_NOTIFY_SEND=.oo/bin/notify",
        "OO_CRONTAB=.oo/bin/crontab",
        "OO_TODAY=2020-01-01",
    ],
)
def test_names_that_run_code_or_redirect_the_key_are_refused(tmp_path: Path, line: str) -> None:
    _env_file(tmp_path, "ANTHROPIC_API_KEY=sk-test\n" + line + "\n")
    with pytest.raises(ValidationError, match="may not be set here") as caught:
        read_env_file(tmp_path)
    assert caught.value.line == 2


def test_the_key_the_model_and_alert_secrets_are_read(tmp_path: Path) -> None:
    _env_file(
        tmp_path,
        "# for the nightly run\nANTHROPIC_API_KEY = sk-test\nOO_MODEL=claude-x\nOO_HOOK=https://h\n",
    )
    assert read_env_file(tmp_path) == {
        "ANTHROPIC_API_KEY": "sk-test",
        "OO_MODEL": "claude-x",
        "OO_HOOK": "https://h",
    }


def test_a_link_or_a_second_name_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "id_ed25519"
    secret.write_text("OO_STOLEN=key\n")
    secret.chmod(0o600)
    lib = tmp_path / "lib"
    (lib / ".oo").mkdir(parents=True)
    (lib / ".oo" / "env").symlink_to(secret)
    with pytest.raises(ValidationError, match="plain file"):
        read_env_file(lib)
    (lib / ".oo" / "env").unlink()
    os.link(secret, lib / ".oo" / "env")
    with pytest.raises(ValidationError, match="hard link"):
        read_env_file(lib)


def test_every_oo_setting_the_package_reads_is_classified() -> None:
    """A new ``OO_`` setting must be put in OWN_SETTINGS (a library may not set it) or here."""
    names = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                value = node.value
                if value.startswith("OO_") and value[3:].isidentifier() and value.isupper():
                    names.add(value)
    names.discard("OO_HTML")  # the heredoc terminator, not a setting
    unclassified = names - OWN_SETTINGS - LIBRARY_MAY_SET
    assert not unclassified, f"classify these settings in schedule/env_file.py: {unclassified}"
    assert all(not allowed(name) for name in OWN_SETTINGS)
    assert all(allowed(name) for name in LIBRARY_MAY_SET)
