"""Downloading an image the agent proposed: https only (redirects too), public hosts only, a
byte limit enforced while streaming, one deadline for the whole download.

Public hosts only: the host is looked up first (a clear refusal before any request), and then
every connection, each redirect hop's too, is made by ``netguard``'s checked transport, which
resolves the name again, refuses it when any answer is not public and connects to the address
it checked. The first look-up alone left a window: a name that answered public for it and
loopback or a cloud metadata address for the client's own look-up (DNS rebinding)."""

from __future__ import annotations

import socket
import time
from typing import TYPE_CHECKING, Any

from oo_nb.agent.images import MAX_DOWNLOAD_BYTES, ImageRejected
from oo_nb.format.sanitize import safe_http_url
from oo_nb.netguard import (
    NotPublic,
    address_problem,
    answers_problem,
    checked_transport,
    is_address,
)

if TYPE_CHECKING:
    import httpx2

__all__ = ["FETCH_TIMEOUT_S", "fetch_image_https"]

FETCH_TIMEOUT_S = 15.0
_REFUSED = "not fetched from a non-public address"


def _public_host(host: str) -> None:
    if is_address(host):
        problem = address_problem(host)
        if problem is not None:
            raise ImageRejected(f"{_REFUSED}: {host} is a {problem}")
        return
    try:
        infos = socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise ImageRejected(f"cannot resolve {host}") from None
    problem = answers_problem(infos)
    if problem is not None:
        raise ImageRejected(f"{_REFUSED}: {host} resolves to a {problem}")


def fetch_image_https(
    url: str,
    *,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
    timeout: float = FETCH_TIMEOUT_S,
    transport: httpx2.BaseTransport | None = None,
    check_host: bool = True,
    max_redirects: int = 3,
) -> bytes:
    """Download an image: https only (redirects too), public hosts only (``check_host``), at
    most ``max_bytes`` (streamed, so a lying Content-Length does not matter) and ``timeout``
    seconds in total. Raises ``ImageRejected``. A ``transport`` given (tests) replaces the
    checked one: only the look-up before each request then guards the host."""
    import httpx2

    deadline = time.monotonic() + timeout
    headers = {
        "Accept": "image/png,image/jpeg,image/gif,image/webp",
        "User-Agent": "oo_nb (image fetch)",
    }
    if transport is None and check_host:
        transport = checked_transport(httpx2.Limits(max_connections=4, max_keepalive_connections=1))
    with httpx2.Client(
        transport=transport,
        timeout=httpx2.Timeout(timeout),
        follow_redirects=False,
        trust_env=not check_host,  # a proxy from the environment would resolve the name itself
    ) as client:
        for _ in range(max_redirects + 1):
            safe = safe_http_url(url)
            if safe is None or not safe.lower().startswith("https:"):
                raise ImageRejected("only https image URLs are fetched")
            try:
                host = httpx2.URL(safe).host
            except httpx2.InvalidURL as exc:  # not an HTTPError: it escaped as a crash
                raise ImageRejected(_unreadable(exc)) from None
            if check_host:
                _public_host(host)
            try:
                with client.stream("GET", safe, headers=headers) as resp:
                    if resp.is_redirect:
                        url = str(resp.url.join(resp.headers.get("location", "")))
                        continue
                    if resp.status_code != 200:
                        raise ImageRejected(f"HTTP {resp.status_code}")
                    return _read_limited(resp, max_bytes, deadline)
            except NotPublic as exc:  # raised in the connect, passed through by httpx2
                raise ImageRejected(f"{_REFUSED}: {exc}") from None
            except httpx2.HTTPError as exc:
                raise ImageRejected(f"download failed: {type(exc).__name__}") from None
            except httpx2.InvalidURL as exc:  # a redirect's Location the client cannot read
                raise ImageRejected(_unreadable(exc)) from None
        raise ImageRejected("too many redirects")


def _unreadable(exc: Exception) -> str:
    """Why a URL was refused before any request: the client's own reason (``Invalid IPv4
    address: '0177.0.0.1'``, ``Invalid IDNA hostname: ...``), kept short."""
    return f"not a URL that can be fetched ({str(exc)[:200]})"


def _read_limited(resp: Any, max_bytes: int, deadline: float) -> bytes:
    ctype = resp.headers.get("content-type", "").lower()
    if "svg" in ctype or "html" in ctype:
        raise ImageRejected(f"content type {ctype.split(';')[0]} is not an accepted image")
    declared = resp.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise ImageRejected(f"{int(declared)} bytes is over the {max_bytes} byte limit")
    buf = bytearray()
    for piece in resp.iter_bytes():
        buf += piece
        if len(buf) > max_bytes:
            raise ImageRejected(f"over the {max_bytes} byte limit")
        if time.monotonic() > deadline:
            raise ImageRejected("download took too long")
    return bytes(buf)
