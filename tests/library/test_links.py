"""``oo links`` against a loopback server: every verdict, the per-host limit, no cookies, a
real User-Agent, private addresses skipped unless allowed, results stored and reused, and the
sources frame / audit / update prompt reading them."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.format.document import Document
from oo_nb.library.library import Library
from oo_nb.library.links import USER_AGENT, LinkOptions, check_links, check_urls
from oo_nb.store.link_store import links_path, read_links
from tests.support.link_server import LinkServer, library_with_sources

FAST = LinkOptions(timeout_s=0.5, allow_private=True)


@pytest.fixture(scope="module")
def server() -> Iterator[LinkServer]:
    with LinkServer(slow_s=2.0) as s:
        yield s


def test_every_answer_gets_its_verdict(server: LinkServer) -> None:
    paths = ["/ok", "/moved", "/temp", "/missing", "/gone", "/forbidden", "/head-refused",
             "/slow", "/reset"]  # fmt: skip
    rows = {r.url.rsplit("/", 1)[1]: r for r in check_urls([server.url(p) for p in paths], FAST)}
    assert (rows["ok"].link_status, rows["ok"].status, rows["ok"].dead) == ("ok", 200, False)
    moved = rows["moved"]
    assert (moved.link_status, moved.status, moved.permanent) == ("moved", 200, True)
    assert moved.final_url == server.url("/ok")
    assert (rows["temp"].link_status, rows["temp"].permanent) == ("ok", False)
    assert (rows["missing"].link_status, rows["missing"].status, rows["missing"].dead) == (
        "dead", 404, True,
    )  # fmt: skip
    assert (rows["gone"].link_status, rows["gone"].status) == ("dead", 410)
    assert (rows["forbidden"].link_status, rows["forbidden"].dead) == ("unknown", False)
    assert (rows["head-refused"].link_status, rows["head-refused"].status) == ("ok", 200)
    assert rows["slow"].link_status == "unknown" and "timed out" in str(rows["slow"].error)
    reset = rows["reset"]
    assert reset.dead and reset.link_status == "dead" and "2 attempts" in str(reset.error)
    assert server.user_agents == {USER_AGENT}


def test_no_cookie_is_kept_or_sent(server: LinkServer) -> None:
    before = len(server.cookies)
    one_by_one = LinkOptions(timeout_s=1, allow_private=True, per_host=1, concurrency=1)
    urls = [server.url("/cookie"), *(server.url(f"/ok?n={i}") for i in range(3))]
    rows = check_urls(urls, one_by_one)
    assert [r.link_status for r in rows] == ["ok"] * 4
    assert len(server.cookies) == before


def test_private_loopback_and_link_local_are_skipped_unless_allowed(server: LinkServer) -> None:
    urls = [
        server.url("/ok"),
        "http://localhost:9/x",  # a name resolving to loopback
        "http://169.254.169.254/latest/meta-data/",
        "http://10.1.2.3/",
        "http://[::1]:9/",
        "http://[::ffff:127.0.0.1]:9/",
    ]
    count = len(server.requests)
    rows = check_urls(urls, LinkOptions(timeout_s=0.5))
    assert [r.link_status for r in rows] == ["skipped"] * len(urls)
    assert "loopback" in str(rows[1].error) and "link-local" in str(rows[2].error)
    assert len(server.requests) == count  # nothing was sent
    # allowed: a redirect to a private address is still followed only when allowed
    hop = check_urls([server.url("/to-private")], LinkOptions(timeout_s=0.5, allow_private=False))
    assert hop[0].link_status == "skipped"


@pytest.mark.parametrize("allow_private", [False, True])
def test_a_name_that_does_not_exist_is_dead_a_resolver_that_cannot_answer_is_not(
    allow_private: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No DNS query leaves the machine: the resolver's two answers are stood in for."""
    opts = LinkOptions(timeout_s=1, allow_private=allow_private)

    def answer(code: int, text: str) -> object:
        def resolve(*args: object, **kwargs: object) -> None:
            raise socket.gaierror(code, text)

        return resolve

    monkeypatch.setattr(
        socket, "getaddrinfo", answer(socket.EAI_NONAME, "Name or service not known")
    )
    row = check_urls(["http://no-such-host.invalid/page"], opts)[0]
    assert row.dead and row.error and row.error.startswith("DNS")

    offline = answer(socket.EAI_AGAIN, "Temporary failure in name resolution")
    monkeypatch.setattr(socket, "getaddrinfo", offline)
    row = check_urls(["http://example.com/page"], opts)[0]
    assert (row.link_status, row.dead) == ("unknown", False)


def test_per_host_limit_holds() -> None:
    opts = LinkOptions(timeout_s=5, allow_private=True, per_host=3, concurrency=50)
    with LinkServer() as a, LinkServer(address="127.0.0.2") as b:
        urls = [s.url(f"/ok?delay=0.05&n={i}") for i in range(20) for s in (a, b)]
        rows = check_urls(urls, opts)
    assert {r.link_status for r in rows} == {"ok"}
    assert a.max_in_flight[f"127.0.0.1:{a.port}"] == 3
    assert b.max_in_flight[f"127.0.0.2:{b.port}"] == 3


def test_oo_links_stores_reuses_and_feeds_frames_audit_and_prompt(
    server: LinkServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = [server.url("/ok"), server.url("/moved"), server.url("/gone")]
    folder = library_with_sources(tmp_path, urls)
    argv = ["links", str(folder), "--allow-private", "--format", "json", "--timeout", "1"]
    assert main([*argv, "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["link_status"] for r in out] == ["ok", "moved", "dead"]
    assert set(out[0]) >= {"doc", "source_id", "url", "status", "final_url", "dead", "error",
                           "checked_at"}  # fmt: skip
    assert links_path(folder).is_file() and len(read_links(folder)) == 3
    count = len(server.requests)
    assert main([*argv, "--no-progress"]) == 0  # within --max-age: nothing asked again
    capsys.readouterr()
    assert len(server.requests) == count
    check_links(str(folder), urls, LinkOptions(max_age=timedelta(0), allow_private=True))
    assert len(server.requests) > count  # too old: asked again

    lib = Library(folder, workers=1)
    assert lib.sources["link_status"].tolist() == ["ok", "moved", "dead"]
    found = lib.audit()
    codes = dict(zip(found["where"], found["code"], strict=False))
    assert codes["s2"] == "moved-link" and codes["s3"] == "dead-link"

    from oo_nb.agent.context import build_context

    ctx = build_context(Document.read(folder / "yc-w26-batch.o-o.html"), today=date(2026, 3, 1))
    assert f"s2 ({urls[1]}) now redirects permanently to {server.url('/ok')}" in ctx.user
    assert f"s3 ({urls[2]}) is dead" in ctx.user


def test_a_damaged_store_is_a_cache_miss(tmp_path: Path) -> None:
    links_path(tmp_path).parent.mkdir(parents=True)
    links_path(tmp_path).write_bytes(b"not sqlite at all")
    assert read_links(tmp_path) == {}


def test_the_reset_really_resets() -> None:
    """Guard: the server's /reset is a TCP reset, not a clean close."""
    with LinkServer() as s:
        conn = socket.create_connection(("127.0.0.1", s.port))
        conn.sendall(b"GET /reset HTTP/1.1\r\nHost: x\r\n\r\n")
        with pytest.raises(ConnectionResetError):
            conn.recv(100) or conn.recv(100)
        conn.close()


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_a_limit_that_is_not_a_positive_finite_number_is_refused(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["links", str(tmp_path), "--max-age", value])
    assert exit_.value.code == 2 and "must be above 0" in capsys.readouterr().err
