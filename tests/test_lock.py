"""One lock is the source of versions: Binder's requirements are written from it, and the
environment the suite runs in is the locked one."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder" / "requirements.txt"


def _uv() -> str:
    """The uv the Makefile pins (OO_UV), else the repository's, else one on PATH."""
    for candidate in (os.environ.get("OO_UV"), *sorted(ROOT.glob(".tools/uv-*/bin/uv"))):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    found = shutil.which("uv")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("uv not found: `make test` installs it under .tools/")
        pytest.skip("uv not found (run the suite with `make test`, which installs it)")
    return found


def _locked() -> dict[str, list[str]]:
    with (ROOT / "uv.lock").open("rb") as lock:
        packages = tomllib.load(lock)["package"]
    versions: dict[str, list[str]] = {}
    for package in packages:
        versions.setdefault(package["name"], []).append(package.get("version", ""))
    return versions


def test_binder_requirements_are_written_from_the_lock() -> None:
    command = BINDER.read_text("utf-8").splitlines()[1].lstrip("# ").split()
    assert command[:2] == ["uv", "export"] and "--frozen" in command, command
    args = [a for a in command[2:] if a not in ("-o", "binder/requirements.txt")]
    exported = subprocess.run(
        [_uv(), "export", *args, "-q", "--no-header"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    kept = BINDER.read_text("utf-8").split("\n", 2)[2]  # without uv's two header lines
    assert kept == exported, "binder/requirements.txt is stale: run `make binder-requirements`"


@pytest.mark.parametrize("name", ["anthropic", "lxml", "pandas", "pytest", "hypothesis", "ruff"])
def test_the_suite_runs_on_the_locked_versions(name: str) -> None:
    if not os.environ.get("OO_UV"):
        pytest.skip("not run through `make test` (which syncs .venv to the lock)")
    assert metadata.version(name) in _locked()[name]
