"""The blocking side of ``netguard`` (the image fetch's transport): each checked address is
connected with the caller's connect timeout. Dropped, an unreachable address would hang the
fetch far past its deadline."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from oo_nb.agent.image_fetch import fetch_image_https
from oo_nb.agent.images import ImageRejected
from oo_nb.netguard import NotPublic, checked_sync_backend

ANSWERS = [
    (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 443)),
    (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.35", 443)),
]


@pytest.fixture
def tried(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, float | None]]:
    import httpcore2

    seen: list[tuple[str, int, float | None]] = []

    def connect_tcp(
        self: object, host: str, port: int, timeout: float | None = None, *a: object
    ) -> Any:
        seen.append((host, port, timeout))
        raise httpcore2.ConnectError("unreachable")

    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **kw: list(ANSWERS))
    monkeypatch.setattr(httpcore2.SyncBackend, "connect_tcp", connect_tcp)
    return seen


def test_each_address_gets_the_connect_timeout(tried: list[tuple[str, int, float | None]]) -> None:
    import httpcore2

    with pytest.raises(httpcore2.ConnectError, match="unreachable"):
        checked_sync_backend().connect_tcp("example.org", 443, 2.5)
    assert tried == [("93.184.216.34", 443, 2.5), ("93.184.216.35", 443, 2.5)]


def test_the_image_fetch_connects_with_its_timeout(
    tried: list[tuple[str, int, float | None]],
) -> None:
    with pytest.raises(ImageRejected, match="download failed: ConnectError"):
        fetch_image_https("https://example.org/a.png", timeout=3.0)
    assert tried and all(t[2] == 3.0 for t in tried)
    assert {t[0] for t in tried} <= {"93.184.216.34", "93.184.216.35"}


def test_a_private_answer_is_refused_before_any_connect(
    tried: list[tuple[str, int, float | None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    private = (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.1", 443))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **kw: [*ANSWERS, private])
    with pytest.raises(NotPublic, match=r"private address 10\.0\.0\.1"):
        checked_sync_backend().connect_tcp("example.org", 443, 2.5)
    assert tried == []
