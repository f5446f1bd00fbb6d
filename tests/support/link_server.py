"""A loopback HTTP server for ``oo links``: one answer per path, and what it saw.

Paths: ``/ok`` 200; ``/moved`` 301 → ``/ok``; ``/temp`` 302 → ``/ok``; ``/missing`` 404;
``/gone`` 410; ``/forbidden`` 403; ``/head-refused`` 405 to HEAD, 200 to GET; ``/slow`` answers
after ``slow_s``; ``/reset`` closes the connection with a TCP reset; ``/cookie`` sets a cookie;
``/to-private`` 301 → ``http://10.0.0.1/``. ``?delay=S`` holds any answer S seconds (for the
concurrency figures). It counts requests in flight per ``Host`` header (``max_in_flight``),
and keeps the User-Agent and Cookie headers it received.
"""

from __future__ import annotations

import shutil
import socket
import struct
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from oo_nb.format.document import Document
from tests.conftest import CORPUS

__all__ = ["LinkServer", "library_with_sources"]


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_HEAD(self) -> None:
        self._answer("HEAD")

    def do_GET(self) -> None:
        self._answer("GET")

    def _answer(self, method: str) -> None:
        owner = self.server.owner
        host = self.headers.get("Host", "")
        parts = urlsplit(self.path)
        delay = float(parse_qs(parts.query).get("delay", ["0"])[0])
        # counted as in flight while it is held, and left before the answer goes out: the
        # client may send its next request the moment it has this one's answer
        owner.enter(host, method, self.headers.get("User-Agent"), self.headers.get("Cookie"))
        try:
            if delay:
                time.sleep(delay)
        finally:
            owner.leave(host)
        self._route(parts.path, method)

    def _route(self, path: str, method: str) -> None:
        if path == "/reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if path == "/slow":
            time.sleep(self.server.owner.slow_s)
        status, headers = {
            "/ok": (200, {}),
            "/slow": (200, {}),
            "/moved": (301, {"Location": "/ok"}),
            "/temp": (302, {"Location": "/ok"}),
            "/missing": (404, {}),
            "/gone": (410, {}),
            "/forbidden": (403, {}),
            "/cookie": (200, {"Set-Cookie": "track=me; Path=/"}),
            "/to-private": (301, {"Location": "http://10.0.0.1/"}),
        }.get(path, (404, {}))
        if path == "/head-refused":
            status = 405 if method == "HEAD" else 200
        body = b"" if method == "HEAD" else b"page body\n"
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    owner: LinkServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client closing first (after a HEAD, or on purpose) is not news


class LinkServer:
    def __init__(self, *, slow_s: float = 3.0, address: str = "127.0.0.1") -> None:
        self.address = address  # any 127.x.y.z: one server per loopback "host"
        self.slow_s = slow_s
        self.lock = threading.Lock()
        self.in_flight: Counter[str] = Counter()
        self.max_in_flight: Counter[str] = Counter()
        self.requests: list[tuple[str, str]] = []  # (host, method)
        self.user_agents: set[str | None] = set()
        self.cookies: list[str] = []
        self._server = _Server((address, 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, path: str) -> str:
        return f"http://{self.address}:{self.port}{path}"

    def enter(self, host: str, method: str, agent: str | None, cookie: str | None) -> None:
        with self.lock:
            self.in_flight[host] += 1
            self.max_in_flight[host] = max(self.max_in_flight[host], self.in_flight[host])
            self.requests.append((host, method))
            self.user_agents.add(agent)
            if cookie:
                self.cookies.append(cookie)

    def leave(self, host: str) -> None:
        with self.lock:
            self.in_flight[host] -= 1

    def __enter__(self) -> LinkServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def library_with_sources(tmp_path: Path, urls: list[str]) -> Path:
    """A folder holding one corpus document whose cached sources are ``urls``."""
    folder = tmp_path / "lib"
    folder.mkdir()
    path = folder / "yc-w26-batch.o-o.html"
    shutil.copy(CORPUS / path.name, path)
    doc = Document.read(path)
    cache = doc.block_json("oo-source-cache")
    cache["sources"] = [{"id": f"s{i + 1}", "url": u, "title": f"T{i}"} for i, u in enumerate(urls)]
    path.write_bytes(doc.with_block("oo-source-cache", cache).to_bytes())
    return folder
