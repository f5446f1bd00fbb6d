"""Downloading a proposed image connects only to the address it checked (DNS rebinding, SSRF).

The name service and the network are stand-ins: ``socket.getaddrinfo`` answers from a script
(one answer per look-up, the last repeated), and the blocking httpcore2 backend's
``connect_tcp`` records where it was asked to connect and, for a scripted address, serves a
canned HTTP answer over a fake stream (its TLS is a no-op that records the name it was given).
No socket is opened: the attack needs a name that answers public first and loopback next.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import httpcore2
import pytest

from oo_nb.agent.image_fetch import fetch_image_https
from oo_nb.agent.images import ImageRejected
from oo_nb.netguard import address_problem

PUBLIC = "93.184.216.34"
PUBLIC_2 = "93.184.216.35"
PNG = b"\x89PNG\r\n\x1a\n not really, but bytes are bytes here"


def ok_png() -> bytes:
    head = f"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: {len(PNG)}\r\n\r\n"
    return head.encode() + PNG


def redirect(location: str) -> bytes:
    return f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()


class FakeStream(httpcore2.NetworkStream):
    def __init__(self, answer: bytes, tls_names: list[str | None]) -> None:
        self.pending, self.tls_names = answer, tls_names

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        chunk, self.pending = self.pending[:max_bytes], self.pending[max_bytes:]
        return chunk

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        pass

    def close(self) -> None:
        pass

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.NetworkStream:
        self.tls_names.append(server_hostname)
        return self

    def get_extra_info(self, info: str) -> Any:
        return None


@dataclass
class FakeNet:
    dns: dict[str, list[str]]  # name -> its answer to each look-up in turn ("": none), the last
    served: dict[str, bytes]  # address -> the HTTP answer there
    lookups: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    asked: list[str] = field(default_factory=list)  # the host each connect was given
    connected: list[str] = field(default_factory=list)  # the addresses it would connect to
    tls_names: list[str | None] = field(default_factory=list)

    def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        host = host.decode() if isinstance(host, bytes) else str(host)
        try:
            answer = str(ipaddress.ip_address(host))  # a literal answers itself
        except ValueError:
            if host not in self.dns:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
            turns = self.dns[host]
            answer = turns[min(self.lookups[host], len(turns) - 1)]
            self.lookups[host] += 1
            if not answer:  # the name is gone by now
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
        if ":" in answer:
            return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (answer, port, 0, 0))]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answer, port))]

    def connect_tcp(
        self,
        backend: Any,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        # what socket.create_connection would do: resolve a name (once more), connect there
        self.asked.append(host)
        addresses = [str(info[4][0]) for info in socket.getaddrinfo(host, port)]
        self.connected.extend(addresses)
        if addresses[0] not in self.served:
            raise httpcore2.ConnectError(f"nothing listens at {addresses[0]}")
        return FakeStream(self.served[addresses[0]], self.tls_names)

    def non_public(self) -> list[str]:
        return [a for a in self.connected if address_problem(a) is not None]


@pytest.fixture
def fake_net(monkeypatch: pytest.MonkeyPatch) -> FakeNet:
    net = FakeNet(dns={}, served={})
    monkeypatch.setattr(socket, "getaddrinfo", net.getaddrinfo)

    def connect_tcp(backend: Any, *args: Any, **kwargs: Any) -> httpcore2.NetworkStream:
        return net.connect_tcp(backend, *args, **kwargs)

    monkeypatch.setattr(httpcore2.SyncBackend, "connect_tcp", connect_tcp)
    return net


def test_the_connection_goes_to_the_address_checked_and_tls_names_the_host(
    fake_net: FakeNet,
) -> None:
    # the HTTP client was given the name and resolved it again itself
    fake_net.dns["img.example"] = [PUBLIC]
    fake_net.served[PUBLIC] = ok_png()
    assert fetch_image_https("https://img.example/a.png") == PNG
    assert fake_net.asked == [PUBLIC]
    assert fake_net.tls_names == ["img.example"]


def test_a_name_that_answers_public_then_loopback_is_not_connected_to(fake_net: FakeNet) -> None:
    # DNS rebinding: the check saw a public address, the client's own look-up got loopback and
    # downloaded from the user's machine
    fake_net.dns["rebind.example"] = [PUBLIC, "127.0.0.1"]
    fake_net.served |= {PUBLIC: ok_png(), "127.0.0.1": ok_png()}
    with pytest.raises(
        ImageRejected,
        match=r"rebind\.example resolves to a loopback address 127\.0\.0\.1 when connecting",
    ):
        fetch_image_https("https://rebind.example/a.png")
    assert fake_net.connected == []


BAD = [
    ("169.254.169.254", "link-local address 169.254.169.254"),
    ("10.0.0.1", "private address 10.0.0.1"),
    ("::ffff:127.0.0.1", "loopback address 127.0.0.1 (inside ::ffff:127.0.0.1)"),
    ("100.64.0.1", "non-public address 100.64.0.1"),
    ("2002:7f00:1::1", "loopback address 127.0.0.1 (inside 2002:7f00:1::1)"),  # 6to4
]


@pytest.mark.parametrize("when", ["always", "when connecting"])
@pytest.mark.parametrize(("address", "problem"), BAD)
def test_a_name_resolving_to_a_non_public_address_is_refused_naming_it(
    fake_net: FakeNet, address: str, problem: str, when: str
) -> None:
    fake_net.dns["bad.example"] = [address] if when == "always" else [PUBLIC, address]
    fake_net.served |= {PUBLIC: ok_png(), address: ok_png()}
    with pytest.raises(ImageRejected) as caught:
        fetch_image_https("https://bad.example/a.png")
    assert f"bad.example resolves to a {problem}" in str(caught.value)
    assert fake_net.connected == []


@pytest.mark.parametrize("when", ["always", "when connecting"])
def test_a_redirect_to_a_non_public_host_is_refused(fake_net: FakeNet, when: str) -> None:
    # every hop connects through the checked backend, not only the first
    fake_net.dns["img.example"] = [PUBLIC]
    meta = "169.254.169.254"
    fake_net.dns["meta.example"] = [meta] if when == "always" else [PUBLIC_2, meta]
    fake_net.served |= {
        PUBLIC: redirect("https://meta.example/latest/meta-data/"),
        PUBLIC_2: ok_png(),
        meta: ok_png(),
    }
    with pytest.raises(ImageRejected, match=re.escape("meta.example resolves to a link-local")):
        fetch_image_https("https://img.example/a.png")
    assert fake_net.connected == [PUBLIC]
    assert fake_net.non_public() == []


def test_a_redirect_to_a_public_host_is_followed(fake_net: FakeNet) -> None:
    fake_net.dns |= {"img.example": [PUBLIC], "cdn.example": [PUBLIC_2]}
    fake_net.served |= {PUBLIC: redirect("https://cdn.example/a.png"), PUBLIC_2: ok_png()}
    assert fetch_image_https("https://img.example/a.png") == PNG
    assert fake_net.asked == [PUBLIC, PUBLIC_2]
    assert fake_net.tls_names == ["img.example", "cdn.example"]


def test_a_refused_connection_to_a_public_address_is_a_download_failure(
    fake_net: FakeNet,
) -> None:
    fake_net.dns["img.example"] = [PUBLIC]
    with pytest.raises(ImageRejected, match="download failed: ConnectError"):
        fetch_image_https("https://img.example/a.png")
    assert fake_net.connected == [PUBLIC]


def test_a_name_gone_when_connecting_is_a_download_failure_not_a_crash(
    fake_net: FakeNet,
) -> None:
    # the checked backend's own look-up fails: an httpcore2 ConnectError, which httpx2 maps,
    # not a bare socket.gaierror out of the download
    fake_net.dns["gone.example"] = [PUBLIC, ""]
    with pytest.raises(ImageRejected, match="download failed: ConnectError"):
        fetch_image_https("https://gone.example/a.png")
    assert fake_net.connected == []
