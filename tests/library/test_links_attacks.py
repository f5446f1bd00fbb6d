"""Attacks on ``oo links`` from outside (issue 16): hostile servers on loopback."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from oo_nb.library.links import LinkOptions, check_urls
from tests.support.link_server import LinkServer


@pytest.fixture
def dripping_server() -> Iterator[str]:
    """A server that answers one byte of its headers every 0.2 s, for ever (slowloris): no
    single read waits long, the answer never ends."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def drip(conn: socket.socket) -> None:
        try:
            conn.recv(4096)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            while not stop.is_set():
                conn.sendall(b"X-Pad: aaaaaaaa\r\n"[:1])
                time.sleep(0.2)
        except OSError:
            pass
        finally:
            conn.close()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=drip, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.getsockname()[1]}/page"
    finally:
        stop.set()
        srv.close()


def test_a_dripping_answer_ends_at_the_timeout(dripping_server: str) -> None:
    # each read got a byte within the timeout, so a per-read timeout never fired and the check
    # hung for as long as the server kept dripping
    start = time.monotonic()
    result: list[object] = []
    worker = threading.Thread(
        target=lambda: result.extend(
            check_urls([dripping_server], LinkOptions(timeout_s=1.0, allow_private=True))
        ),
        daemon=True,
    )
    worker.start()
    worker.join(15)
    assert not worker.is_alive(), "the check was still waiting after 15 s (timeout 1 s)"
    (row,) = result
    assert row.link_status == "unknown"  # type: ignore[attr-defined]
    assert row.error == "timed out"  # type: ignore[attr-defined]
    assert time.monotonic() - start < 8  # at most a few requests of 1 s each


def test_a_busy_host_does_not_hold_up_the_others() -> None:
    # 40 slow URLs on one host (per-host limit 2) and one on another: the global slots were
    # taken before the host's, so 30 of them sat idle waiting for the busy host and the other
    # host's only URL waited behind all of its queue
    first_b: list[float] = []
    with LinkServer(address="127.0.0.2") as a, LinkServer(address="127.0.0.3") as b:
        seen = b.enter

        def enter(*args: str | None) -> None:
            first_b.append(time.monotonic())
            seen(*args)  # type: ignore[arg-type]

        b.enter = enter  # type: ignore[method-assign]
        urls = [a.url(f"/ok?delay=0.2&n={i}") for i in range(40)] + [b.url("/ok")]
        start = time.monotonic()
        rows = check_urls(urls, LinkOptions(allow_private=True, per_host=2, concurrency=8))
        assert {r.link_status for r in rows} == {"ok"}
        assert max(a.max_in_flight.values()) <= 2
    assert first_b[0] - start < 1.0, f"the other host waited {first_b[0] - start:.2f} s"


@pytest.mark.parametrize(
    "url",
    [
        "http://100.100.100.200/latest/meta-data/",  # Alibaba Cloud's metadata service
        "http://100.64.0.1/",  # shared address space (carrier-grade NAT): not public
        "http://[2002:a9fe:a9fe::1]/",  # 6to4 wrapping 169.254.169.254
        "http://[2001:0:4136:e378:8000:63bf:5601:5601]/",  # Teredo wrapping 169.254.169.254's peer
    ],
)
def test_non_public_addresses_beyond_the_private_ranges_are_skipped(url: str) -> None:
    # 100.64.0.0/10 is neither private nor loopback nor link-local in ipaddress's terms, so
    # the check sent its requests there (a cloud metadata endpoint among them)
    (row,) = check_urls([url], LinkOptions(timeout_s=0.5))
    assert row.link_status == "skipped", row
    assert row.status is None


class _BadRedirect(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_HEAD(self) -> None:
        self.send_response(301)
        self.send_header("Location", "http://127.0.0.1:99999/")  # no such port number
        self.send_header("Content-Length", "0")
        self.end_headers()


def test_a_malformed_url_is_one_bad_row_not_a_crash_of_the_run() -> None:
    # a port out of range or a broken IPv6 literal in one source (or in a Location header)
    # raised ValueError, a control character or a 70,000-character URL httpx's InvalidURL,
    # out of the whole run: no link was checked or stored
    server = ThreadingHTTPServer(("127.0.0.1", 0), _BadRedirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with LinkServer() as ok:
            redirect = f"http://127.0.0.1:{server.server_address[1]}/r"
            bad = [
                "http://example.com:99999/",
                "https://[abc/",
                ok.url("/a\nb"),
                ok.url("/" + "x" * 70_000),
            ]
            urls = [*bad, redirect, ok.url("/ok")]
            rows = {r.url: r for r in check_urls(urls, LinkOptions(allow_private=True))}
    finally:
        server.shutdown()
        server.server_close()
    assert rows[ok.url("/ok")].link_status == "ok"
    for url in bad:
        assert rows[url].link_status == "skipped"
        assert "not a valid URL" in (rows[url].error or "")
    assert rows[redirect].link_status == "unknown"
    assert "not a valid URL" in (rows[redirect].error or "")


class _Chain(BaseHTTPRequestHandler):
    """/old 301 → /new 302 → /login?next=/new 200 (a login or consent wall after a move)."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_HEAD(self) -> None:
        status, location = {
            "/old": (301, "/new"),
            "/new": (302, "/login?next=/new"),
            "/p1": (308, "/p2"),
            "/p2": (301, "/final"),
        }.get(self.path, (200, ""))
        self.send_response(status)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


def test_a_temporary_hop_after_a_move_is_not_proposed_as_the_new_url() -> None:
    # the first answer was permanent, so the link was "moved" to wherever the chain ended:
    # the update prompt told the model to cite the login page a later 302 led to
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Chain)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        rows = {
            r.url: r
            for r in check_urls([f"{base}/old", f"{base}/new"], LinkOptions(allow_private=True))
        }
        (only_permanent,) = check_urls([f"{base}/p1"], LinkOptions(allow_private=True))
    finally:
        server.shutdown()
        server.server_close()
    old = rows[f"{base}/old"]
    assert old.link_status == "ok" and old.permanent
    assert old.final_url == f"{base}/login?next=/new"
    # a chain of permanent redirects only is a move, to where it ends
    assert only_permanent.link_status == "moved"
    assert only_permanent.final_url == f"{base}/final"


def test_a_name_that_answers_public_then_loopback_is_not_connected_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # DNS rebinding: the check resolved the name (public), then the HTTP client resolved it
    # again to connect (loopback) and sent its request there. The stand-in says "public" for
    # the first look-up; the connection itself must be made to a checked address.
    from oo_nb.library import links

    async def first_answer_public(host: str, port: int) -> None:
        return None

    monkeypatch.setattr(links, "public_address_problem", first_answer_public)
    with LinkServer() as server:
        url = f"http://localhost:{server.port}/ok"
        (row,) = check_urls([url], LinkOptions(timeout_s=2))
        assert server.requests == []
    assert row.link_status == "skipped"
    assert "loopback" in (row.error or "")
