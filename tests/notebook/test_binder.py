"""Static checks of the Binder files (and the start script's behaviour), as far as this machine
can check Binder without Binder."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def requirement_lines() -> list[str]:
    lines = (BINDER / "requirements.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]


def pins() -> dict[str, set[str]]:
    """Each package's pinned versions (one per Python version where the lock has several)."""
    out: dict[str, set[str]] = {}
    for line in requirement_lines():
        if line == "-e .":
            continue
        req = Requirement(line)
        (spec,) = req.specifier
        assert spec.operator == "==", f"not pinned: {line}"
        out.setdefault(canonicalize_name(req.name), set()).add(spec.version)
    return out


def test_requirements_are_pinned_and_install_the_repository() -> None:
    lines = requirement_lines()
    assert lines.count("-e .") == 1  # written by `uv export` from the lock (tests/test_lock.py)
    assert sum(len(v) for v in pins().values()) == len(lines) - 1


def test_every_runtime_dependency_is_pinned_within_its_range() -> None:
    pinned = pins()
    for dep in PYPROJECT["project"]["dependencies"]:
        req = Requirement(dep)
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} missing from binder/requirements.txt"
        for version in pinned[name]:
            assert req.specifier.contains(version, prereleases=True), (
                f"{name}=={version} outside {req.specifier}"
            )


def test_binder_has_what_the_launch_link_and_nbval_need() -> None:
    assert {"jupyterlab", "ipykernel", "nbval", "pytest"} <= set(pins())


def test_runtime_is_a_supported_python() -> None:
    text = (BINDER / "runtime.txt").read_text().strip()
    m = re.fullmatch(r"python-3\.(\d+)", text)
    assert m, text
    assert SpecifierSet(PYPROJECT["project"]["requires-python"]).contains(f"3.{m.group(1)}")


def test_start_script_shape() -> None:
    start = BINDER / "start"
    text = start.read_text()
    assert text.startswith("#!/bin/bash\n")
    assert os.access(start, os.X_OK)
    assert [ln for ln in text.splitlines() if ln.strip()][-1] == 'exec "$@"'
    subprocess.run(["bash", "-n", str(start)], check=True)
    post = BINDER / "postBuild"
    if post.exists():
        assert post.read_text().startswith("#!/bin/bash\n") and "set -e" in post.read_text()


def run_start(tmp_path: Path, command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OO_"))}
    base["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{base.get('PATH', '')}"
    return subprocess.run(
        ["bash", str(BINDER / "start"), *command],
        cwd=tmp_path,
        env={**base, **env},
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize(
    ("env", "agent"),
    [
        ({}, ""),
        ({"ANTHROPIC_API_KEY": "not-a-real-key"}, ""),
        ({"OO_AGENT": "anthropic"}, "anthropic"),
    ],
)
def test_start_pins_no_agent_and_builds_the_demo_library(
    tmp_path: Path, env: dict[str, str], agent: str
) -> None:
    r = run_start(tmp_path, ["bash", "-c", 'printf "%s" "${OO_AGENT:-}"'], **env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == agent
    assert (tmp_path / "notebooks" / "demo-library" / "heat-pumps-in-europe.o-o.html").exists()


def test_a_key_set_after_start_selects_the_real_agent(tmp_path: Path) -> None:
    """On Binder a key can only be set inside the running notebook (os.environ), after start."""
    script = (
        "import os; from oo_nb.agent.run import choose_agent; before = choose_agent(None); "
        "os.environ['ANTHROPIC_API_KEY'] = 'not-a-real-key'; print(before, choose_agent(None))"
    )
    r = run_start(tmp_path, [sys.executable, "-c", script])
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["replay", "anthropic"]


def test_start_passes_the_exit_status_through(tmp_path: Path) -> None:
    assert run_start(tmp_path, ["bash", "-c", "exit 7"]).returncode == 7


def test_readme_has_the_binder_launch_link() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "https://mybinder.org/badge_logo.svg" in readme
    assert re.search(
        r"https://mybinder\.org/v2/gh/[^/\s]+/oo_nb/HEAD\?urlpath=lab/tree/notebooks/01-quickstart\.ipynb",
        readme,
    )
    assert (ROOT / "notebooks" / "01-quickstart.ipynb").exists()
