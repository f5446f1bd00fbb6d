"""`make test` passes whatever the user chose in their own Jupyter: with the dark theme picked in
`make lab`, 2 cells of the quickstart (5 across the notebooks) failed under nbval, because the
kernel read the user's JupyterLab settings. The suite now runs on settings folders of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from oo_nb.notebook.lab_context import lab_theme_is_dark
from tests.support.isolation import AMBIENT, SETTINGS_DIRS

ROOT = Path(__file__).resolve().parents[2]
THEMES = Path("@jupyterlab") / "apputils-extension" / "themes.jupyterlab-settings"


def a_home_with_choices(home: Path) -> Path:
    """A home folder as a user leaves it: the dark theme, an IPython startup file, a rc file."""
    settings = home / ".jupyter" / "lab" / "user-settings" / THEMES
    settings.parent.mkdir(parents=True)
    settings.write_text('{"theme": "JupyterLab Dark"}', "utf-8")
    startup = home / ".ipython" / "profile_default" / "startup" / "00-mine.py"
    startup.parent.mkdir(parents=True)
    startup.write_text("raise SystemExit('the user IPython startup ran in a test kernel')\n")
    (home / ".config" / "matplotlib").mkdir(parents=True)
    (home / ".config" / "matplotlib" / "matplotlibrc").write_text("figure.dpi: 17\n")
    return home


def test_this_run_reads_no_user_settings() -> None:
    home = Path.home().resolve()
    for name in SETTINGS_DIRS:
        assert home not in Path(os.environ[name]).resolve().parents, name
    assert not any(name in os.environ for name in AMBIENT)
    assert lab_theme_is_dark() is None


@pytest.mark.locked
def test_the_notebooks_pass_after_the_user_chose_the_dark_theme(tmp_path: Path) -> None:
    home = a_home_with_choices(tmp_path / "home")
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_DIRS}
    # as the user's shell would have it, a key and an address that must never be reached
    startup = home / "startup.py"
    startup.write_text("raise SystemExit('PYTHONSTARTUP ran in a test kernel')\n")
    env.update(HOME=str(home), ANTHROPIC_API_KEY="sk-ant-never-used", OO_PREVIEW_THEME="dark")
    env.update(PYTHONSTARTUP=str(startup), HTTP_PROXY="http://127.0.0.1:9", NO_PROXY="")
    env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"
    run = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "--nbval", "--nbval-current-env",
            "--nbval-sanitize-with", "notebooks/nbval_sanitize.cfg",
            "notebooks/01-quickstart.ipynb",
        ],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout
