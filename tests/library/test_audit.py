"""The audit finds the defects documents really have; ``oo audit`` / ``oo library`` commands."""

from __future__ import annotations

import io
import json
import shutil
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from oo_nb.cli.main import main
from oo_nb.cli.verbs import build_parser, load
from oo_nb.errors import ValidationError
from oo_nb.format.document import Document
from oo_nb.library.audit import CHECKS, SEVERITIES
from oo_nb.library.library import Library
from tests.conftest import CORPUS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "library"
TODAY = date(2026, 3, 1)


def findings_for(frame: pd.DataFrame, doc: str, code: str | None = None) -> pd.DataFrame:
    mask = frame["doc"] == doc
    if code is not None:
        mask &= frame["code"] == code
    return frame[mask]


@pytest.fixture(scope="module")
def corpus_lib(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root = tmp_path_factory.mktemp("corpus")
    for path in CORPUS.glob("*.o-o.html"):
        shutil.copy(path, root)
    return Library(root, today=TODAY, workers=1)


@pytest.fixture(scope="module")
def fixture_lib() -> Library:
    return Library(FIXTURES, today=TODAY, workers=1)


def test_findings_frame_shape_and_order(corpus_lib: Library) -> None:
    found = corpus_lib.audit(all=True)
    assert list(found.columns) == ["doc", "severity", "code", "where", "message"]
    assert (
        list(found["severity"].cat.categories) == list(SEVERITIES) and found["severity"].cat.ordered
    )
    assert str(found["doc"].dtype) == "string" and isinstance(
        found["code"].dtype, pd.CategoricalDtype
    )
    ranks = found["severity"].cat.codes.tolist()
    assert ranks == sorted(ranks)  # errors first
    assert set(found["code"]) <= set(CHECKS)


def test_populated_article_with_empty_cache(corpus_lib: Library) -> None:
    found = corpus_lib.audit(all=True)
    empty = findings_for(found, "anthropic-leadership", "empty-cache")
    assert (
        len(empty) == 1
        and empty.iloc[0]["severity"] == "error"
        and empty.iloc[0]["where"] == "oo-source-cache"
    )
    article = Document.read(CORPUS / "anthropic-leadership.o-o.html").article
    expected = {(c.pid, c.source_id) for c in article.citations}
    unresolved = findings_for(found, "anthropic-leadership", "unresolved-citation")
    assert (
        set(
            zip(
                unresolved["where"],
                unresolved["message"].str.extract(r"\[(s\d+)\]")[0],
                strict=True,
            )
        )
        == expected
    )
    assert len(findings_for(found, "anthropic-leadership", "orphan-reference")) == 16


def test_corpus_documents_without_false_alarms(corpus_lib: Library) -> None:
    found = corpus_lib.audit(all=True)
    # References without [sN] are matched by URL: no orphans, every citation resolves.
    for doc in ("ai-model-landscape", "yc-w26-batch", "agi-declared"):
        codes = set(findings_for(found, doc)["code"])
        assert not codes & {
            "orphan-reference",
            "unresolved-citation",
            "empty-cache",
            "missing-pid",
            "malformed-pid",
        }, doc
    assert list(findings_for(found, "agi-declared", "uncited-source")["where"]) == ["s7"]
    assert findings_for(
        found, "yc-w26-batch", "unsourced-fact"
    ).empty  # facts are {key, value, source}
    assert findings_for(found, "agi-declared", "unsourced-fact").empty
    plain = findings_for(found, "agi-declared", "string-facts")  # 18 plain-string facts: one row
    assert len(plain) == 1 and plain.iloc[0]["severity"] == "info"
    assert plain.iloc[0]["message"].startswith("18 facts without source ids — original format")
    assert plain.iloc[0]["where"] == "f1..f18"
    assert set(found[found["code"] == "overdue"]["doc"]) == {
        "agi-declared",
        "ai-model-landscape",
        "anthropic-leadership",
        "yc-w26-batch",
    }
    early = corpus_lib.audit(today=date(2026, 2, 18), all=True)
    assert early[early["code"] == "overdue"].empty


def test_every_check_fires_on_the_defect_fixture(fixture_lib: Library) -> None:
    found = findings_for(fixture_lib.audit(all=True), "defects")
    where = {code: sorted(found[found["code"] == code]["where"]) for code in set(found["code"])}
    assert where["denied-domain"] == ["s6", "s8"]
    assert where["duplicate-url"] == ["s1, s5"]
    assert where["insecure-source"] == ["s7"]
    assert where["uncited-source"] == ["s4"]
    assert where["unresolved-citation"] == ["pid:intro:c0c1c2c3"]  # [s9]
    assert where["orphan-reference"] == ["references #3"]  # [s12]
    assert where["malformed-pid"] == ["pid:intro:intro-1"]
    assert where["duplicate-pid"] == ["pid:intro:c0c1c2c3"]
    assert where["missing-pid"] == ["details", "intro"]
    assert where["unsourced-fact"] == ["f1"] and where["unknown-fact-source"] == ["f2"]
    assert where["overdue"] == ["oo-manifest"]
    assert len(where["old-source"]) == 8  # accessed 2025-01-10 or earlier, limit 365 days
    severity = dict(zip(found["code"], found["severity"], strict=False))
    assert severity["denied-domain"] == severity["unresolved-citation"] == "error"
    assert severity["duplicate-url"] == severity["missing-pid"] == "warning"
    assert severity["uncited-source"] == "info"


def test_other_fixture_findings(fixture_lib: Library) -> None:
    audited = fixture_lib.audit(all=True)
    # The fixtures' page code is hand-made (no original o-o page, no template of ours has it):
    # each readable fixture says so, and nothing else below is about page code.
    flagged = set(audited[audited["code"] == "unknown-page-code"]["doc"])
    assert flagged == {p.name.removesuffix(".o-o.html") for p in FIXTURES.glob("*.o-o.html")} - {
        "corrupt"
    }
    found = audited[audited["code"] != "unknown-page-code"]
    assert set(findings_for(found, "no-pids")["code"]) == {"missing-pid", "overdue"}
    assert (
        findings_for(found, "no-pids", "missing-pid").iloc[0]["message"].startswith("2 paragraph")
    )
    assert set(findings_for(found, "stub")["code"]) == {
        "never-updated"
    }  # stub paragraphs need no pids
    bad = findings_for(found, "bad-json")
    assert list(bad["code"]) == ["invalid-json"] and "line 112" in bad.iloc[0]["message"]
    corrupt = findings_for(found, "corrupt")
    assert list(corrupt["code"]) == ["unreadable"] and corrupt.iloc[0]["severity"] == "error"
    assert findings_for(found, "images-tables").empty
    strings = findings_for(found, "string-sources")
    assert set(strings["code"]) == {
        "string-facts",
        "overdue",
    }  # string sources match refs by domain


def test_source_age_limit_is_configurable(fixture_lib: Library) -> None:
    assert fixture_lib.audit(stale_after_days=2000, all=True).query("code == 'old-source'").empty
    strict = fixture_lib.audit(stale_after_days=30, all=True).query("code == 'old-source'")
    assert {"defects", "images-tables", "string-sources"} & set(strict["doc"]) == {
        "defects",
        "images-tables",
    }
    msg = strict[strict["where"] == "s3"].query("doc == 'images-tables'").iloc[0]["message"]
    assert msg == "accessed 2025-12-01, 90 days ago (limit 30)"


def test_missing_block_and_wrong_type(tmp_path: Path) -> None:
    text = (CORPUS / "yc-w26-batch.o-o.html").read_text()
    no_log = text.replace(
        '<script id="oo-changelog" type="application/json">',
        '<script id="oo-log" type="application/json">',
        1,
    )
    (tmp_path / "nolog.o-o.html").write_text(no_log)
    (tmp_path / "badver.o-o.html").write_text(text.replace('"version": 1,', '"version": "one",', 1))
    found = Library(tmp_path, today=TODAY, workers=1).audit(all=True)
    assert findings_for(found, "nolog", "missing-block").iloc[0]["where"] == "oo-changelog"
    wrong = findings_for(found, "badver", "invalid-block").iloc[0]
    assert wrong["where"] == "oo-manifest" and "version" in wrong["message"]


# --------------------------------------------------------------------------- commands
def _with_our_page_code(source: Path, target: Path) -> None:
    """The fixture's data in this version's page (its own page code is hand-made)."""
    from oo_nb.format.template.render import render_document

    doc = Document.read(source)
    target.write_text(
        render_document(
            file_name=target.name,
            manifest=doc.block_json("oo-manifest"),
            contract=doc.block_json("oo-contract"),
            source_cache=doc.block_json("oo-source-cache"),
            changelog=doc.block_json("oo-changelog"),
            article_html=doc.article_html,
        ),
        "utf-8",
    )


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def test_oo_audit_exit_status_and_formats(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out = run_cli(["audit", str(FIXTURES), "--today", "2026-03-01"], capsys)
    assert code == 1 and "denied-domain" in out and out.rstrip().endswith("info")
    code, out = run_cli(
        ["audit", str(FIXTURES), "--today", "2026-03-01", "--format", "json"], capsys
    )
    records = json.loads(out)
    assert code == 1 and {"doc", "severity", "code", "where", "message"} == set(records[0])
    clean = tmp_path / "clean"
    clean.mkdir()
    _with_our_page_code(FIXTURES / "images-tables.o-o.html", clean / "images-tables.o-o.html")
    code, out = run_cli(["audit", str(clean), "--today", "2026-03-01"], capsys)
    assert code == 0 and "no findings" in out
    code, out = run_cli(["audit", str(clean), "--today", "2026-06-01", "--format", "csv"], capsys)
    assert (
        code == 0 and out.splitlines()[0] == "doc,severity,code,where,message" and "overdue" in out
    )


def test_oo_library_frames_and_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_cli(
        ["library", str(CORPUS), "--today", "2026-03-01", "--frame", "sources", "--format", "csv"],
        capsys,
    )
    frame = pd.read_csv(io.StringIO(out))
    assert code == 0 and len(frame) == 44 and "tier" in frame.columns
    code, out = run_cli(
        ["library", str(CORPUS), "--today", "2026-03-01", "--format", "json"], capsys
    )
    docs = {d["slug"]: d for d in json.loads(out)}
    assert docs["anthropic-leadership"]["overdue_days"] == 6 and docs["anthropic-leadership"][
        "as_of"
    ].startswith("2026-02-16")
    code, out = run_cli(["library", str(CORPUS), "--today", "2026-03-01"], capsys)
    assert code == 0 and "anthropic-leadership" in out and "agi-declared" in out
    code, out = run_cli(["library", str(FIXTURES), "--frame", "errors"], capsys)
    assert "corrupt.o-o.html" in out and "FormatError" in out
    assert main(["library", str(CORPUS / "missing")]) == 2


def test_library_result_for_the_magic() -> None:
    parser = build_parser()
    ns = parser.parse_args(["library", str(CORPUS), "--today", "2026-03-01"])
    result = load("library").run(ns)
    import oo_nb

    assert isinstance(result.value, oo_nb.Library) and set(result._repr_mimebundle_()) == {
        "text/plain",
        "text/html",
    }
    ns = parser.parse_args(["library", str(CORPUS), "--frame", "facts"])
    assert isinstance(load("library").run(ns).value, pd.DataFrame)
    ns = parser.parse_args(["audit", str(CORPUS), "--today", "2026-03-01"])
    audit = load("audit").run(ns)
    assert audit.exit_code == 1 and isinstance(audit.value, pd.DataFrame)
    assert "42 errors" in audit.summary() or audit.counts["error"] > 0


def test_check_and_audit_agree_on_severity(corpus_lib: Library, fixture_lib: Library) -> None:
    """One table (CHECKS): every code ``oo check`` reports has the table's severity (or a lower
    one where the finding says why), and the audit reports the same code for the same document
    with the same severity."""
    from oo_nb.format.check import check_path

    seen: set[str] = set()
    for lib in (corpus_lib, fixture_lib):
        found = lib.audit(all=True)
        for path in sorted(Path(lib.root).glob("*.o-o.html")):
            slug = path.name.removesuffix(".o-o.html")
            for finding in check_path(path):
                seen.add(finding.code)
                # the table's severity, or lower where a finding says why (never higher)
                assert finding.code in CHECKS, finding
                rank = SEVERITIES.index
                assert rank(finding.severity) >= rank(CHECKS[finding.code][0]), finding
                same = findings_for(found, slug, finding.code)
                assert not same.empty and set(same["severity"]) == {finding.severity}, finding
    # the defects the corpus and fixtures hold, among them the one that used to disagree
    assert {
        "empty-cache",
        "unresolved-citation",
        "malformed-pid",
        "invalid-json",
        "unreadable",
    } <= seen


@pytest.mark.parametrize("columns", ["60", "400"])
def test_table_output_never_cuts_a_message(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    """Narrow or wide terminal: every finding's and every error's message is printed whole."""
    monkeypatch.setenv("COLUMNS", columns)
    lib = Library(FIXTURES, today=TODAY, workers=1)
    code, out = run_cli(["audit", str(FIXTURES), "--today", "2026-03-01", "--all"], capsys)
    assert code == 1
    messages = list(lib.audit(all=True)["message"])
    assert any(m.endswith("(line 112)") and len(m) > 30 for m in messages)
    for message in messages:
        assert message in out, message
    code, out = run_cli(["audit", str(FIXTURES), "--today", "2026-03-01"], capsys)
    for message in lib.audit()["message"]:  # the summary's examples are whole too
        assert message in out, message
    code, out = run_cli(
        ["library", str(FIXTURES), "--today", "2026-03-01", "--frame", "errors"], capsys
    )
    for message in lib.errors["message"]:
        assert message in out, message
    code, out = run_cli(
        ["library", str(CORPUS), "--today", "2026-03-01", "--frame", "sources"], capsys
    )
    assert "…" in out  # other long text (titles, URLs) is still cut to keep the table readable


def test_a_pid_without_an_id_is_malformed_not_missing(tmp_path: Path) -> None:
    """``<!-- pid:overview -->`` (no hex part) names its paragraph; the audit and oo check say
    it is malformed instead of counting the paragraph as having no pid."""
    from oo_nb.format.article import pid_problem
    from oo_nb.format.check import check_path

    text = (CORPUS / "yc-w26-batch.o-o.html").read_text("utf-8")
    first = text.index("<!-- pid:", text.index('<article id="article">'))
    end = text.index("-->", first) + 3
    doc_text = text[:first] + "<!-- pid:overview -->" + text[end:]
    path = tmp_path / "yc.o-o.html"
    path.write_text(doc_text, "utf-8")
    article = Document.read(path).article
    assert "pid:overview" in article.pids
    found = Library(tmp_path, today=date(2026, 2, 18), workers=1).audit(all=True)
    bad = findings_for(found, "yc", "malformed-pid")
    assert (
        list(bad["where"]) == ["pid:overview"]
        and "has no id after the section" in bad.iloc[0]["message"]
    )
    assert findings_for(found, "yc", "missing-pid").empty
    assert [f.code for f in check_path(path)] == ["malformed-pid"]
    assert (
        pid_problem("pid:overview:c0c1c2c3") is None and pid_problem("pid:s:XYZ12345") is not None
    )


def test_overdue_on_the_due_day_as_is_stale(corpus_lib: Library) -> None:
    docs = corpus_lib.frame("documents", today=date(2026, 2, 23))
    lead = docs[docs["slug"] == "anthropic-leadership"].iloc[0]
    assert lead["due"] == pd.Timestamp("2026-02-23") and bool(lead["is_stale"])
    on_the_day = findings_for(
        corpus_lib.audit(today=date(2026, 2, 23), all=True), "anthropic-leadership", "overdue"
    )
    assert list(on_the_day["message"]) == [
        "as of 2026-02-16, due 2026-02-23 (every 7 days): due today"
    ]
    assert findings_for(
        corpus_lib.audit(today=date(2026, 2, 22), all=True), "anthropic-leadership", "overdue"
    ).empty
    for day in (date(2026, 2, 22), date(2026, 2, 23), date(2026, 2, 24), date(2026, 3, 1)):
        stale = set(corpus_lib.frame("documents", today=day).query("is_stale")["slug"])
        overdue = set(corpus_lib.audit(today=day, all=True).query("code == 'overdue'")["doc"])
        assert stale == overdue, day


def test_crlf_shell_is_the_same_error_in_check_and_audit(tmp_path: Path) -> None:
    from oo_nb.format.check import check_path
    from tests.support.crlf import crlf_document

    path = crlf_document(tmp_path, page=True, shell=True)
    crlf_document(tmp_path, page=True, shell=False, name="page-only")
    checked = [f for f in check_path(path) if f.code == "crlf-shell"]
    found = findings_for(Library(tmp_path).audit(all=True), "endings", "crlf-shell")
    assert len(checked) == 1 and len(found) == 1
    assert found.iloc[0]["severity"] == checked[0].severity == "error"
    assert found.iloc[0]["message"] == checked[0].message and found.iloc[0]["where"] == "shell"
    assert findings_for(Library(tmp_path).audit(all=True), "page-only", "crlf-shell").empty


# --------------------------------------------------------------------------- by root cause
def test_the_default_audit_is_one_row_per_document_and_code(corpus_lib: Library) -> None:
    every = corpus_lib.audit(all=True)
    rows = corpus_lib.audit()
    assert list(rows.columns) == ["doc", "severity", "code", "count", "where", "message"]
    assert not rows.duplicated(["doc", "code"]).any()
    assert int(rows["count"].sum()) == len(every)
    ranks = rows["severity"].cat.codes.tolist()
    assert ranks == sorted(ranks)
    unresolved = findings_for(rows, "anthropic-leadership", "unresolved-citation")
    first = findings_for(every, "anthropic-leadership", "unresolved-citation").iloc[0]
    assert len(unresolved) == 1 and unresolved.iloc[0]["count"] == 41
    assert (unresolved.iloc[0]["where"], unresolved.iloc[0]["message"]) == (
        first["where"],
        first["message"],
    )
    assert len(rows) <= 12 < len(every)  # the 4 real documents: 65 findings, a dozen causes


def test_min_severity(corpus_lib: Library) -> None:
    every = corpus_lib.audit(all=True)
    warnings = corpus_lib.audit(all=True, min_severity="warning")
    assert set(warnings["severity"]) == {"error", "warning"}
    assert len(warnings) == int((every["severity"] != "info").sum())
    errors = corpus_lib.audit(min_severity="error")
    assert set(errors["severity"]) == {"error"} and int(errors["count"].sum()) == 42
    assert len(corpus_lib.audit(all=True, min_severity="info")) == len(every)
    # an OOError naming the field and what it may be, as every API input error is
    with pytest.raises(
        ValidationError, match="key 'min_severity': must be one of error, warning, info"
    ):
        corpus_lib.audit(min_severity="fatal")


def test_oo_audit_summary_all_and_min_severity(
    capsys: pytest.CaptureFixture[str], corpus_lib: Library
) -> None:
    folder = str(corpus_lib.root)
    every = corpus_lib.audit(all=True)
    code, out = run_cli(["audit", folder, "--today", "2026-03-01"], capsys)
    assert code == 1 and len(out.splitlines()) < 30
    assert out.rstrip().splitlines()[-1] == "65 findings: 42 errors, 20 warnings, 3 info"
    assert "41" in out and "--all" in out
    code, out = run_cli(["audit", folder, "--today", "2026-03-01", "--all"], capsys)
    assert code == 1 and out.count("unresolved-citation") == 41
    code, out = run_cli(
        ["audit", folder, "--today", "2026-03-01", "--min-severity", "error"], capsys
    )
    assert "overdue" not in out and out.rstrip().endswith("42 errors, 0 warnings, 0 info")
    code, out = run_cli(["audit", folder, "--today", "2026-03-01", "--format", "json"], capsys)
    assert len(json.loads(out)) == len(every)  # a format gives every finding
    code, out = run_cli(["audit", folder, "--today", "2026-03-01", "--format", "csv"], capsys)
    assert len(pd.read_csv(io.StringIO(out))) == len(every)


def test_a_large_library_prints_a_few_hundred_lines_at_most() -> None:
    from oo_nb.cli.audit import ROW_LIMIT, AuditResult
    from oo_nb.library.audit import findings_frame

    codes = sorted(CHECKS)
    rows = [
        (f"topic-{n:05d}", CHECKS[code][0], code, f"s{k}", f"{code} number {k} of doc {n} " * 3)
        for n in range(10_000)
        for k, code in enumerate(codes[n % 7 :: 7][:3])
        for _ in range(2)
    ]
    result = AuditResult(findings_frame(rows), "table")
    text = result.to_text()
    lines = text.splitlines()
    assert len(lines) <= 300, len(lines)
    assert len(result.rows) > ROW_LIMIT and f"the first {ROW_LIMIT} of {len(result.rows)}" in text
    assert "by code, across the library" in text
    assert all(code in text for code in {r[2] for r in rows})  # every code has its line
    assert lines[-1] == result.summary() and result.summary().startswith(f"{len(rows)} findings")
    everything = AuditResult(findings_frame(rows), "csv").to_text()
    assert len(everything.splitlines()) == len(rows) + 1


def test_pid_findings_name_the_paragraph_by_its_first_words(fixture_lib: Library) -> None:
    found = findings_for(fixture_lib.audit(all=True), "defects")
    message = {
        (r.code, r.where): r.message for r in found.itertuples() if str(r.code).endswith("pid")
    }
    assert message[("duplicate-pid", "pid:intro:c0c1c2c3")].endswith(
        "— “First use of a pid [s3] and a…”"
    )
    assert (
        "— “This paragraph has a non-hex pid and cites…”"
        in message[("malformed-pid", "pid:intro:intro-1")]
    )
    assert message[("missing-pid", "intro")] == (
        "1 paragraph(s) without a pid comment, the first: “This paragraph has no pid at all [s2].”"
    )


def test_first_words() -> None:
    from oo_nb.library.digest import first_words

    assert first_words("  One two\nthree  ") == "One two three"
    assert first_words("a b c d e f g h i j") == "a b c d e f g h…"
    long = first_words("x" * 200)
    assert len(long) == 60 and long.endswith("…")
    assert first_words("") == ""


def test_an_empty_library_summarises_to_an_empty_frame(tmp_path: Path) -> None:
    rows = Library(tmp_path, today=TODAY, workers=1).audit()
    assert rows.empty and list(rows.columns) == [
        "doc",
        "severity",
        "code",
        "count",
        "where",
        "message",
    ]
    assert str(rows["count"].dtype) == "Int64"


def test_the_audit_reports_the_markup_oo_check_reports(tmp_path: Path) -> None:
    """Markup a browser reads otherwise than oo_nb, and a References entry the page does not
    number: the audit reports them as ``oo check`` does (same code, severity and message)."""
    from oo_nb.format.check import check_path
    from tests.format.test_article_end import _page

    a, b, c = (f'<a href="https://{x}.example/">{x}</a>' for x in "abc")
    article = (
        '<h2 id="one">One</h2>\n<p>x [s1] [s2]</p>\n<svg><style><h2 id="fake">F</h2></style></svg>\n'
        f'<h2 id="references">References</h2>\n<ol><li>{a}<ol><li>{c}</li></ol></li><li>{b}</li></ol>\n'
    )
    path = tmp_path / "odd.o-o.html"
    path.write_text(_page(article))
    codes = ("unmodelled-markup", "unlinked-reference")
    checked = sorted((f.code, f.severity, f.message) for f in check_path(path) if f.code in codes)
    assert [code for code, *_ in checked] == sorted(codes)
    for cache in (False, True, True):  # read, then stored and loaded
        found = Library(tmp_path, today=TODAY, workers=1, cache=cache).audit(all=True)
        rows = found[found["code"].isin(codes)]
        audited = sorted(zip(rows["code"], rows["severity"], rows["message"], strict=True))
        assert audited == checked
        assert set(rows["where"]) == {"article"}


def test_the_audit_reports_a_stray_end_tag_as_oo_check_does(tmp_path: Path) -> None:
    """An end tag that closes nothing in an article with no table, SVG or MathML: the scan once
    looked for unmodelled markup only in articles with one of those, so the audit missed what
    ``oo check`` reports."""
    from oo_nb.format.check import check_path
    from tests.format.test_article_end import _page

    path = tmp_path / "stray.o-o.html"
    path.write_text(_page('<h2 id="one">One</h2>\n<p>x</p></section>\n<p>y</p>\n'))
    checked = sorted(
        (f.code, f.severity, f.message) for f in check_path(path) if f.code == "unmodelled-markup"
    )
    assert len(checked) == 1 and "</section>" in checked[0][2]
    for cache in (False, True):
        found = Library(tmp_path, today=TODAY, workers=1, cache=cache).audit(all=True)
        rows = found[found["code"] == "unmodelled-markup"]
        assert sorted(zip(rows["code"], rows["severity"], rows["message"], strict=True)) == checked


def test_a_source_cited_only_as_upper_case_is_not_reported_uncited(tmp_path: Path) -> None:
    """The page links "[S3]" to entry 3: s3 is cited, and only the really uncited s4 is listed."""
    from tests.support.tiny_docs import page, source

    doc = page(
        [("0a0b0c01", "Rise [s1][s2]."), ("0a0b0c02", "Fall [S3].")],
        [source(1), source(2), source(3), source(4)],
    )
    (tmp_path / "tides.o-o.html").write_text(doc.text)
    found = Library(tmp_path, today=TODAY, workers=1).audit(all=True)
    assert list(findings_for(found, "tides", "uncited-source")["where"]) == ["s4"]
