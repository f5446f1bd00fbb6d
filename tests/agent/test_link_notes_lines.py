"""The link-check lines of the update prompt, word for word: a moved source gets its new URL
proposed only when the contract allows it (https when required, not on the deny list, at most
500 characters), a dead one is named with its status and date, at most 30 lines; and rows are
read only from a results file that this user owns in a folder this user owns."""

from __future__ import annotations

import os
import pathlib
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.link_notes import link_notes
from oo_nb.format.document import Document
from oo_nb.store import clock
from oo_nb.store.link_store import LinkRow, links_path, write_links
from tests.support.link_server import library_with_sources

HEADER = ["", "Link check of the cached sources (oo links):"]
REPLACE = "find a replacement or drop it where nothing else supports the claim."


def _moved(url: str, to: str) -> LinkRow:
    return LinkRow(url, 200, to, False, "moved", True, None, clock.now().isoformat())


def _dead(url: str, status: int | None) -> LinkRow:
    return LinkRow(url, status, url, True, "dead", False, None, clock.now().isoformat())


def _library(tmp_path: Path, urls: list[str], policy: dict[str, Any] | None = None) -> Path:
    folder = library_with_sources(tmp_path, urls)
    path = next(folder.glob("*.o-o.html"))
    if policy is not None:
        doc = Document.read(path)
        contract = doc.block_json("oo-contract")
        contract["research"]["source_policy"] = policy
        path.write_bytes(doc.with_block("oo-contract", contract).to_bytes())
    return path


def _notes(path: Path) -> list[str]:
    return link_notes(Document.read(path))


def test_each_kind_of_line_in_its_words(tmp_path: Path) -> None:
    urls = [f"https://old.example/{i}" for i in range(1, 8)]
    path = _library(
        tmp_path,
        urls,
        {"require_https": True, "deny_domains": ["denied.example"]},
    )
    long_ok = "https://new.example/" + "a" * (500 - len("https://new.example/"))
    write_links(
        path.parent,
        [
            _moved(urls[0], "https://new.example/1"),
            _moved(urls[1], "http://plain.example/2"),
            _moved(urls[2], "https://www.denied.example/3"),
            _dead(urls[3], 404),
            _dead(urls[4], None),
            _moved(urls[5], long_ok),
            _moved(urls[6], long_ok + "b"),  # over 500 characters: not proposed
        ],
    )
    today = clock.now().isoformat()[:10]
    assert _notes(path) == [
        *HEADER,
        f"- s1 ({urls[0]}) now redirects permanently to https://new.example/1: cite the new URL "
        "(a new source) where you keep the claim, and drop the old id.",
        f"- s2 ({urls[1]}) now redirects permanently to a URL not https, which the contract "
        f"requires: {REPLACE}",
        f"- s3 ({urls[2]}) now redirects permanently to a URL on the contract's deny list "
        f"(denied.example): {REPLACE}",
        f"- s4 ({urls[3]}) is dead (HTTP 404, checked {today}): {REPLACE}",
        f"- s5 ({urls[4]}) is dead (unreachable, checked {today}): {REPLACE}",
        f"- s6 ({urls[5]}) now redirects permanently to {long_ok}: cite the new URL "
        "(a new source) where you keep the claim, and drop the old id.",
    ]


def test_an_http_url_is_proposed_when_the_contract_allows_it(tmp_path: Path) -> None:
    path = _library(tmp_path, ["https://old.example/1"], {"require_https": False})
    write_links(path.parent, [_moved("https://old.example/1", "HTTP://plain.example/2")])
    assert "now redirects permanently to HTTP://plain.example/2:" in "\n".join(_notes(path))
    (tmp_path / "b").mkdir()
    path = _library(tmp_path / "b", ["https://old.example/1"], {"require_https": True})
    write_links(path.parent, [_moved("https://old.example/1", "HTTPS://New.example/2")])
    assert "now redirects permanently to HTTPS://New.example/2:" in "\n".join(_notes(path))


def test_at_most_thirty_lines(tmp_path: Path) -> None:
    urls = [f"https://old.example/{i}" for i in range(40)]
    path = _library(tmp_path, urls)
    write_links(path.parent, [_dead(u, 410) for u in urls])
    notes = _notes(path)
    assert len(notes) == len(HEADER) + 30 and notes[-1].startswith("- s30 ")


def _owned(tmp_path: Path) -> Path:
    path = _library(tmp_path, ["https://old.example/1"])
    write_links(path.parent, [_dead("https://old.example/1", 404)])
    assert len(_notes(path)) == 3
    return path


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user")
@pytest.mark.parametrize("whose", ["file", "folder"])
def test_results_someone_else_owns_are_not_read(whose: str, tmp_path: Path) -> None:
    path = _owned(tmp_path)
    target = links_path(path.parent) if whose == "file" else links_path(path.parent).parent
    os.chown(target, 65534, -1)
    assert _notes(path) == []


def test_results_whose_owner_cannot_be_read_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _owned(tmp_path)
    folder = links_path(path.parent).parent
    real = pathlib.Path.stat

    def stat(self: Path, **kw: Any) -> Any:
        if self == folder:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, **kw)

    monkeypatch.setattr(pathlib.Path, "stat", stat)
    assert _notes(path) == []


def test_results_of_another_user_id_are_not_read_and_no_uid_means_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _owned(tmp_path)
    uid = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: uid + 1)
    assert _notes(path) == []
    monkeypatch.delattr(os, "geteuid")  # not POSIX: no owner to compare
    assert len(_notes(path)) == 3
