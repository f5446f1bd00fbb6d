"""What a preview needs to know about the JupyterLab around the kernel, read from files (a
sandboxed frame runs no script and cannot ask the page): whether the chosen theme is dark, and
the URL under which the Jupyter server serves a file.

Both are best-effort and never raise: with no JupyterLab settings the preview follows the
system's light/dark preference, and with no server a link to a file is left out.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

__all__ = ["lab_theme_is_dark", "running_servers", "served_url"]

_THEMES = Path("@jupyterlab") / "apputils-extension" / "themes.jupyterlab-settings"
_LINE_COMMENT = re.compile(r"^\s*//.*$", re.M)
# JupyterLab keeps settings as JSON5: its Settings Editor accepts trailing commas and comments
# after a value, which strict JSON refuses. Then the two fields are read on their own.
_THEME = re.compile(r'"theme"\s*:\s*"((?:[^"\\]|\\.)*)"')
_ADAPTIVE = re.compile(r'"adaptive-theme"\s*:\s*true\b')


def _settings_dir() -> Path | None:
    explicit = os.environ.get("JUPYTERLAB_SETTINGS_DIR")
    if explicit:
        return Path(explicit)
    try:
        from jupyter_core.paths import jupyter_config_dir
    except ImportError:  # pragma: no cover - ipykernel brings jupyter_core
        return None
    return Path(jupyter_config_dir()) / "lab" / "user-settings"


def lab_theme_is_dark() -> bool | None:
    """True for a dark JupyterLab theme, False for a light one, None when not known (no
    settings, the default theme, or "synchronise with the system", where the frame's own
    ``prefers-color-scheme`` rule is right). ``OO_PREVIEW_THEME=dark|light`` overrides."""
    forced = os.environ.get("OO_PREVIEW_THEME", "").strip().lower()
    if forced in ("dark", "light"):
        return forced == "dark"
    folder = _settings_dir()
    if folder is None:
        return None
    try:
        text = _LINE_COMMENT.sub("", (folder / _THEMES).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        named = _THEME.search(text)
        data = {
            "adaptive-theme": _ADAPTIVE.search(text) is not None,
            "theme": named.group(1) if named else None,
        }
    if not isinstance(data, dict) or data.get("adaptive-theme") is True:
        return None
    theme = data.get("theme")
    return "dark" in theme.lower() if isinstance(theme, str) else None


def running_servers() -> list[dict[str, Any]]:
    """The info files of the Jupyter servers running on this machine, read as
    ``jupyter_server.serverapp.list_running_servers`` reads them (``jpserver-*.json`` in the
    runtime folder, kept when their process is alive) without importing it: that import took
    6-10 s and made ``%oo index`` wait for it. Nothing is deleted here (a reader's job is not to
    tidy a server's files); a file being written or damaged is passed over."""
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:  # pragma: no cover - ipykernel brings jupyter_core
        return []
    servers = []
    for file in sorted(Path(jupyter_runtime_dir()).glob("jpserver-*.json")):
        try:
            info = json.loads(file.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(info, dict) and _alive(info.get("pid")):
            servers.append(info)
    return servers


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:  # another user's process: alive
        return True
    except OSError:
        return False
    return True


def _own_servers(servers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The servers whose links this process may give: in a kernel a server started, that
    server only (jupyter_client gives the kernel its launcher's pid as ``JPY_PARENT_PID``, and
    the server's info file holds its ``pid``; a ``!oo index`` in a cell inherits it). A link is
    server-absolute, opened on the origin of the JupyterLab the user is in: another server's
    root (a second lab, a hub's server) made every card a 404. A kernel that no listed server
    started (nbclient, another front end) gets no link; a process no kernel launcher started
    (a script, ``oo index`` in a shell) any server whose root holds the file."""
    parent = os.environ.get("JPY_PARENT_PID", "").strip()
    if not parent.isdigit():
        return servers
    return [info for info in servers if info.get("pid") == int(parent)]


def served_url(path: Path) -> str | None:
    """The server-absolute URL of the Jupyter server's viewer (``/view/...``) for ``path`` on
    the kernel's own running server (``_own_servers``) when its root holds it, or None (no
    such server, or the file is outside its root).

    Not ``/files/...``: the server answers a GET there only with an XSRF token, its own token,
    or a ``Referer`` naming its host (``check_xsrf_cookie`` falls back to ``check_referer``), and
    a link in the preview's sandboxed frame (an opaque origin) makes Chromium send no Referer
    whatever the referrer policy: 403 "Blocking request from unknown origin". ``/view/`` is an
    ordinary authenticated page (the login cookie suffices) that frames ``/files/...`` from the
    server's own origin, so that request carries the Referer the check wants."""
    target = path.resolve()
    for info in _own_servers(running_servers()):
        root = info.get("root_dir") or info.get("notebook_dir")
        if not isinstance(root, str):
            continue
        try:
            rel = target.relative_to(Path(root).resolve())
        except ValueError:
            continue
        base = str(info.get("base_url") or "/")
        return f"{base.rstrip('/')}/view/{quote(rel.as_posix())}"
    return None
