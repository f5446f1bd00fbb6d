"""Link health (issue 16): every source URL of a library checked over HTTP.

- HEAD first; GET (headers only, the body is never read) when HEAD is refused (405, 501) or
  answers with any other error status, since many servers answer HEAD wrongly.
- Redirects are followed by hand, at most ``MAX_HOPS``, so that every hop's host is checked:
  private, loopback, link-local and other non-public addresses are skipped unless
  ``allow_private``; the host is resolved and EVERY address must be public, not just the name.
- A per-host limit (``per_host``, default 2) and a global one bound the requests in flight; each
  request has a timeout (on the whole request, not each read); a real User-Agent goes out and
  no cookie is kept or sent.
- Verdicts: ``dead`` for 404/410, a name that does not exist (a resolver that cannot answer,
  as when offline, is ``unknown``, and so is every row when no name of two hosts or more
  resolved: ``RESOLVER_DOWN``), or a connection that fails ``ATTEMPTS`` times;
  ``unknown`` for 401/403/429, 5xx, timeouts and odd answers (never dead on those); ``moved``
  when every redirect is permanent (301/308) and the end answers 2xx; ``ok``.

Results are stored per URL (``store.link_store``) and reused for ``max_age``.

The connection itself is made to an address checked at that moment (``oo_nb.netguard``): the
name is resolved once more when connecting and every answer judged again, so a name that
answers public for the check and loopback for the connection (DNS rebinding) is refused, not
connected to. Only status lines and headers are read.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import importlib.metadata
import socket
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urljoin, urlsplit

from oo_nb.netguard import (
    NotPublic,
    address_problem,
    answers_problem,
    checked_async_transport,
    is_address,
)
from oo_nb.store import clock
from oo_nb.store.link_store import MAX_AGE, LinkRow, read_links, write_links

__all__ = [
    "ATTEMPTS",
    "MAX_HOPS",
    "RESOLVER_DOWN",
    "USER_AGENT",
    "LinkOptions",
    "check_links",
    "check_urls",
    "public_address_problem",
]


def _version() -> str:
    try:
        return importlib.metadata.version("oo_nb")
    except importlib.metadata.PackageNotFoundError:
        return "dev"


# says what is asking and why (no made-up contact URL: the project has no public home yet)
USER_AGENT = f"Mozilla/5.0 (compatible; oo_nb-linkcheck/{_version()}; source link check)"
MAX_HOPS = 10
ATTEMPTS = 2  # connection failures in a row before a link counts as dead
_DEAD = {404, 410}
_UNKNOWN = {401, 403, 429}
_PERMANENT = {301, 308}
_REDIRECT = {301, 302, 303, 307, 308}


@dataclass(frozen=True)
class LinkOptions:
    max_age: timedelta = MAX_AGE
    timeout_s: float = 10.0
    per_host: int = 2
    concurrency: int = 32
    allow_private: bool = False
    refresh: bool = False  # ignore stored results


class _NoCookies(http.cookiejar.DefaultCookiePolicy):
    def set_ok(self, cookie: http.cookiejar.Cookie, request: object) -> bool:
        return False

    def return_ok(self, cookie: http.cookiejar.Cookie, request: object) -> bool:
        return False


async def public_address_problem(host: str, port: int) -> str | None:
    """Why ``host`` may not be checked (one of its addresses is not public), or None. Raises
    ``socket.gaierror`` when the name does not resolve."""
    if is_address(host):
        return address_problem(host.strip("[]"))
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    problem = answers_problem(infos)
    return f"{host} resolves to a {problem}" if problem is not None else None


# The name does not exist: dead. A resolver that cannot answer now (offline, EAI_AGAIN) says
# nothing about the page: unknown, or an offline run would call every link dead.
_NO_SUCH_NAME = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


def _dns_verdict(exc: BaseException) -> str:
    if isinstance(exc, socket.gaierror) and exc.errno in _NO_SUCH_NAME:
        return "dead"
    return "unknown" if isinstance(exc, socket.gaierror) else "dead"  # UnicodeError: bad name


class _Checker:
    def __init__(self, opts: LinkOptions, progress: Callable[[int], None] | None) -> None:
        import httpx2

        self.httpx = httpx2
        self.opts = opts
        self.progress = progress
        self.hosts: defaultdict[str, asyncio.Semaphore] = defaultdict(
            lambda: asyncio.Semaphore(opts.per_host)
        )
        self.all = asyncio.Semaphore(opts.concurrency)
        limits = httpx2.Limits(max_connections=opts.concurrency, max_keepalive_connections=0)
        transport = (
            httpx2.AsyncHTTPTransport(limits=limits, trust_env=False)
            if opts.allow_private  # else connect only to an address checked when connecting
            else checked_async_transport(limits)
        )
        self.client = httpx2.AsyncClient(
            headers={"User-Agent": USER_AGENT, "Accept": "*/*"},
            cookies=http.cookiejar.CookieJar(policy=_NoCookies()),
            timeout=httpx2.Timeout(opts.timeout_s),
            follow_redirects=False,
            trust_env=False,
            transport=transport,
        )

    def _row(
        self,
        url: str,
        status: int | None,
        final: str | None,
        verdict: str,
        permanent: bool = False,
        error: str | None = None,
    ) -> LinkRow:
        return LinkRow(
            url, status, final, verdict == "dead", verdict, permanent, error,
            clock.now().isoformat(),
        )  # fmt: skip

    async def _once(self, method: str, url: str) -> tuple[int, str | None]:
        """One request: its status and, for a redirect, where it points."""
        host = (urlsplit(url).hostname or "").lower()
        # the host's slot first: a global slot held while queueing for a busy host idles it
        # (one host with many URLs held up every other host). The timeout bounds the whole
        # request, not each read: a server dripping its headers never lets one read wait long.
        async with self.hosts[host], self.all, asyncio.timeout(self.opts.timeout_s):
            if method == "HEAD":
                r = await self.client.head(url)
                return r.status_code, r.headers.get("location")
            async with self.client.stream("GET", url) as response:
                return response.status_code, response.headers.get("location")

    async def check(self, url: str) -> LinkRow:
        try:
            return await self._check(url)
        finally:
            if self.progress is not None:
                self.progress(1)

    async def _check(self, url: str) -> LinkRow:
        current, first_permanent, first, only_permanent = url, False, True, True
        for _hop in range(MAX_HOPS + 1):
            try:  # a port out of range or a broken [IPv6] literal: this URL only, not the run
                parts = urlsplit(current)
                port = parts.port or (443 if parts.scheme == "https" else 80)
            except ValueError as exc:
                # the source's own URL cannot be checked; a redirect to one is the server's doing
                verdict = "skipped" if current == url else "unknown"
                return self._row(url, None, None, verdict, error=f"not a valid URL ({exc})")
            if parts.scheme not in ("http", "https") or not parts.hostname:
                return self._row(url, None, current, "skipped", error="not an http(s) URL")
            if not self.opts.allow_private:
                try:
                    problem = await public_address_problem(parts.hostname, port)
                except (socket.gaierror, UnicodeError) as exc:
                    return self._row(url, None, current, _dns_verdict(exc), error=f"DNS: {exc}")
                if problem is not None:
                    return self._row(url, None, current, "skipped", error=problem)
            try:
                outcome = await self._ask(current)
            except self.httpx.InvalidURL as exc:  # not an HTTPError: a control character, too long
                verdict = "skipped" if current == url else "unknown"
                return self._row(url, None, None, verdict, error=f"not a valid URL ({exc})")
            if isinstance(outcome, LinkRow):
                return LinkRow(url, *[getattr(outcome, f) for f in _ROW_TAIL])
            status, location = outcome
            if status in _REDIRECT and location:
                first_permanent = first_permanent or (first and status in _PERMANENT)
                # a move is permanent hops only: a 302 after a 301 (a login or consent wall)
                # leads somewhere that is not the page's new address
                only_permanent = only_permanent and status in _PERMANENT
                first = False
                try:
                    current = urljoin(current, location)
                except ValueError as exc:
                    return self._row(url, None, None, "unknown", error=f"not a valid URL ({exc})")
                continue
            if 200 <= status < 300:
                verdict = "moved" if first_permanent and only_permanent else "ok"
            elif status in _DEAD:
                verdict = "dead"
            else:
                verdict = "unknown"
            return self._row(url, status, current, verdict, first_permanent)
        return self._row(url, None, current, "unknown", error=f"more than {MAX_HOPS} redirects")

    async def _ask(self, url: str) -> tuple[int, str | None] | LinkRow:
        """HEAD, then GET when HEAD gets an error status; connection failures retried."""
        httpx = self.httpx
        failure = ""
        for _attempt in range(ATTEMPTS):
            try:
                status, location = await self._once("HEAD", url)
                if status >= 400:
                    status, location = await self._once("GET", url)
                return status, location
            except (httpx.TimeoutException, TimeoutError):
                return self._row(url, None, url, "unknown", error="timed out")
            except NotPublic as exc:
                return self._row(url, None, url, "skipped", error=str(exc))
            except httpx.ConnectError as exc:
                cause = exc.__cause__ or exc.__context__
                while cause is not None and not isinstance(cause, socket.gaierror):
                    cause = cause.__cause__ or cause.__context__
                if isinstance(cause, socket.gaierror):
                    return self._row(url, None, url, _dns_verdict(cause), error=f"DNS: {exc}")
                failure = f"connection failed: {exc or type(exc).__name__}"
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
                failure = f"connection broken: {exc or type(exc).__name__}"
            except httpx.HTTPError as exc:  # invalid URL, protocol oddities: not the page's fault
                return self._row(url, None, url, "unknown", error=f"{type(exc).__name__}: {exc}")
        return self._row(url, None, url, "dead", error=f"{failure} ({ATTEMPTS} attempts)")

    async def run(self, urls: Sequence[str]) -> list[LinkRow]:
        try:
            return _resolver_down(list(await asyncio.gather(*(self.check(u) for u in urls))))
        finally:
            await self.client.aclose()


RESOLVER_DOWN = (
    "DNS: no name resolved, so the resolver is down (not the pages): nothing marked dead"
)
_MIN_HOSTS_DOWN = 2  # one name that does not resolve may simply not exist


def _resolver_down(rows: list[LinkRow]) -> list[LinkRow]:
    """When every name checked failed to resolve (two hosts or more), the resolver is down, not
    every site: those rows are ``unknown`` (and not stored), never dead. An IP literal that
    answers (an intranet page under ``allow_private``) says nothing about DNS: only rows whose
    host is a name count."""
    tried = [
        r
        for r in rows
        if r.link_status != "skipped" and not is_address(urlsplit(r.url).hostname or "")
    ]
    hosts = {(urlsplit(r.url).hostname or "") for r in tried}
    if len(hosts) < _MIN_HOSTS_DOWN or not all((r.error or "").startswith("DNS:") for r in tried):
        return rows
    return [
        LinkRow(r.url, None, r.final_url, False, "unknown", False, RESOLVER_DOWN, r.checked_at)
        if r in tried
        else r
        for r in rows
    ]


_ROW_TAIL = ("status", "final_url", "dead", "link_status", "permanent", "error", "checked_at")


def check_urls(
    urls: Iterable[str],
    opts: LinkOptions | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[LinkRow]:
    """Check ``urls`` (each once) now, without the store. Runs its own event loop (in a thread
    when one is already running, as in a notebook)."""
    opts = opts or LinkOptions()
    unique = list(dict.fromkeys(urls))

    async def main() -> list[LinkRow]:
        return await _Checker(opts, progress).run(unique)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


def check_links(
    folder: str,
    urls: Iterable[str],
    opts: LinkOptions | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, LinkRow]:
    """The rows for ``urls``: stored ones younger than ``max_age`` reused, the rest checked now
    and stored. ``progress(n)`` is told of every URL done (reused ones at once)."""
    opts = opts or LinkOptions()
    wanted = list(dict.fromkeys(urls))
    stored = {} if opts.refresh else read_links(folder, max_age=opts.max_age, now=clock.now())
    have = {u: stored[u] for u in wanted if u in stored}
    if progress is not None and have:
        progress(len(have))
    fresh = check_urls([u for u in wanted if u not in have], opts, progress)
    kept = [r for r in fresh if r.error != RESOLVER_DOWN]  # checked again once it answers
    if kept:
        write_links(folder, kept)
    return have | {r.url: r for r in fresh}
