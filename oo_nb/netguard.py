"""Connecting only to public addresses: what the link checker and the image download share.

``address_problem`` judges one address (loopback, link-local, private, multicast, reserved,
unspecified, anything not routed on the internet, and an IPv4 address inside an IPv6 one as
itself). A check before the request is not enough: the HTTP client resolves the name again to
connect, and a name may answer public for the check and loopback for the connection (DNS
rebinding). So the checked network backends resolve the name themselves, refuse it when ANY
answer is not public (``NotPublic``), and connect to the address they checked; TLS still names
the host. ``NotPublic`` is not an httpcore2 error, so httpx2 passes it through unwrapped.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpcore2
    import httpx2

__all__ = [
    "NotPublic",
    "address_problem",
    "answers_problem",
    "checked_async_backend",
    "checked_async_transport",
    "checked_sync_backend",
    "checked_transport",
    "is_address",
]


def address_problem(address: str) -> str | None:
    """Why ``address`` (an IP literal, an IPv6 zone allowed) is not public, such as "loopback
    address 127.0.0.1", or None. Raises ``ValueError`` when it is not an IP address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        # an IPv4 address inside an IPv6 one (mapped, 6to4, Teredo's client) is judged as itself
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is not None and (problem := address_problem(str(inner))) is not None:
            # both: the address judged and the one the resolver gave, as it gave it
            return f"{problem} (inside {address.split('%', 1)[0]})"
        ip = ip.ipv4_mapped or ip
    for what, flag in (
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("private", ip.is_private),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("unspecified", ip.is_unspecified),
        # last: what the registries do not route on the internet, such as 100.64.0.0/10
        # (carrier-grade NAT, where Alibaba Cloud's metadata service answers)
        ("non-public", not ip.is_global),
    ):
        if flag:
            return f"{what} address {ip}"
    return None


def is_address(host: str) -> bool:
    """Whether ``host`` is an IP literal (``[...]`` and an IPv6 zone allowed), which
    ``address_problem`` judges as it is; any other host is a name to resolve."""
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True


def answers_problem(infos: Iterable[Any]) -> str | None:
    """Why the first resolver answer (``getaddrinfo``'s) that is not public is not, or None."""
    for info in infos:
        problem = address_problem(str(info[4][0]))
        if problem is not None:
            return problem
    return None


class NotPublic(Exception):
    """Raised inside the HTTP client's connect: the address it would use is not public."""


def _checked_addresses(host: str, infos: Iterable[Any]) -> list[str]:
    """The addresses of ``host``'s answers, in order and once each; ``NotPublic`` when any of
    them is not public (one bad answer is enough: a resolver may pick it next time)."""
    infos = list(infos)
    problem = answers_problem(infos)
    if problem is not None:
        raise NotPublic(f"{host} resolves to a {problem} when connecting")
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def checked_async_backend() -> httpcore2.AsyncNetworkBackend:
    """An async network backend that connects only to addresses it resolved and checked."""
    import httpcore2

    class CheckedAsyncBackend(httpcore2.AsyncNetworkBackend):
        def __init__(self) -> None:
            self.inner = httpcore2.AnyIOBackend()

        async def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore2.AsyncNetworkStream:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(
                    host, port, type=socket.SOCK_STREAM
                )
            except (OSError, UnicodeError) as exc:  # a ConnectError caused by it, as unchecked
                raise httpcore2.ConnectError(f"cannot resolve {host}: {exc}") from exc
            failure: Exception | None = None
            for address in _checked_addresses(host, infos):
                try:
                    return await self.inner.connect_tcp(
                        address, port, timeout, local_address, socket_options
                    )
                except httpcore2.ConnectError as exc:  # the next address, as a resolver would
                    failure = exc
            raise failure or httpcore2.ConnectError(f"{host} has no address")

        async def connect_unix_socket(
            self, path: str, timeout: float | None = None, socket_options: Any = None
        ) -> httpcore2.AsyncNetworkStream:
            raise NotPublic("no unix sockets")

        async def sleep(self, seconds: float) -> None:
            await self.inner.sleep(seconds)

    return CheckedAsyncBackend()


def checked_sync_backend() -> httpcore2.NetworkBackend:
    """The same for blocking clients (``httpx2.Client``)."""
    import httpcore2

    class CheckedSyncBackend(httpcore2.NetworkBackend):
        def __init__(self) -> None:
            self.inner = httpcore2.SyncBackend()

        def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore2.NetworkStream:
            try:
                infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (OSError, UnicodeError) as exc:
                raise httpcore2.ConnectError(f"cannot resolve {host}: {exc}") from exc
            failure: Exception | None = None
            for address in _checked_addresses(host, infos):
                try:
                    return self.inner.connect_tcp(
                        address, port, timeout, local_address, socket_options
                    )
                except httpcore2.ConnectError as exc:
                    failure = exc
            raise failure or httpcore2.ConnectError(f"{host} has no address")

        def connect_unix_socket(
            self, path: str, timeout: float | None = None, socket_options: Any = None
        ) -> httpcore2.NetworkStream:
            raise NotPublic("no unix sockets")

        def sleep(self, seconds: float) -> None:
            self.inner.sleep(seconds)

    return CheckedSyncBackend()


def _pool_options(limits: httpx2.Limits) -> dict[str, Any]:
    import httpx2

    return {
        # the environment's certificate settings are not read, as the transport's trust_env
        "ssl_context": httpx2.create_ssl_context(trust_env=False),
        "max_connections": limits.max_connections,
        "max_keepalive_connections": limits.max_keepalive_connections,
        "keepalive_expiry": limits.keepalive_expiry,
    }


def checked_transport(limits: httpx2.Limits | None = None) -> httpx2.HTTPTransport:
    """A blocking transport whose every connection, each redirect hop's too, goes through
    ``checked_sync_backend``. No proxy from the environment: a proxy would resolve the name
    itself, out of reach of the check."""
    import httpcore2
    import httpx2

    limits = limits or httpx2.Limits(max_connections=100, max_keepalive_connections=20)
    transport = httpx2.HTTPTransport(limits=limits, trust_env=False)
    transport._pool = httpcore2.ConnectionPool(
        **_pool_options(limits), network_backend=checked_sync_backend()
    )
    return transport


def checked_async_transport(limits: httpx2.Limits | None = None) -> httpx2.AsyncHTTPTransport:
    """``checked_transport`` for ``httpx2.AsyncClient``."""
    import httpcore2
    import httpx2

    limits = limits or httpx2.Limits(max_connections=100, max_keepalive_connections=20)
    transport = httpx2.AsyncHTTPTransport(limits=limits, trust_env=False)
    transport._pool = httpcore2.AsyncConnectionPool(
        **_pool_options(limits), network_backend=checked_async_backend()
    )
    return transport
