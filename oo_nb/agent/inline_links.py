"""Links an update writes into the article's text (``<a href>``), checked as its sources are: a
link the document did not hold before must point at a page this run read (fetched: a URL in a
search's hit list or inside another page's text is no page read, ``RunInfo.read_urls``), or the
proposal waits for review. A made-up URL in a new paragraph (a login page no search
returned) was written by ``--auto`` because only the source list was checked."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.format.html_tokens import tokenize
from oo_nb.format.names import SOURCE_CACHE_BLOCK
from oo_nb.format.vocab import url_key

__all__ = ["article_links", "unseen_links"]

_WEB = ("http://", "https://", "//")
_CACHED_URL = re.compile(r"""(?:https?:)?//[^\s"'<>\\]+""")


def article_links(html: str) -> list[str]:
    """The web addresses ``<a href>`` points at in ``html`` (fragments and relative links are
    no claim about the web, so they are left out)."""
    out: list[str] = []
    for token in tokenize(html):
        if token.kind != "start" or token.name != "a":
            continue
        href = next((a.value.strip() for a in token.attrs if a.name == "href"), "")
        if href.lower().startswith(_WEB):
            out.append(href)
    return list(dict.fromkeys(out))


def _known(doc: Document) -> set[str]:
    """The URLs ``doc`` already holds: links in its article and its cached sources."""
    urls = article_links(doc.article_html)
    if doc.has_block(SOURCE_CACHE_BLOCK):
        with contextlib.suppress(OOError):  # a damaged cache vouches for nothing
            urls += _CACHED_URL.findall(json.dumps(doc.block_json(SOURCE_CACHE_BLOCK)))
    return {url_key(u) for u in urls}


def unseen_links(original: Document, candidate: Document, read: Iterable[str]) -> list[str]:
    """Links of ``candidate``'s article that ``original`` did not hold and whose page the run
    did not read (``read``)."""
    vouched = _known(original) | {url_key(u) for u in read}
    return [u for u in article_links(candidate.article_html) if url_key(u) not in vouched]
