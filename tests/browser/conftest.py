"""Browser fixtures: Debian's Chromium driven by Playwright, a recorder of every request, dialog,
page error and navigation, and a JupyterLab server on loopback.

Chromium is never downloaded (`playwright install` fails offline); it comes from Debian
(`make browser`). Without it the browser tests skip, with the reason — unless
``OO_REQUIRE_BROWSER`` is set (CI), where a missing browser is an error.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Request, Route

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
# From shared/notes/jupyter-and-browser.md: no sandbox (root in CI), nothing phoning home.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Schemes that never leave the machine. Anything else a page asks for is a network request.
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


def _required() -> bool:
    return os.environ.get("OO_REQUIRE_BROWSER", "").strip() not in ("", "0", "false", "no")


def _unavailable(reason: str) -> None:
    if _required():
        pytest.fail(f"OO_REQUIRE_BROWSER is set but {reason}", pytrace=False)
    pytest.skip(f"{reason} (run `make browser`; set OO_REQUIRE_BROWSER=1 to make this an error)")


def find_chromium() -> str | None:
    """``OO_CHROMIUM`` if set (only it: setting it to a missing path simulates no browser), else
    Debian's Chromium."""
    env = os.environ.get("OO_CHROMIUM")
    for candidate in (env,) if env else CHROMIUM_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    return None


# ----------------------------------------------------------------------------- browser
@pytest.fixture(scope="session")
def chromium_executable() -> str:
    path = find_chromium()
    if path is None:
        looked = os.environ.get("OO_CHROMIUM") or ", ".join(CHROMIUM_CANDIDATES)
        _unavailable(f"Chromium is not installed (looked for {looked})")
    assert path is not None
    return path


# Module scope, not session: the sync API runs an event loop until ``stop()``, and while it runs
# ``asyncio.run`` fails in any later test of the same pytest process.
@pytest.fixture(scope="module")
def browser(chromium_executable: str) -> Iterator[Browser]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        _unavailable(f"the playwright package is missing ({exc})")
        raise
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=chromium_executable, args=CHROMIUM_ARGS)
    except Exception as exc:
        pw.stop()
        _unavailable(f"Chromium at {chromium_executable} does not start: {exc}")
        raise
    yield b
    b.close()
    pw.stop()


@pytest.fixture(scope="module")
def offline_page(browser: Browser) -> Iterator[Page]:
    """One page with scripts on that loads nothing (every request aborted), for a module's
    ``set_content`` cases: what Chromium's DOM makes of markup."""
    context = browser.new_context(java_script_enabled=True)
    page = context.new_page()
    page.route("**/*", lambda route: route.abort())  # nothing leaves the machine
    yield page
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def wait_js(page: Page, expression: str, arg: Any = None, *, timeout_ms: int = 30_000) -> Any:
    """Poll ``expression`` (a JS expression or function of ``arg``) until it is truthy.

    Not ``page.wait_for_function``: its in-page poller re-evaluates the expression with ``eval``
    from a timer, which the page's own CSP (no 'unsafe-eval', set by the bootstrap script while
    the page loads) refuses. ``page.evaluate`` runs through DevTools, which that CSP does not
    govern, so a poll from here never races the policy.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        value = page.evaluate(expression, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{expression!r} stayed falsy for {timeout_ms} ms")
        time.sleep(0.02)


@dataclass
class Probe:
    """One page in its own context, with everything it did recorded."""

    context: BrowserContext
    page: Page
    requests: list[str] = field(default_factory=list)  # every non-file:// request seen
    routed: list[str] = field(default_factory=list)  # requests that reached the network layer
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # uncaught page exceptions
    console: list[str] = field(default_factory=list)
    navigations: list[str] = field(default_factory=list)
    popups: list[str] = field(default_factory=list)

    @property
    def network_requests(self) -> list[str]:
        """Requests for anything but local schemes: whatever asked for them, they would have
        left the machine (the route handler aborts them)."""
        return [u for u in [*self.requests, *self.routed] if not u.startswith(LOCAL_SCHEMES)]

    def open(self, path: Path, *, settle_ms: int = 0) -> Page:
        """Open a file. An o-o page calls ``window.stop()`` at its rendering boundary, so neither
        ``DOMContentLoaded`` nor ``load`` ever fires: wait for ``readyState`` instead."""
        self.page.goto(path.resolve().as_uri(), wait_until="commit")
        wait_js(self.page, "document.readyState === 'complete'")
        if settle_ms:
            self.page.wait_for_timeout(settle_ms)
        return self.page

    def reload(self) -> Page:
        self.page.reload(wait_until="commit")
        wait_js(self.page, "document.readyState === 'complete'")
        return self.page

    def reset(self) -> None:
        """Forget what was recorded (before opening the next page in the same tab)."""
        for record in (
            self.requests,
            self.routed,
            self.dialogs,
            self.errors,
            self.console,
            self.navigations,
            self.popups,
        ):
            record.clear()

    def screenshot(self, directory: Path, name: str) -> Path:
        target = directory / f"{name}.png"
        self.page.screenshot(path=str(target), full_page=True)
        return target


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Callable[..., Probe]]:
    """``open_page(color_scheme="dark")`` gives a fresh context (own localStorage) and page,
    with a recorder of requests, dialogs, errors, navigations and popups. Requests to anything
    but ``file:`` URLs (and the ``allow`` prefixes, e.g. a loopback JupyterLab) are aborted."""
    contexts: list[BrowserContext] = []

    def make(
        *,
        color_scheme: str | None = None,
        viewport: dict[str, int] | None = None,
        allow: tuple[str, ...] = (),
    ) -> Probe:
        kwargs: dict[str, Any] = {"viewport": viewport or {"width": 1200, "height": 800}}
        if color_scheme is not None:
            kwargs["color_scheme"] = color_scheme
        ctx = browser.new_context(**kwargs)
        ctx.set_default_timeout(
            30_000
        )  # a stuck page fails its test instead of hanging it (30 s: a loaded 2-core CI)
        contexts.append(ctx)
        allowed = (*allow, *(a.replace("http", "ws", 1) for a in allow if a.startswith("http")))
        page = ctx.new_page()
        probe = Probe(ctx, page)

        def on_request(req: Request) -> None:
            if not req.url.startswith(("file:", *allowed)):
                probe.requests.append(req.url)

        def on_route(route: Route) -> None:
            url = route.request.url
            if url.startswith(("file:", *allowed)):
                route.continue_()
            else:
                probe.routed.append(url)
                route.abort()

        def on_dialog(dialog: Any) -> None:
            probe.dialogs.append(f"{dialog.type}: {dialog.message}")
            dialog.dismiss()

        ctx.on("request", on_request)
        ctx.route("**/*", on_route)
        ctx.on("page", lambda p: probe.popups.append(p.url) if p is not page else None)
        page.on("dialog", on_dialog)
        page.on("pageerror", lambda e: probe.errors.append(str(e)))
        page.on("console", lambda m: probe.console.append(f"{m.type}: {m.text}"))
        page.on(
            "websocket",
            lambda ws: None if ws.url.startswith(allowed) else probe.requests.append(ws.url),
        )
        page.on(
            "framenavigated",
            lambda f: probe.navigations.append(f.url) if f is page.main_frame else None,
        )
        return probe

    yield make
    for ctx in contexts:
        ctx.close()


# ----------------------------------------------------------------------------- JupyterLab
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _jupyter_command() -> list[str]:
    venv_jupyter = Path(sys.executable).parent / "jupyter"
    if venv_jupyter.exists():
        return [str(venv_jupyter)]
    return [sys.executable, "-m", "jupyter"]


@dataclass
class LabServer:
    url: str  # http://127.0.0.1:PORT
    token: str
    root: Path
    process: subprocess.Popen[bytes]
    log: Path

    def api(self, path: str, method: str = "GET") -> bytes:
        req = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            data: bytes = resp.read()
            return data

    def lab_url(self, relpath: str) -> str:
        """``relpath`` opened in a fresh workspace (``reset``): otherwise JupyterLab restores the
        notebooks an earlier test opened, and one of them may be the current widget that the
        readiness checks and Run All act on."""
        return f"{self.url}/lab/tree/{relpath}?token={self.token}&reset"


@pytest.fixture(scope="session")
def lab_server(
    tmp_path_factory: pytest.TempPathFactory, chromium_executable: str
) -> Iterator[LabServer]:
    """JupyterLab on 127.0.0.1 with its own HOME and JUPYTER_* folders, serving a scratch copy of
    ``notebooks/`` (the notebooks write files). Stopped by its PID."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    notebooks = REPO / "notebooks"
    if notebooks.is_dir():
        shutil.copytree(
            notebooks,
            root / "notebooks",
            ignore=shutil.ignore_patterns(".ipynb_checkpoints", ".oo-history"),
        )
    else:
        (root / "notebooks").mkdir(parents=True)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "ANTHROPIC_API_KEY"))
    }
    for name in ("home", "config", "data", "runtime", "ipython"):
        (base / name).mkdir()
    env.update(
        HOME=str(base / "home"),
        JUPYTER_CONFIG_DIR=str(base / "config"),
        JUPYTER_DATA_DIR=str(base / "data"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        IPYTHONDIR=str(base / "ipython"),
        JUPYTER_PLATFORM_DIRS="1",
        PYTHONPATH=str(REPO),
    )
    # Render every cell (JupyterLab 4 leaves off-screen cells out of the DOM by default), and no
    # announcements popping over the notebook.
    settings = base / "config" / "lab" / "user-settings" / "@jupyterlab"
    (settings / "notebook-extension").mkdir(parents=True)
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        '{"windowingMode": "none"}'
    )
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    token = os.urandom(12).hex()
    port = _free_port()
    log = base / "lab.log"
    cmd = [
        *_jupyter_command(), "lab", "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
        f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None", "--LabApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=root, stdout=out, stderr=subprocess.STDOUT)
    server = LabServer(f"http://127.0.0.1:{port}", token, root, proc, log)
    try:
        _wait_ready(server)
        yield server
    finally:
        _stop(server)


def _wait_ready(server: LabServer, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(
                f"jupyter lab exited ({server.process.returncode}):\n{server.log.read_text()[-3000:]}"
            )
        try:
            server.api("/api/status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    pytest.fail(f"jupyter lab not ready after {timeout:.0f} s:\n{server.log.read_text()[-3000:]}")


def _stop(server: LabServer) -> None:
    import json

    try:  # shut the kernels down through the server, so no kernel outlives it
        for kernel in json.loads(server.api("/api/kernels")):
            server.api(f"/api/kernels/{kernel['id']}", method="DELETE")
    except Exception:
        pass
    pid = server.process.pid
    if server.process.poll() is None:
        os.kill(pid, signal.SIGTERM)
        try:
            server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.kill(pid, signal.SIGKILL)
            server.process.wait(timeout=5)
