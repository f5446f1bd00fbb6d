"""The digest's shortcuts give what the long way gives: ``blocks.cache_rows`` the rows of the
``SourceCache`` views, on the corpus, a synthetic library and random or hostile items (the same
values of the same types, and the same errors)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from oo_nb.errors import OOError
from oo_nb.format.blocks import SourceCache, cache_rows
from oo_nb.format.document import Document
from oo_nb.format.names import SOURCE_CACHE_BLOCK
from tests.conftest import CORPUS
from tests.format.test_blocks_fast import FACT_KEYS, SOURCE_KEYS, VALUES, Text, items, shape
from tests.library.test_library import FIXTURES, load_synth

SHARED_CORPUS = Path("/work/shared/corpus")


def corpus_paths() -> list[Path]:
    paths = [*sorted(CORPUS.glob("*.o-o.html")), *sorted(FIXTURES.glob("*.o-o.html"))]
    if SHARED_CORPUS.is_dir():
        paths += sorted(SHARED_CORPUS.glob("*.o-o.html"))
    return paths


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    synth = load_synth()
    folder = tmp_path_factory.mktemp("synth")
    return list(synth.make_library(folder, 150, seed=7, corrupt_rate=0.2))


def documents(paths: list[Path]) -> list[Document]:
    out = []
    for path in paths:
        try:
            doc = Document.read(path)
        except OOError:
            continue
        if doc.kind == "document":
            out.append(doc)
    return out


# --------------------------------------------------------------------------- source cache
def rows_of_views(raw: Any) -> Any:
    """What the digest kept before ``cache_rows``: the rows read off the views."""
    cache = SourceCache.from_json(raw, file="x.o-o.html")
    sources = [
        (s.id, s.url, s.domain, s.title, s.description, s.tier, s.accessed, s.verified, s.form)
        for s in cache.sources
    ]
    facts = [(f.id, f.text, f.key, f.value, f.source_ids, f.form) for f in cache.facts]
    quotes = [(f.id, f.quote, f.quote_found) for f in cache.facts if f.quote is not None]
    return sources, facts, quotes


def outcome(read: Any, raw: Any) -> Any:
    try:
        return ("ok", shape(read(raw)))
    except OOError as exc:
        where = (exc.message, getattr(exc, "key", None), getattr(exc, "block", None))
        return ("error", type(exc).__name__, str(exc), *where, exc.line, exc.column)


def same_rows(raw: Any) -> None:
    got = outcome(lambda r: cache_rows(r, file="x.o-o.html"), raw)
    assert got == outcome(rows_of_views, raw), repr(raw)[:300]


def cache_blocks(docs: list[Document]) -> list[Any]:
    found = []
    for doc in docs:
        try:
            found.append(doc.block_json(SOURCE_CACHE_BLOCK))
        except OOError:
            continue
    return found


def test_cache_rows_are_the_views_on_real_and_synthetic_documents(synthetic: list[Path]) -> None:
    raws = cache_blocks(documents([*corpus_paths(), *synthetic]))
    assert len(raws) > 100
    kinds = set()
    for raw in raws:
        same_rows(raw)
        for item in raw.get("sources", []) + raw.get("facts", []):
            kinds.add(type(item).__name__)
    assert kinds == {"dict", "str"}  # both forms of sources and facts were read


def test_cache_rows_are_the_views_on_random_and_hostile_items() -> None:
    rng = random.Random(11)
    sources = items(SOURCE_KEYS, 3000, 5)
    facts = items(FACT_KEYS, 3000, 6)
    for _ in range(400):  # mixes where a late odd item raises (or not) after common ones
        same_rows(
            {
                "sources": rng.sample(sources, rng.randint(0, 12)),
                "facts": rng.sample(facts, rng.randint(0, 12)),
            }
        )
    for item in sources:
        same_rows({"sources": [item]})
    for item in facts:
        same_rows({"facts": [item], "sources": None})
    odd: list[Any] = [
        None, [], "x", 3, {"sources": "s1"}, {"facts": {}}, {"sources": [], "facts": 3},
        {"sources": [{"url": 3}], "facts": 3}, {"sources": [Text("ft.com - FT")]},
        {"facts": [{"text": "", "key": None, "value": 0}, {"text": "", "key": 0, "value": None}]},
        {"facts": [{"id": 0, "quote": "q", "quote_found": 1}, {"quote": Text("q")}]},
        {"sources": [{"id": "", "url": "HTTP://WWW.A.COM:80/x", "tier": 0, "verified": 1}]},
        {"sources": [{"accessed": v} for v in VALUES]},
    ]  # fmt: skip
    for raw in odd:
        same_rows(raw)
