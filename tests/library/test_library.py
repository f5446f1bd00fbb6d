"""Library: discovery, frames (columns, dtypes, values), conveniences, display (the scan on an
executor: test_executor.py)."""

from __future__ import annotations

import importlib.util
import random
import shutil
import sys
from datetime import date
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from oo_nb.errors import FormatError, NotFound
from oo_nb.format.article import Article, pid_is_wellformed
from oo_nb.format.document import Document
from oo_nb.library import library as library_module
from oo_nb.library.article_rows import ArticleScan
from oo_nb.library.digest import Digest, scan_article
from oo_nb.library.library import Library, discover
from tests.conftest import CORPUS, DOC_NAMES
from tests.support.bad_text import plant_lone_surrogate
from tests.support.scan_reads import count_reads

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "library"
TODAY = date(2026, 3, 1)

DOCUMENT_COLUMNS = [
    "slug",
    "title",
    "version",
    "as_of",
    "cadence_days",
    "due",
    "overdue_days",
    "is_stale",
    "is_sentinel",
    "sentinel_status",
    "n_sources",
    "n_facts",
    "n_citations",
    "n_figures",
    "bytes",
    "budget_usd",
    "spent_usd",
    "layout",
    "path",
]
SOURCE_COLUMNS = [
    "doc",
    "source_id",
    "url",
    "domain",
    "title",
    "description",
    "tier",
    "tier_group",
    "accessed",
    "age_days",
    "cited",
    "n_citations",
    "denied",
    "preferred",
    "verified",
    "link_status",  # from `oo links` (NA: not checked)
]
FACT_COLUMNS = [
    "doc", "fact_id", "text", "key", "value", "source_ids", "has_source", "quote", "quote_found",
]  # fmt: skip
CITATION_COLUMNS = ["doc", "section", "pid", "source_id", "resolves"]
ERROR_COLUMNS = ["path", "error_type", "message", "line", "column", "block"]


def load_synth() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "synth.py"
    spec = importlib.util.spec_from_file_location("oo_synth", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["oo_synth"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def lib_dir(tmp_path: Path) -> Path:
    """Corpus + own fixtures, a sub-folder, a history folder and the index page."""
    root = tmp_path / "docs"
    root.mkdir()
    for path in [*CORPUS.glob("*.o-o.html"), *FIXTURES.glob("*.o-o.html")]:
        shutil.copy(path, root / path.name)
    (root / "sub").mkdir()
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", root / "sub" / "yc-copy.o-o.html")
    history = root / ".oo-history" / "yc-w26-batch.o-o.html" / "snapshots"
    history.mkdir(parents=True)
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", history / "v1.o-o.html")
    (root / "notes.html").write_text("<p>not a document</p>")
    return root


@pytest.fixture
def lib(lib_dir: Path) -> Library:
    return Library(lib_dir, today=TODAY, workers=1)


def row(frame: pd.DataFrame, **match: object) -> pd.Series:
    mask = pd.Series(True, index=frame.index)
    for key, value in match.items():
        mask &= frame[key] == value
    rows = frame[mask.fillna(False)]
    assert len(rows) == 1, f"{len(rows)} rows match {match}"
    return rows.iloc[0]


# --------------------------------------------------------------------------- discovery
def test_discovery_skips_index_history_and_other_files(lib_dir: Path) -> None:
    names = [p.relative_to(lib_dir).as_posix() for p in discover(lib_dir)]
    assert "index.o-o.html" not in names
    assert not any(".oo-history" in n for n in names)
    assert "sub/yc-copy.o-o.html" in names and "notes.html" not in names
    flat = [p.name for p in discover(lib_dir, recursive=False)]
    assert "yc-copy.o-o.html" not in flat and "agi-declared.o-o.html" in flat
    assert discover(lib_dir / "stub.o-o.html") == [lib_dir / "stub.o-o.html"]
    with pytest.raises(NotFound):
        discover(lib_dir / "missing")


def test_a_document_named_index_something_is_listed(lib_dir: Path) -> None:
    """Index pages are recognised by content: ``index-funds`` is a real document and is listed;
    a copy of the index page under another ``index*`` name (any case) is still left out; a
    damaged ``index*`` document is listed so its error is reported, never silently dropped."""
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", lib_dir / "index-funds.o-o.html")
    shutil.copy(CORPUS / "index.o-o.html", lib_dir / "INDEX-old.o-o.html")
    (lib_dir / "index-broken.o-o.html").write_text(
        "#!/usr/bin/env bash\n: << 'OO_HTML'\n<p>no terminator\n"
    )
    names = [p.name for p in discover(lib_dir, recursive=False)]
    assert "index-funds.o-o.html" in names and "index-broken.o-o.html" in names
    assert "index.o-o.html" not in names and "INDEX-old.o-o.html" not in names
    assert library_module.is_index_page(lib_dir / "index.o-o.html")
    assert not library_module.is_index_page(lib_dir / "index-funds.o-o.html")
    lib = Library(lib_dir, today=TODAY, workers=1)
    assert row(lib.documents, slug="index-funds")["title"] == "Y Combinator W26 Batch"
    assert "index-broken.o-o.html" in " ".join(lib.errors["path"].astype(str))


def test_errors_frame_has_the_line_of_a_wrong_value(tmp_path: Path) -> None:
    text = (CORPUS / "ai-model-landscape.o-o.html").read_text("utf-8")
    (tmp_path / "badver.o-o.html").write_text(
        text.replace('"version": 1,', '"version": "one",', 1), "utf-8"
    )
    errors = Library(tmp_path, today=TODAY, workers=1).errors
    found = row(errors, block="oo-manifest")
    assert found["line"] == 223 and found["error_type"] == "ValidationError"
    line = text.replace('"version": 1,', '"version": "one",', 1).splitlines()[222]
    assert found["column"] == line.index('"one"') + 1  # where the value starts on that line
    assert found["message"] == "key 'version': must be a whole number, found 'one'"


def test_one_bad_file_never_stops_the_scan(lib: Library, lib_dir: Path) -> None:
    expected = {p.name.removesuffix(".o-o.html") for p in FIXTURES.glob("*.o-o.html")} - {"corrupt"}
    expected |= {n.removesuffix(".o-o.html") for n in DOC_NAMES} | {"sub/yc-copy"}
    assert set(lib.slugs) == expected
    errors = lib.errors
    assert list(errors.columns) == ERROR_COLUMNS
    corrupt = row(errors, path=str(lib_dir / "corrupt.o-o.html"))
    assert corrupt["error_type"] == "FormatError" and "terminator" in corrupt["message"]
    assert corrupt["line"] == 5 and pd.isna(corrupt["block"])
    bad = row(errors, path=str(lib_dir / "bad-json.o-o.html"))
    assert (bad["error_type"], bad["block"], bad["line"]) == ("BlockError", "oo-source-cache", 112)
    assert errors["column"].dtype == "Int64" and not pd.isna(bad["column"])
    assert "invalid JSON" in bad["message"]
    assert errors["line"].dtype == "Int64" and isinstance(
        errors["error_type"].dtype, pd.CategoricalDtype
    )


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00\x01\x02 binary",
        b"#!/usr/bin/env bash\n: << 'OO_HTML'\n\xff\xfe\nOO_HTML\n",
        b"<html>no heredoc</html>",
    ],
)
def test_hostile_files_become_error_rows(tmp_path: Path, data: bytes) -> None:
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", tmp_path / "good.o-o.html")
    (tmp_path / "bad.o-o.html").write_bytes(data)
    lib = Library(tmp_path, today=TODAY, workers=1)
    assert lib.slugs == ["good"]
    assert list(lib.errors["path"]) == [str(tmp_path / "bad.o-o.html")]
    assert row(lib.audit(all=True), doc="bad")["code"] == "unreadable"


@pytest.mark.parametrize("block", ["oo-manifest", "oo-contract", "oo-source-cache", "oo-changelog"])
def test_a_lone_surrogate_is_an_error_row_and_the_rest_is_read(tmp_path: Path, block: str) -> None:
    """A "\\ud800" escape crashed the whole folder's frames when they were printed; now it is
    the document's errors row (block, line, column) and every frame prints."""
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", tmp_path / "good.o-o.html")
    data, line, column = plant_lone_surrogate(
        (CORPUS / "agi-declared.o-o.html").read_bytes(), block
    )
    (tmp_path / "bad.o-o.html").write_bytes(data)
    lib = Library(tmp_path, today=TODAY, workers=1)
    found = row(lib.errors, path=str(tmp_path / "bad.o-o.html"))
    assert (found["error_type"], found["block"], found["line"], found["column"]) == (
        "BlockError",
        block,
        line,
        column,
    )
    assert "lone surrogate" in found["message"]
    assert row(lib.documents, slug="good")["title"] == "Y Combinator W26 Batch"
    assert row(lib.audit(all=True), doc="bad", code="invalid-json")["severity"] == "error"
    for name in ("documents", "sources", "facts", "changelog", "citations", "errors", "audit"):
        lib.frame(name).to_string().encode("utf-8")  # nothing a printer would choke on


# --------------------------------------------------------------------------- documents
def test_documents_columns_dtypes_and_corpus_values(lib: Library) -> None:
    docs = lib.documents
    assert list(docs.columns) == DOCUMENT_COLUMNS
    dtypes = {c: str(t) for c, t in docs.dtypes.items()}
    assert dtypes["as_of"] == dtypes["due"] == "datetime64[ns]"
    for col in (
        "version",
        "cadence_days",
        "overdue_days",
        "n_sources",
        "n_facts",
        "n_citations",
        "n_figures",
        "bytes",
    ):
        assert dtypes[col] == "Int64", col
    assert dtypes["is_stale"] == dtypes["is_sentinel"] == "boolean"
    assert dtypes["budget_usd"] == dtypes["spent_usd"] == "Float64"
    assert dtypes["layout"] == "category" and dtypes["title"] == "string"

    lead = row(docs, slug="anthropic-leadership")
    assert lead["title"] == "Anthropic Leadership Team" and lead["version"] == 1
    assert (
        lead["as_of"] == pd.Timestamp("2026-02-16") and lead["cadence_days"] == 7
    )  # freshness: weekly
    assert (
        lead["due"] == pd.Timestamp("2026-02-23") and lead["overdue_days"] == 6 and lead["is_stale"]
    )
    assert (lead["n_sources"], lead["n_facts"], lead["n_citations"], lead["n_figures"]) == (
        0,
        0,
        41,
        0,
    )
    assert lead["budget_usd"] == 3.0 and pd.isna(lead["spent_usd"]) and lead["layout"] == "early"
    assert lead["bytes"] == (CORPUS / "anthropic-leadership.o-o.html").stat().st_size
    assert not lead["is_sentinel"] and pd.isna(lead["sentinel_status"])

    agi = row(docs, slug="agi-declared")
    assert (
        agi["is_sentinel"]
        and agi["sentinel_status"] == "not_occurred"
        and agi["layout"] == "marker"
    )
    assert (agi["version"], agi["n_sources"], agi["n_facts"], agi["budget_usd"]) == (2, 19, 18, 5.0)

    tele = row(docs, slug="telescope-first-light")  # structured sentinel, daily cadence
    assert (
        tele["is_sentinel"] and tele["sentinel_status"] == "occurred" and tele["cadence_days"] == 1
    )
    assert tele["spent_usd"] == pytest.approx(0.12)
    images = row(docs, slug="images-tables")
    assert (
        images["n_figures"] == 2
        and images["spent_usd"] == pytest.approx(0.4123)
        and not images["is_stale"]
    )
    stub = row(docs, slug="stub")
    assert (
        stub["version"] == 0
        and pd.isna(stub["as_of"])
        and pd.isna(stub["due"])
        and stub["is_stale"]
    )
    bad = row(docs, slug="bad-json")  # the readable blocks still give their values
    assert bad["title"] == "Broken Cache" and pd.isna(bad["n_sources"]) and bad["n_citations"] == 1
    assert row(docs, slug="string-sources")["cadence_days"] == 30  # freshness: monthly


def test_staleness_follows_injected_today_and_own_cadence(lib_dir: Path) -> None:
    early = Library(lib_dir, today=date(2026, 2, 20), workers=1).documents
    assert not row(early, slug="ai-model-landscape")["is_stale"]
    assert row(early, slug="ai-model-landscape")["overdue_days"] == 0
    on_due = Library(lib_dir, today=date(2026, 2, 23), workers=1)
    model = row(on_due.documents, slug="ai-model-landscape")
    assert model["is_stale"] and model["overdue_days"] == 0  # fresh only while age < cadence
    # The same library judged as of another day, without a rescan.
    later = row(on_due.frame("documents", today=date(2026, 3, 23)), slug="images-tables")
    assert later["is_stale"] and later["overdue_days"] == 20


# --------------------------------------------------------------------------- sources, facts
def test_sources_frame(lib: Library) -> None:
    src = lib.sources
    assert list(src.columns) == SOURCE_COLUMNS
    assert isinstance(src["tier"].dtype, pd.CategoricalDtype)
    assert str(src["accessed"].dtype) == "datetime64[ns]" and str(src["age_days"].dtype) == "Int64"
    assert str(src["verified"].dtype) == "boolean" and str(src["cited"].dtype) == "bool"
    assert (src["doc"] == "anthropic-leadership").sum() == 0  # its cache is empty

    yc = row(src, doc="yc-w26-batch", source_id="s7")
    assert yc["domain"] == "extruct.ai" and yc["tier"] == "secondary"
    assert yc["accessed"] == pd.Timestamp("2026-02-16") and yc["age_days"] == 13
    assert yc["cited"] and yc["n_citations"] >= 1 and not yc["denied"]
    assert row(src, doc="yc-w26-batch", source_id="s1")["preferred"]  # ycombinator.com is preferred

    cnbc = row(src, doc="string-sources", source_id="s1")  # "cnbc.com - funding, board, ..."
    assert (
        cnbc["domain"] == "cnbc.com"
        and cnbc["description"] == "funding, board, leadership coverage"
    )
    assert (
        pd.isna(cnbc["url"])
        and pd.isna(cnbc["tier"])
        and pd.isna(cnbc["accessed"])
        and cnbc["cited"]
    )

    defects = src[src["doc"] == "defects"].set_index("source_id")
    assert list(defects.index[defects["denied"]]) == [
        "s6",
        "s8",
    ]  # old.reddit.com, quora.com (www. in policy)
    assert not defects.loc["s4", "cited"] and defects.loc["s4", "n_citations"] == 0
    assert defects.loc["s3", "age_days"] == (TODAY - date(2023, 6, 1)).days
    images = src[src["doc"] == "images-tables"].set_index("source_id")
    assert (
        images.loc["s1", "verified"]
        and not images.loc["s3", "verified"]
        and pd.isna(images.loc["s2", "verified"])
    )
    assert images.loc["s4", "n_citations"] == 3  # [s4] in a table cell, a list item and a paragraph


def test_facts_frame(lib: Library) -> None:
    facts = lib.facts
    assert list(facts.columns) == FACT_COLUMNS and str(facts["has_source"].dtype) == "bool"
    yc = facts[facts["doc"] == "yc-w26-batch"]
    assert len(yc) == 10 and yc["has_source"].all()
    first = row(facts, doc="yc-w26-batch", key="batch_size")
    assert first["value"] == "~105 companies" and first["source_ids"] == ["s7"]
    agi = facts[facts["doc"] == "agi-declared"]
    assert len(agi) == 18 and not agi["has_source"].any() and agi["key"].isna().all()
    assert row(facts, doc="images-tables", key="hosted_share")["source_ids"] == ["s2", "s1"]
    assert row(facts, doc="no-pids", fact_id="f1")["source_ids"] == ["s1"]  # "... [s1]" string fact


# --------------------------------------------------------------------------- changelog, citations
def test_changelog_frame(lib: Library) -> None:
    log = lib.changelog
    assert list(log.columns[:6]) == ["doc", "version", "timestamp", "summary", "cost_usd", "origin"]
    assert (
        str(log["timestamp"].dtype) == "datetime64[ns]" and str(log["cost_usd"].dtype) == "Float64"
    )
    agi = row(log, doc="agi-declared")
    assert (
        agi["version"] == 2
        and agi["timestamp"] == pd.Timestamp("2026-02-17")
        and agi["origin"] == "oo-changelog"
    )
    assert (log["doc"] == "anthropic-leadership").sum() == 0  # bare [] and an empty manifest list
    run = row(log, doc="images-tables", version=3)
    assert run["timestamp"] == pd.Timestamp("2026-02-01 07:30")  # +01:00 normalised to UTC
    assert run["cost_usd"] == pytest.approx(0.4123) and run["model"] == "claude-sonnet-4-5"
    assert run["tokens_input"] == 41000 and run["searches"] == 6
    assert row(log, doc="images-tables", version=2)["sources_added"] == ["s2"]
    assert pd.isna(row(log, doc="defects", version=3)["timestamp"])  # "not a date"
    manifest_rows = log[log["doc"] == "string-sources"]  # bare [] changelog: the manifest's notes
    assert list(manifest_rows["origin"]) == ["oo-manifest"] * 2
    assert list(manifest_rows["summary"]) == ["Created", "Funding round"]


def test_citations_frame(lib: Library) -> None:
    cit = lib.citations
    assert list(cit.columns) == CITATION_COLUMNS and str(cit["resolves"].dtype) == "boolean"
    counts = cit.groupby("doc").size()
    docs = lib.documents.set_index("slug")
    for slug, n in counts.items():
        assert docs.loc[slug, "n_citations"] == n
    lead = cit[cit["doc"] == "anthropic-leadership"]
    assert len(lead) == 41 and not lead["resolves"].any()
    assert lead.iloc[0][["section", "pid", "source_id"]].tolist() == [
        "overview",
        "pid:overview:a1b2c3d4",
        "s1",
    ]
    model = cit[cit["doc"] == "ai-model-landscape"]
    assert len(model) == 62 and model["resolves"].all()
    assert cit[cit["doc"] == "bad-json"]["resolves"].isna().all()  # unreadable cache: unknown
    assert cit[cit["doc"] == "no-pids"]["pid"].isna().all()


# --------------------------------------------------------------------------- conveniences
def test_notebook_conveniences(lib: Library, lib_dir: Path) -> None:
    assert len(lib) == len(lib.slugs) == len(lib.paths) == 12
    assert "agi-declared" in lib and list(lib) == lib.slugs
    doc = lib["agi-declared"]
    assert (
        isinstance(doc, Document)
        and doc.to_bytes() == (CORPUS / "agi-declared.o-o.html").read_bytes()
    )
    assert lib["sub/yc-copy"].manifest.title == "Y Combinator W26 Batch"
    with pytest.raises(KeyError, match="did you mean agi-declared"):
        lib["agi-declare"]
    with pytest.raises(FormatError, match="terminator"):  # unreadable: the reading error itself
        lib["corrupt"]
    docs = lib.documents
    docs["title"] = "changed"  # callers get copies
    assert lib.documents["title"].iloc[0] != "changed"
    shutil.copy(CORPUS / "agi-declared.o-o.html", lib_dir / "new-one.o-o.html")
    (lib_dir / "stub.o-o.html").unlink()
    assert lib.refresh() is lib
    assert "new-one" in lib and "stub" not in lib and len(lib.documents) == 12


def test_refresh_rereads_only_changed_files(lib_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = Library(lib_dir, today=TODAY, workers=1)
    read = count_reads(monkeypatch)
    lib.refresh()
    assert read == []  # nothing changed: nothing read, not even the unreadable file
    path = lib_dir / "yc-w26-batch.o-o.html"
    path.write_text(path.read_text().replace('"version": 1,', '"version": 2,', 1))
    lib.refresh()
    assert read == ["yc-w26-batch"]
    assert row(lib.documents, slug="yc-w26-batch")["version"] == 2


def test_repr_and_mimebundle_show_summary_and_escape(tmp_path: Path) -> None:
    hostile = (
        (CORPUS / "yc-w26-batch.o-o.html")
        .read_text()
        .replace('"title": "Y Combinator W26 Batch"', '"title": "<img src=x onerror=alert(1)>"', 1)
    )
    (tmp_path / "hostile.o-o.html").write_text(hostile)
    shutil.copy(FIXTURES / "corrupt.o-o.html", tmp_path)
    lib = Library(tmp_path, today=TODAY, workers=1)
    bundle = lib._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert "1 documents" in bundle["text/plain"] and "1 unreadable" in bundle["text/plain"]
    assert "error: unreadable 1" in bundle["text/plain"] and "hostile" in bundle["text/plain"]
    assert "<img src=x" not in bundle["text/html"] and "&lt;img src=x" in bundle["text/html"]
    assert lib.summary()["errors"] == 1  # the unreadable file


def test_empty_library_has_typed_empty_frames(tmp_path: Path) -> None:
    lib = Library(tmp_path, today=TODAY)
    assert len(lib) == 0
    assert (
        list(lib.documents.columns) == DOCUMENT_COLUMNS
        and str(lib.documents["as_of"].dtype) == "datetime64[ns]"
    )
    assert lib.sources.empty and lib.citations.empty and lib.audit(all=True).empty
    assert "0 documents" in repr(lib)


# --------------------------------------------------------------------------- scan internals
def test_library_article_scan_agrees_with_article(lib_dir: Path) -> None:
    synth = load_synth()
    texts = [
        Document.read(p).article_html for p in discover(lib_dir) if p.name != "corrupt.o-o.html"
    ]
    texts += [
        Document.parse(synth.make_document(f"eq-{i}", seed=3)).article_html for i in range(25)
    ]
    for html in texts:
        a, s = Article.parse(html), scan_article(html)
        assert s.sections == [(x.id, x.level) for x in a.sections]
        assert s.paragraphs == [(p.pid, p.section, p.tag) for p in a.paragraphs]
        assert s.citations == [(c.section, c.pid, c.source_id) for c in a.citations]
        assert s.references == [(r.position, r.source_id, r.url) for r in a.references]
        assert (s.pids, s.figures, s.is_stub) == (list(a.pids), len(a.figures), a.is_stub)


def test_malformed_pids_are_found_by_the_one_match_check_as_one_by_one() -> None:
    good = ["pid:intro:0123abcd", "pid:a-b_c:ffffffff"]
    odd = [
        "pid:a:0123ABCD", "pid:a:0123abc", "pid:a:0123abcde", " pid:a:0123abcd ", "pid:a:b:c",
        "pid:a:0123abcd\n", "pid:a\x00b:0123abcd", "pid:a:0123abcd\x00pid:b:0123abcd",
        "pid::0123abcd", "pid:a b:0123abcd", "x", "", "pid:a:0123abcd\x00",
    ]  # fmt: skip
    rng = random.Random(5)
    cases = [[], good, *([p] for p in odd), *([*good, p] for p in odd)]
    cases += [rng.sample(good + odd, rng.randint(1, 6)) for _ in range(200)]
    for pids in cases:
        scan = ArticleScan()
        scan.pids = pids
        digest = Digest(path="p", slug="s", nbytes=0, layout="marker")
        digest.take_article(scan)
        expected = [p for p in dict.fromkeys(pids) if not pid_is_wellformed(p)]
        assert digest.bad_pids == expected, pids


def test_synthetic_library_is_realistic(tmp_path: Path) -> None:
    synth = load_synth()
    paths = synth.make_library(tmp_path, 40, seed=1)
    sizes = [p.stat().st_size for p in paths]
    assert len(paths) == 40 and max(sizes) <= 215_000
    docs = [Document.read(p) for p in paths]
    assert {d.layout for d in docs} == {"early", "marker"}
    assert all(d.to_bytes() == p.read_bytes() for d, p in zip(docs, paths, strict=True))
    lib = Library(tmp_path, today=synth.TODAY, workers=1)
    assert len(lib) == 40 and lib.errors.empty  # index page and history copy are skipped
    assert lib.documents["bytes"].min() >= 30_000
    assert lib.documents["n_figures"].max() >= 1 and lib.sources["description"].notna().any()
    assert set(lib.documents["cadence_days"].dropna()) > {7}


def test_documents_frame_starts_with_the_name_and_paths_are_relative(lib: Library) -> None:
    docs = lib.documents
    assert docs.columns[0] == "slug"
    copy = row(docs, slug="sub/yc-copy")
    assert copy["path"] == "sub/yc-copy.o-o.html"
    assert all(not Path(p).is_absolute() for p in docs["path"])
    assert all((lib.root / p).is_file() for p in docs["path"])
    one = Library(lib.root / "sub" / "yc-copy.o-o.html", today=TODAY, workers=1)
    assert list(one.documents["path"]) == ["yc-copy.o-o.html"]
