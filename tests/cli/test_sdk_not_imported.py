"""`oo update --dry-run` and `oo show` only read and plan: they must never import the anthropic
SDK (its import alone takes seconds). Nor does a replay (`oo update` and `oo update-all` with
no key on the demo library's recorded runs): it reads the cassette without the SDK. Checked in a
fresh interpreter, by what is in ``sys.modules`` after the command ran (and so is tqdm, for an
update-all that shows no bar)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.corpus import corpus_dir

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, sys\n"
    "from oo_nb.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print(json.dumps({'code': code, 'sdk': sorted(m for m in sys.modules "
    "if m == 'anthropic' or m.startswith('anthropic.'))}))\n"
)


def _run(args: list[str], env_extra: dict[str, str]) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env_extra}
    env.pop("ANTHROPIC_BASE_URL", None)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    last = proc.stdout.strip().splitlines()[-1]
    result: dict[str, object] = json.loads(last)
    return result


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    target = tmp_path / "agi-declared.o-o.html"
    shutil.copyfile(corpus_dir() / "agi-declared.o-o.html", target)
    return target


@pytest.mark.parametrize("agent", ["anthropic", "replay", "claude-code"])
def test_dry_run_never_imports_the_sdk(doc: Path, agent: str) -> None:
    out = _run(
        ["update", "--dry-run", "--force", "--agent", agent, str(doc)],
        {"ANTHROPIC_API_KEY": "sk-ant-test-MARKER"},
    )
    assert out["code"] == 0
    assert out["sdk"] == []


def test_dry_run_without_a_key_never_imports_the_sdk(doc: Path) -> None:
    out = _run(["update", "--dry-run", "--force", str(doc)], {"ANTHROPIC_API_KEY": ""})
    assert out == {"code": 0, "sdk": []}


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_show_never_imports_the_sdk(doc: Path, extra: list[str]) -> None:
    out = _run(["show", *extra, str(doc)], {"ANTHROPIC_API_KEY": "sk-ant-test-MARKER"})
    assert out == {"code": 0, "sdk": []}


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    from oo_nb.demo import install_demo

    return install_demo(tmp_path / "demo", quiet=True).folder


OFFLINE = {"ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": "", "OO_AGENT": "", "PATH": ""}


def test_a_replayed_update_never_imports_the_sdk(demo: Path) -> None:
    doc = demo / "heat-pumps-in-europe.o-o.html"
    out = _run(["update", "--force", "--yes", str(doc)], OFFLINE)
    assert out == {"code": 0, "sdk": []}
    assert "replay (recorded)" in doc.read_text("utf-8")  # it was researched and written


def test_a_replayed_update_all_never_imports_the_sdk(demo: Path) -> None:
    out = _run(["update-all", str(demo), "--force", "--yes"], OFFLINE)
    assert out["sdk"] == []
    assert "replay (recorded)" in (demo / "heat-pumps-in-europe.o-o.html").read_text("utf-8")


def test_the_probe_sees_the_sdk_when_it_is_imported(doc: Path) -> None:
    """The control: the same probe on a command that does load the SDK reports it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, oo_nb.agent.backends.anthropic; print('anthropic' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    assert proc.stdout.strip() == "True"


def _loaded(args: list[str], modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a fresh `oo` (replaying, offline) has imported after ``args``."""
    probe = PROBE.replace("m == 'anthropic' or m.startswith('anthropic.')", f"m in {modules!r}")
    env = {**os.environ, "PYTHONPATH": str(ROOT), **OFFLINE}
    proc = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env, check=True
    )
    loaded: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])["sdk"]
    return loaded


def test_update_all_without_a_bar_never_imports_tqdm(demo: Path) -> None:
    """``--no-progress`` shows no bar: its module is not imported before the first request."""
    args = ["update-all", str(demo), "--force", "--no-progress"]
    assert _loaded(args, ("tqdm",)) == []
    assert _loaded(args[:-1], ("tqdm",)) == ["tqdm"]  # the control: with the bar, it is there


def test_update_all_with_force_never_imports_the_library_scan(demo: Path) -> None:
    """``--force`` researches every document without asking the library's scan which are due:
    the scan's modules (and its process pool's) are not imported before the first request."""
    scan = ("oo_nb.library.library", "multiprocessing")
    assert _loaded(["update-all", str(demo), "--force", "--no-progress"], scan) == []
    # the control: without --force the scan tells which documents are fresh
    assert "oo_nb.library.library" in _loaded(["update-all", str(demo), "--no-progress"], scan)
