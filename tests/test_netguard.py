"""netguard: which addresses count as public, and the checked backends' refusals."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from oo_nb import netguard
from oo_nb.netguard import (
    NotPublic,
    address_problem,
    checked_async_backend,
    checked_sync_backend,
    checked_transport,
)


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("127.0.0.1", "loopback address 127.0.0.1"),
        ("::1", "loopback address ::1"),
        ("169.254.169.254", "link-local address 169.254.169.254"),  # cloud metadata
        ("fe80::1%eth0", "link-local address fe80::1"),
        ("10.0.0.1", "private address 10.0.0.1"),
        ("192.168.1.1", "private address 192.168.1.1"),
        ("fd00::1", "private address fd00::1"),
        ("224.0.0.1", "multicast address 224.0.0.1"),
        ("0.0.0.0", "private address 0.0.0.0"),  # ipaddress counts 0.0.0.0/8 as private
        ("100.64.0.1", "non-public address 100.64.0.1"),  # carrier-grade NAT
        ("100.100.100.200", "non-public address 100.100.100.200"),  # Alibaba's metadata
        ("::ffff:127.0.0.1", "loopback address 127.0.0.1 (inside ::ffff:127.0.0.1)"),
        ("2002:a9fe:a9fe::1", "link-local address 169.254.169.254 (inside 2002:a9fe:a9fe::1)"),
        (
            "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, its client 127.0.0.1
            "loopback address 127.0.0.1 (inside 2001:0:4136:e378:8000:63bf:80ff:fffe)",
        ),
        ("93.184.216.34", None),
        ("2606:4700:4700::1111", None),
        ("::ffff:8.8.8.8", None),
    ],
)
def test_address_problem(address: str, problem: str | None) -> None:
    assert address_problem(address) == problem


def test_a_name_is_not_an_address() -> None:
    with pytest.raises(ValueError):
        address_problem("localhost")


def test_no_unix_sockets() -> None:
    with pytest.raises(NotPublic):
        checked_sync_backend().connect_unix_socket("/run/docker.sock")
    with pytest.raises(NotPublic):
        asyncio.run(checked_async_backend().connect_unix_socket("/run/docker.sock"))


def test_a_loopback_name_is_refused_before_any_connection() -> None:
    # localhost resolves without the network; the refusal comes from the connect itself
    import httpx2

    with (
        httpx2.Client(transport=checked_transport(), trust_env=False) as client,
        pytest.raises(NotPublic, match="localhost resolves to a loopback address"),
    ):
        client.get("https://localhost:9/")


def test_the_async_backend_connects_to_the_address_it_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The link checker's side: the name is resolved once, every answer judged, and the
    connection made to a checked address with the caller's port and options; a connect error
    on one address tries the next."""
    import socket

    import httpcore2

    answers = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 443)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.35", 443)),
    ]
    asked: list[str] = []
    tried: list[tuple[str, int, float | None]] = []

    async def getaddrinfo(self: object, host: str, port: int, **kw: object) -> list[object]:
        asked.append(host)
        return answers

    async def connect_tcp(
        self: object, host: str, port: int, timeout: float | None = None, *a: object
    ) -> str:
        tried.append((host, port, timeout))
        if host == "93.184.216.34":
            raise httpcore2.ConnectError("refused")
        return "stream"

    monkeypatch.setattr(asyncio.BaseEventLoop, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(httpcore2.AnyIOBackend, "connect_tcp", connect_tcp)
    stream = asyncio.run(checked_async_backend().connect_tcp("example.org", 443, 5.0))
    assert stream == "stream" and asked == ["example.org"]
    assert tried == [("93.184.216.34", 443, 5.0), ("93.184.216.35", 443, 5.0)]
    answers.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.1", 443)))
    tried.clear()
    with pytest.raises(NotPublic, match=r"example\.org resolves to a private address 10\.0\.0\.1"):
        asyncio.run(checked_async_backend().connect_tcp("example.org", 443, 5.0))
    assert tried == []


def test_literals_are_told_from_names_and_the_first_bad_answer_is_named() -> None:
    for literal in ("127.0.0.1", "::1", "[::1]", "fe80::1%eth0", "[fe80::1%25eth0]", "8.8.8.8"):
        assert netguard.is_address(literal), literal
    for name in ("localhost", "example.com", "127.0.0.1.nip.io", "", "[example.com]", "1.2.3"):
        assert not netguard.is_address(name), name

    def answer(address: str) -> tuple[Any, ...]:
        return (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 443))

    assert netguard.answers_problem([answer("93.184.216.34"), answer("8.8.8.8")]) is None
    assert netguard.answers_problem([answer("8.8.8.8"), answer("10.0.0.1"), answer("::1")]) == (
        "private address 10.0.0.1"
    )
