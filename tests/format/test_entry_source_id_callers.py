"""Which source a References entry stands for when the list is edited source by source
(``vocab.entry_source_id``: its label, else the cached source whose URL it links, the one of its
own place first, else its place): the References edit of an update and the review's list answer
alike. The review matched the URL as written and took the first id with it, so an entry linking
``http://www.v.example/b/`` for a cached ``https://v.example/b`` was keyed by its place, the
second of two ids sharing one URL was keyed as the first, and an entry with no link as a cached
source with an empty URL."""

from __future__ import annotations

from typing import Any

import pytest

from oo_nb.agent.references import _parse
from oo_nb.format.article_model import first_list, read_model
from oo_nb.format.vocab import entry_source, entry_source_id, url_key
from oo_nb.review.refs import parse_refs

U, V, X = "https://u.example/a", "https://v.example/b", "https://x.example/c"

# (entries as (label or None, href or None), the cache's (id, url) in order, the ids expected)
CASES: list[tuple[str, list[tuple[str | None, str | None]], list[tuple[str, str]], list[str]]] = [
    ("labelled", [("s2", V), ("s1", U)], [("s1", U), ("s2", V)], ["s2", "s1"]),
    ("unlabelled, by URL", [(None, V), (None, U)], [("s1", U), ("s2", V)], ["s2", "s1"]),
    (
        "unlabelled, the URL spelled otherwise",
        [(None, "http://www.v.example/b/?utm_source=x")],
        [("s1", U), ("s2", V)],
        ["s2"],
    ),
    (
        "one URL under two ids: the entry in the second's place",
        [("s3", X), (None, U)],
        [("s1", U), ("s2", U), ("s3", X)],
        ["s3", "s2"],
    ),
    (
        "one URL under two ids: elsewhere, the first",
        [(None, U)],
        [("s2", X), ("s3", U), ("s4", U)],
        ["s3"],
    ),
    ("no link: its place", [(None, None)], [("s1", U)], ["s1"]),
    ("no link: never a cached source with no URL", [(None, None)], [("s2", "")], ["s1"]),
    ("an uncached URL: its place", [(None, "https://w.example/")], [("s1", U)], ["s1"]),
]
IDS = [c[0] for c in CASES]


def _body(items: list[tuple[str | None, str | None]]) -> str:
    lis = []
    for label, href in items:
        lead = f"[{label}] " if label else ""
        link = f'<a href="{href}">Page</a>' if href else "Page"
        lis.append(f"<li>{lead}{link}</li>")
    return "\n<ol>\n" + "\n".join(lis) + "\n</ol>\n"


def _ids_by_url(cache: list[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for sid, url in cache:
        out.setdefault(url_key(url), []).append(sid)
    return out


@pytest.mark.parametrize(("name", "items", "cache", "ids"), CASES, ids=IDS)
def test_the_vocabulary_answers_the_table(name: str, items: Any, cache: Any, ids: Any) -> None:
    by_url = _ids_by_url(cache)
    got = [
        entry_source_id(label, k, href or "", by_url) for k, (label, href) in enumerate(items, 1)
    ]
    assert got == ids


@pytest.mark.parametrize(("name", "items", "cache", "ids"), CASES, ids=IDS)
def test_the_references_edit_answers_the_table(name: str, items: Any, cache: Any, ids: Any) -> None:
    body = _body(items)
    lst = first_list(read_model(body).root.children)
    assert lst is not None
    parsed, _ = _parse(body, lst, _ids_by_url(cache))
    assert [i.sid for i in parsed] == ids
    assert [entry_source(i.node.text) is not None for i in parsed] == [i.labelled for i in parsed]


@pytest.mark.parametrize(("name", "items", "cache", "ids"), CASES, ids=IDS)
def test_the_review_answers_the_table(name: str, items: Any, cache: Any, ids: Any) -> None:
    refs = parse_refs(_body(items), cache)
    assert list(refs.ids) == _deduplicated(ids)


def _deduplicated(ids: list[str]) -> list[str]:
    """The review keeps one item per id: a second claim falls back to its place (``parse_refs``)."""
    out: list[str] = []
    for k, sid in enumerate(ids, 1):
        out.append(sid if sid not in out else (f"s{k}" if f"s{k}" not in out else f"#{k}"))
    return out
