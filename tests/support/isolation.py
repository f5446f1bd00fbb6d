"""What a test run must not take from the machine it runs on: the user's Jupyter, IPython and
matplotlib settings (a dark theme chosen in `make lab` changed the notebooks' preview output),
API settings from the shell (a real key would send a test's request to the real API), a
``PYTHONSTARTUP`` file, and a proxy that loopback requests would go through.

The repository's root ``conftest.py`` calls :func:`isolate` before any test module or notebook
is collected, so the unit tests, the browser tests and the notebooks under nbval (whose kernels
inherit this environment) all run on it. Tests that need a setting set it themselves."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["AMBIENT", "LOOPBACK", "SETTINGS_DIRS", "isolate"]

# Settings a developer's shell may hold that would change what a test does.
AMBIENT = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "OO_MODEL",
    "OO_AGENT",
    "OO_TODAY",
    "OO_PREVIEW_THEME",
    "PYTHONSTARTUP",  # ipykernel runs it in every notebook kernel under nbval
)
# Loopback never goes through a proxy the shell may set (the mock API, the link server).
LOOPBACK = ("127.0.0.1", "localhost", "::1")

# Where each tool reads its user settings, given a folder of the run's own.
SETTINGS_DIRS = {
    "JUPYTER_CONFIG_DIR": "jupyter-config",
    "JUPYTER_DATA_DIR": "jupyter-data",
    "JUPYTER_RUNTIME_DIR": "jupyter-runtime",
    "JUPYTERLAB_SETTINGS_DIR": "jupyter-config/lab/user-settings",
    "JUPYTERLAB_WORKSPACES_DIR": "jupyter-config/lab/workspaces",
    "IPYTHONDIR": "ipython",
    "MPLCONFIGDIR": "matplotlib",
    "OO_DATA_DIR": "oo-data",  # the seal key (oo_nb.store.seal): never the user's
}


def isolate() -> Path:
    """Point every tool's settings at one new empty folder, drop the ambient settings, and
    return the folder. Called once per test process."""
    base = Path(tempfile.mkdtemp(prefix="oo-test-settings-"))
    for name, sub in SETTINGS_DIRS.items():
        folder = base / sub
        folder.mkdir(parents=True, exist_ok=True)
        os.environ[name] = str(folder)
    os.environ.pop("JUPYTER_PATH", None)  # extra data folders a user may have added
    os.environ.pop("JUPYTER_PLATFORM_DIRS", None)
    for name in AMBIENT:
        os.environ.pop(name, None)
    for name in ("NO_PROXY", "no_proxy"):
        kept = [h for h in os.environ.get(name, "").split(",") if h.strip()]
        os.environ[name] = ",".join([*kept, *(h for h in LOOPBACK if h not in kept)])
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    return base
