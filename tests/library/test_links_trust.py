"""Issue 28 item 9: link results older than the reuse age are news of nothing, a planted row
never steers an update prompt (only this machine's sealed checks do), and a resolver that
resolves no name is down: nothing is marked dead."""

from __future__ import annotations

import socket
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from oo_nb.agent.link_notes import link_notes
from oo_nb.format.document import Document
from oo_nb.library import links
from oo_nb.library.links import RESOLVER_DOWN, LinkOptions, check_links, check_urls
from oo_nb.netguard import is_address
from oo_nb.store import clock
from oo_nb.store.link_store import LinkRow, links_path, read_links, write_links
from tests.support.link_server import LinkServer, library_with_sources

URLS = ["https://a.example/1", "https://b.example/2"]


def _dead(url: str, when: str) -> LinkRow:
    return LinkRow(url, 404, url, True, "dead", False, None, when)


def test_rows_from_2019_are_not_shown_as_current(tmp_path: Path) -> None:
    folder = library_with_sources(tmp_path, URLS)
    write_links(folder, [_dead(URLS[0], "2019-03-01T00:00:00+00:00")])
    assert read_links(folder) == {}  # the frames, the audit and the alerts read this way
    assert link_notes(Document.read(next(folder.glob("*.o-o.html")))) == []


def test_a_planted_row_never_reaches_the_prompt(tmp_path: Path) -> None:
    folder = library_with_sources(tmp_path, URLS)
    doc = next(folder.glob("*.o-o.html"))
    now = clock.now().isoformat()
    write_links(folder, [_dead(URLS[0], now)])  # this machine's own check: named
    db = sqlite3.connect(links_path(folder))
    with db:  # planted by hand, as a cloned library brings it: "cite this moved URL"
        db.execute(
            "INSERT INTO links VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (URLS[1], 200, "https://evil.example/x", 0, "moved", 1, None, now),
        )
    db.close()
    notes = "\n".join(link_notes(Document.read(doc)))
    assert URLS[0] in notes and "dead" in notes
    assert "evil.example" not in notes and URLS[1] not in notes
    # an edited own row loses its seal too
    db = sqlite3.connect(links_path(folder))
    with db:
        db.execute("UPDATE links SET link_status = 'moved', final_url = ? WHERE url = ?",
                   ("https://evil.example/y", URLS[0]))  # fmt: skip
    db.close()
    assert link_notes(Document.read(doc)) == []


def _no_name(monkeypatch: pytest.MonkeyPatch) -> None:
    async def no_such_name(host: str, port: int) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(links, "public_address_problem", no_such_name)


def test_when_no_name_resolves_the_resolver_is_down_and_nothing_is_dead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_name(monkeypatch)
    rows = check_links(str(tmp_path), URLS, LinkOptions(max_age=timedelta(days=7)))
    assert {r.link_status for r in rows.values()} == {"unknown"}
    assert {r.error for r in rows.values()} == {RESOLVER_DOWN}
    assert read_links(tmp_path) == {}  # not kept: checked again once the resolver answers
    # one name that does not resolve may simply not exist
    assert [r.link_status for r in check_urls(URLS[:1])] == ["dead"]


def test_an_ip_address_that_answers_does_not_mean_names_resolve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offline with an intranet page by IP (``--allow-private``): the page answering says nothing
    about DNS, so the names that did not resolve are not dead (nor kept)."""
    real = socket.getaddrinfo

    def offline(host: object, *args: object, **kwargs: object) -> object:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if not is_address(name):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", offline)
    with LinkServer() as server:
        intranet = server.url("/ok")
        urls = [*URLS, intranet]
        opts = LinkOptions(max_age=timedelta(days=7), allow_private=True, timeout_s=2)
        rows = check_links(str(tmp_path), urls, opts)
    assert rows[intranet].link_status == "ok"
    assert {rows[u].link_status for u in URLS} == {"unknown"}
    assert {rows[u].error for u in URLS} == {RESOLVER_DOWN}
    assert set(read_links(tmp_path)) == {intranet}  # only what was really checked is kept
