"""Real receivers on loopback for the alert tests: an HTTP server that keeps every JSON body
POSTed to it (and answers with the status asked for), and an SMTP server (aiosmtpd) that
requires STARTTLS with a certificate made for the run and a login, and keeps every message."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["Mailbox", "WebhookReceiver", "make_certificate", "smtp_server", "webhook_receiver"]


@dataclass
class WebhookReceiver:
    url: str
    bodies: list[Any] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    status: int = 200


@contextmanager
def webhook_receiver(
    status: int = 200, on_post: Callable[[int], None] | None = None
) -> Iterator[WebhookReceiver]:
    """``on_post(n)``, when given, runs once the n-th body (from 1) is kept, before the answer:
    a test acts while that request is in flight (and holds it there while ``on_post`` waits)."""
    receiver = WebhookReceiver(url="")
    receiver.status = status

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            data = self.rfile.read(length)
            receiver.paths.append(self.path)
            receiver.bodies.append(json.loads(data.decode("utf-8")))
            if on_post is not None:
                on_post(len(receiver.bodies))
            self.send_response(receiver.status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:  # quiet: the test reads the bodies
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hook/T0K3N-secret-path"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (and its key), made with the openssl tool."""
    tool = shutil.which("openssl")
    if tool is None:
        import pytest

        pytest.skip("the openssl tool is not installed: no certificate for STARTTLS")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [tool, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@dataclass
class Mailbox:
    port: int
    cert: Path
    messages: list[Message] = field(default_factory=list)
    logins: list[tuple[str, str]] = field(default_factory=list)
    tls_at_login: list[bool] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def smtp_server(folder: Path, user: str, password: str) -> Iterator[Mailbox]:
    """aiosmtpd on 127.0.0.1: STARTTLS required before anything else, then a login."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    cert, key = make_certificate(folder)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    box = Mailbox(port=_free_port(), cert=cert)

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            box.messages.append(message_from_bytes(envelope.content))
            return "250 OK"

    def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
        if not isinstance(data, LoginPassword):
            return AuthResult(success=False, handled=False)
        login, secret = data.login.decode(), data.password.decode()
        box.logins.append((login, secret))
        box.tls_at_login.append(session.ssl is not None)
        return AuthResult(success=(login, secret) == (user, password), handled=False)

    controller = Controller(
        Handler(),
        hostname="127.0.0.1",
        port=box.port,
        tls_context=context,
        require_starttls=True,
        authenticator=authenticator,
        auth_required=True,
        auth_require_tls=True,
    )
    controller.start()
    try:
        yield box
    finally:
        controller.stop()
