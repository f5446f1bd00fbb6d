"""``url_key`` decides which URLs name the same page: a source counts as seen (verified) only when
this run saw a URL with the same key, and cached sources with the same key are merged. Writing
variants of one address must match; anything that can serve another page must not."""

from __future__ import annotations

import pytest

from oo_nb.agent.sources import url_key

SAME = [
    ("https://example.com/a", "http://example.com/a"),
    ("https://example.com/a", "https://www.example.com/a"),
    ("https://example.com/a", "https://EXAMPLE.com/a"),
    ("https://example.com/a", "https://example.com/a/"),
    ("https://example.com/a", "https://example.com/a#part-2"),
    ("https://example.com/a", "https://example.com:443/a"),
    ("http://example.com/a", "http://example.com:80/a"),
    ("https://example.com", "https://example.com/"),
    ("https://example.com", "https://example.com/#top"),
    ("https://example.com/a", "https://example.com/a?utm_source=x&utm_medium=y&fbclid=1"),
    ("https://example.com/a?id=7", "https://example.com/a?id=7&gclid=abc&ref_src=twsrc"),
    ("https://example.com/a?id=7", "https://example.com/a/?UTM_Campaign=z&id=7#c"),
]
OTHER = [
    ("https://example.com/a", "https://example.com/b"),
    ("https://example.com/a", "https://example.com/a/b"),
    ("https://example.com/a", "https://example.org/a"),
    ("https://example.com/a", "https://example.com.evil.example/a"),
    ("https://example.com/a", "https://sub.example.com/a"),
    ("https://example.com/a", "https://example.com:8443/a"),
    ("https://example.com:8443/a", "https://example.com:8444/a"),
    ("https://a.example:8080/x", "https://b.example:8080/x"),
    ("https://example.com/a", "https://example.com/a?page=2"),
    ("https://example.com/a?page=1", "https://example.com/a?page=2"),
    # a flag or an empty parameter can select another view of the page: not the same page
    ("https://example.com/a", "https://example.com/a?draft"),
    ("https://example.com/a", "https://example.com/a?q="),
    # pages named by one capital letter are pages of their own
    ("https://en.wikipedia.org/wiki", "https://en.wikipedia.org/wiki/X"),
    ("https://example.com/", "https://example.com/X"),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_variants_of_one_address_have_one_key(a: str, b: str) -> None:
    assert url_key(a) == url_key(b)


@pytest.mark.parametrize(("a", "b"), OTHER)
def test_addresses_that_can_serve_another_page_have_other_keys(a: str, b: str) -> None:
    assert url_key(a) != url_key(b)


def test_trailing_slashes_never_make_another_page() -> None:
    assert url_key("https://example.com//") == url_key("https://example.com")
    assert url_key("https://example.com/a//") == url_key("https://example.com/a")
