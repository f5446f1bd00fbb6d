"""The digest's shortcuts give what the long way gives: ``blocks.cache_rows`` the rows of the
``SourceCache`` views, on the corpus, a synthetic library and random or hostile items (the same
values of the same types, and the same errors); the codec's short forms (citation runs, ids as
one string, references without their positions) read back as the digest, and planted ones are
refused."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import sys
from collections import Counter
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest

from oo_nb.errors import OOError
from oo_nb.format import legacy_script
from oo_nb.format.article import pid_is_wellformed
from oo_nb.format.blocks import Changelog, SourceCache, cache_rows
from oo_nb.format.document import Document
from oo_nb.format.legacy_script import InjectionRisk, contract_risks
from oo_nb.format.names import CHANGELOG_BLOCK, CONTRACT_BLOCK, SOURCE_CACHE_BLOCK
from oo_nb.library import digest, digest_codec
from oo_nb.library.article_rows import ArticleScan
from oo_nb.library.digest import Digest, digest_file, first_words
from tests.conftest import CORPUS
from tests.format.test_blocks_fast import (
    ENTRY_KEYS,
    FACT_KEYS,
    SOURCE_KEYS,
    VALUES,
    Text,
    items,
    shape,
)
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


# --------------------------------------------------------------------------- codec
def runs_by_groupby(column: tuple[Any, ...]) -> tuple[list[Any], list[int]]:
    """What ``digest_codec._runs`` would give by groupby (a Python step per citation)."""
    found = [(value, len(list(run))) for value, run in groupby(column)]
    return [v for v, _ in found], [n for _, n in found]


def test_citation_runs_are_those_of_groupby() -> None:
    rng = random.Random(3)
    values: list[str | None] = ["a", "b", None, "pid:a:00000000", "", "a"[:0]]
    for n in [0, 1, 2, 3, *range(4, 300, 7)]:
        column = tuple(rng.choice(values[: rng.randint(1, 6)]) for _ in range(n))
        assert digest_codec._runs(column) == runs_by_groupby(column)
    equal_not_same = ("pid:a:1", "".join(["pid:a:", "1"]), "pid:a:1")
    assert digest_codec._runs(equal_not_same) == (["pid:a:1"], [3])


def digests(paths: list[Path]) -> list[Digest]:
    found = [digest_file(str(p), p.stem) for p in paths]
    return [d for d in found if isinstance(d, Digest)]


def mutated(d: Digest, rng: random.Random) -> Digest:
    """``d`` with the values a shortcut of the codec could get wrong: ids with a space or
    empty, references out of order, no citations at all."""
    d = dataclasses.replace(d)
    choice = rng.randrange(6)
    if choice == 5:  # text far from ASCII, written as escapes
        d.title = 'Größe — “x” 😀 \u2028 \x00 \\ "'
        d.sources = [(*s[:3], "標題 😀", *s[4:]) for s in d.sources]
        d.cite_pids = tuple(p and p + "é" for p in d.cite_pids)
        return d
    if choice == 0 and d.cite_ids:
        ids = list(d.cite_ids)
        ids[rng.randrange(len(ids))] = rng.choice(["", " ", "s1 s2", "s 1", "\u3000", "s1\n"])
        d.cite_ids = tuple(ids)
        d.cite_counts = dict(Counter(d.cite_ids))
    elif choice == 1 and d.references:
        d.references = [(pos + rng.choice([0, 1]), sid, url) for pos, sid, url in d.references]
    elif choice == 2:
        d.references = rng.choice(
            [
                [(2, None, "u"), (1, "s1", "")],
                [(i + 1, None, s[1]) for i, s in enumerate(d.sources[1:])],
                [(i + 1, None, s[1] + "x") for i, s in enumerate(d.sources)],
                [(i + 1, "s1", s[1]) for i, s in enumerate([*d.sources, *d.sources[:1]])],
            ]
        )
    elif choice == 3:
        d.cite_sections = d.cite_pids = d.cite_ids = ()
        d.cite_counts = {}
    else:
        d.references = []
    return d


def test_the_codec_round_trips_real_synthetic_and_mutated_digests(synthetic: list[Path]) -> None:
    found = digests([*corpus_paths(), *synthetic])
    assert len(found) > 100
    rng = random.Random(5)
    for d in [*found, *(mutated(d, rng) for d in found for _ in range(3))]:
        text = digest_codec.encode(d)
        assert digest_codec.decode(text, d.path, d.slug) == d, d.path
        assert d.cite_counts == dict(Counter(d.cite_ids))  # what decode rebuilds
        raw = json.loads(text)
        assert isinstance(raw["cite_ids"], str) == all(" " not in i and i for i in d.cite_ids)
        positions = [r[0] for r in d.references] == list(range(1, len(d.references) + 1))
        assert len(raw["references"]) == (2 if positions else 3)
        sources_urls = [r[2] for r in d.references] == [s[1] for s in d.sources]
        assert (raw["references"][-1] is None) == (positions and sources_urls)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cite_ids", 7),
        ("cite_ids", ["s1", None]),
        ("cite_ids", "s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 s11"),  # more ids than the runs cover
        ("references", [["s1"], []]),  # columns differ in length
        ("references", [[3], ["s1"]]),
        ("references", [[1], ["s1"], ["u"], ["x"]]),
        ("references", [[0], [None], ["u"]]),  # a position that is not one
        ("cites", [["a"], [None], [True]]),
        ("cites", [["a"], [1], [None], [1]]),  # runs that cover one of the citations
        ("cites", [["a", "b"], [10**7, -(10**7)], [None], [1]]),
        ("cites", [[1], [1], [None], [1]]),
        ("references", [[None], None]),  # the sources' urls, but not as many
        ("facts", [["f1"], ["t"], [None], [None], {"all": ["s1"] * 1000}, ["string"]]),
        ("facts", [{"all": "f1"}, ["t"], [None], [None], [[]], ["string"]]),
        ("facts", [["f1"], ["t"], {"all": 3}, [None], [[]], ["string"]]),
        ("facts", [["f1"], ["t"], {"all": None, "n": 10**9}, [None], [[]], ["string"]]),
        ("facts", [["f1"], ["t"], {"x": None}, [None], [[]], ["string"]]),
        ("facts", [["f1"], ["t"], {"x": 1}, [None], [[]], ["string"]]),
    ],
)
def test_the_codec_refuses_planted_short_forms(field: str, value: Any) -> None:
    d = digests([CORPUS / "agi-declared.o-o.html"])[0]
    raw = json.loads(digest_codec.encode(d))
    raw[field] = value
    with pytest.raises(ValueError):
        digest_codec.decode(json.dumps(raw), "x", "x")


def test_columns_of_one_value_are_written_once() -> None:
    d = digests([CORPUS / "agi-declared.o-o.html"])[0]
    d.sources = [("s1", "u", "d", "t", "", "", None, None, "string")] * 3
    d.facts = [("f1", "t", None, None, (), "string"), ("f2", "t", None, None, (), "string")]
    raw = json.loads(digest_codec.encode(d))
    assert raw["sources"][8] == {"all": "string"} and raw["sources"][0] == ["s1"] * 3
    assert raw["facts"][4] == [[], []]  # a list is never written once for every row
    assert digest_codec.decode(json.dumps(raw), d.path, d.slug) == d
    raw["facts"] = [[], [], {"all": None}, {"all": None}, [], {"all": "string"}]
    assert digest_codec.decode(json.dumps(raw), d.path, d.slug).facts == []  # no rows


# --------------------------------------------------------------------------- changelog
def changelog_by_view(raw: Any) -> Any:
    """What ``_fill_changelog`` kept before its shortcut: the rows of the view's entries."""
    try:
        log = Changelog.from_json(raw)
    except OOError as exc:
        return ("error", type(exc).__name__, str(exc), exc.line, exc.column)
    rows = []
    for e in log.entries:
        row: dict[str, Any] = {
            "version": e.version,
            "timestamp": e.timestamp or None,
            "summary": e.summary,
            "origin": CHANGELOG_BLOCK,
        }
        for key, value in e.extra.items():
            if isinstance(value, dict):
                row.update({f"{key}_{k}": v for k, v in value.items()})
            else:
                row[key] = value
        rows.append(row)
    return ("ok", shape(rows))


def changelog_now(raw: Any) -> Any:
    rows = digest._changelog_rows(raw)
    if rows is not None:
        return ("ok", shape(rows))
    return changelog_by_view(raw)


def test_changelog_rows_are_the_views(synthetic: list[Path]) -> None:
    docs = documents([*corpus_paths(), *synthetic])
    raws = []
    for doc in docs:
        with contextlib.suppress(OOError):
            raws.append(doc.block_json(CHANGELOG_BLOCK))
    assert len(raws) > 100
    took = 0
    for raw in raws:
        assert changelog_now(raw) == changelog_by_view(raw), repr(raw)[:300]
        took += digest._changelog_rows(raw) is not None
    assert took > 100  # the shortcut read most of them
    rng = random.Random(9)
    entries = items(ENTRY_KEYS, 3000, 4)
    entries += [{"version": True}, {"version": 2**53}, {"summary": Text("s")}, {"origin": "x"}]
    entries += [{"tokens": {"input": 1, "output": 2}, "date": "2024-01-01", "version": -(2**53)}]
    odd: list[Any] = [None, 3, "x", {}, {"entries": None}, {"entries": {}}, {"entries": "x"}, []]
    for raw in odd + [[e] for e in entries] + [{"entries": [e]} for e in entries]:
        assert changelog_now(raw) == changelog_by_view(raw), repr(raw)
    for _ in range(300):
        raw = rng.sample(entries, rng.randint(0, 8))
        assert changelog_now(raw) == changelog_by_view(raw), repr(raw)


# --------------------------------------------------------------------------- contract risks
def contract_risks_before(raw: dict[str, Any]) -> list[InjectionRisk]:
    """``contract_risks`` before it made a risk only for a value that carries markup."""
    identity = legacy_script._object(raw.get("identity"))
    research = legacy_script._object(raw.get("research"))
    risks = []
    for key in ("subject", "scope", "audience", "tone"):
        value = identity.get(key)
        if legacy_script._js_truthy(value):
            risks.append(InjectionRisk(f"contract {key}", legacy_script._js_string(value)))
    for key in ("intents", "required_sections"):
        values = research.get(key)
        if isinstance(values, list):
            risks += [
                InjectionRisk(f"contract {key}[{i}]", legacy_script._js_string(item))
                for i, item in enumerate(values)
            ]
    return [r for r in risks if legacy_script.carries_markup(r.text)]


def test_contract_risks_are_what_they_were(synthetic: list[Path]) -> None:
    raws = []
    for doc in documents([*corpus_paths(), *synthetic]):
        with contextlib.suppress(OOError):
            raws.append(doc.block_json(CONTRACT_BLOCK))
    rng = random.Random(13)
    marked: list[Any] = ["<b>", "a > b", "&lt;x", "&amp;", "&#60", "plain", ["<i>", None], {}, 0]
    marked += [True, None, "", [], 1.5, [["<"]]]
    for _ in range(500):
        raws.append(
            {
                "identity": {k: rng.choice(marked) for k in ("subject", "scope", "tone")},
                "research": {"intents": rng.sample(marked, 4), "required_sections": "<x>"},
            }
        )
    texts = ["plain", "", "a > b", "x>", "<", "&", "&gt;", "&amp;lt;", "&#x3c", "a & b", "ok"]
    for _ in range(500):  # strings only: the look at all of them at once
        raws.append(
            {
                "identity": {k: rng.choice(texts) for k in ("subject", "audience")},
                "research": {"intents": rng.sample(texts, 2), "required_sections": [None]},
            }
        )
    raws += [{"identity": 3, "research": []}, {}]
    found = 0
    for raw in raws:
        if isinstance(raw, dict):
            assert contract_risks(raw) == contract_risks_before(raw), repr(raw)
            found += bool(contract_risks(raw))
    assert found > 100


# --------------------------------------------------------------------------- take_article
def take_article_before(d: Digest, scan: ArticleScan) -> None:
    """``Digest.take_article`` before its shortcuts (the reference)."""
    d.has_article = True
    d.is_stub, d.n_paragraphs, d.figures = scan.is_stub, len(scan.paragraphs), scan.figures
    d.references = scan.references
    if scan.citations:
        sections, pids, ids = zip(*scan.citations, strict=True)
        d.cite_sections, d.cite_pids = sections, pids
        d.cite_ids = tuple(map(sys.intern, ids))
    d.cite_counts = dict(Counter(d.cite_ids))
    d.unpidded = [section for pid, section, tag in scan.paragraphs if pid is None and tag == "p"]
    d.bad_pids = [p for p in dict.fromkeys(scan.pids) if not pid_is_wellformed(p)]
    d.dup_pids = [p for p, n in Counter(scan.pids).items() if n > 1]
    d.pid_leads = {p: first_words(text) for p, text in scan.leads.items() if text.strip()}
    if d.unpidded:
        d.unpidded_leads = {
            section: first_words(text)
            for section, text in scan.unpidded_leads.items()
            if text.strip()
        }


def test_take_article_is_what_it_was(synthetic: list[Path]) -> None:
    scans = [
        digest.scan_article(doc.article_html)
        for doc in documents([*corpus_paths(), *synthetic])
        if doc.article_span is not None
    ]
    rng = random.Random(17)
    odd = []
    for scan in scans[:60]:
        paragraphs = [
            (rng.choice([pid, None, "pid:x:zz", "pid:a:0000000g"]), section, rng.choice([tag, "p"]))
            for pid, section, tag in scan.paragraphs
        ]
        odd.append(
            dataclasses.replace(
                scan, paragraphs=paragraphs, pids=[p for p, _, _ in paragraphs if p]
            )
        )
    unpidded = 0
    for scan in [*scans, *odd, ArticleScan()]:
        now, before = Digest("x", "x", 1, "x"), Digest("x", "x", 1, "x")
        now.take_article(scan)
        take_article_before(before, scan)
        assert now == before
        unpidded += bool(now.unpidded)
    assert unpidded > 20
