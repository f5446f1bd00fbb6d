"""The contract's deny list: an entry denies its domain and every subdomain, however the user
wrote it (case, spaces, ``www.``, a leading dot), and nothing else."""

from __future__ import annotations

import pytest

from oo_nb.agent.sources import is_denied

ENTRIES = ["reddit.com", " Reddit.COM ", "www.reddit.com", ".reddit.com", "WWW.Reddit.com"]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize(
    "url",
    [
        "https://reddit.com/r/x",
        "https://www.reddit.com/r/x",
        "http://old.reddit.com/r/x",
        "https://REDDIT.com/",
        "https://a.b.reddit.com/",
    ],
)
def test_each_way_of_writing_an_entry_denies_the_domain_and_its_subdomains(
    entry: str, url: str
) -> None:
    assert is_denied(url, ["quora.com", entry]) == "reddit.com"


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize(
    "url",
    [
        "https://notreddit.com/r/x",
        "https://reddit.com.evil.example/r/x",
        "https://reddit.co/",
        "https://example.com/reddit.com",
    ],
)
def test_lookalike_hosts_are_not_denied(entry: str, url: str) -> None:
    assert is_denied(url, [entry]) is None


def test_blank_entries_deny_nothing() -> None:
    assert is_denied("https://example.com/", ["", "  ", ".", "www."]) is None
    assert is_denied("https://example.com/", []) is None
