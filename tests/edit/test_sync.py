"""oo sync: marker sections replaced, oo.css in CUSTOM, early documents reported or migrated."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from oo_nb.edit.new import NewSpec, create_document
from oo_nb.edit.sync import find_section, migrate_early, sync_dir
from oo_nb.format.document import Document
from oo_nb.format.template.render import (
    CSP_BOOTSTRAP,
    MARKERS,
    css_section,
    js_section,
    shell_section,
)
from oo_nb.library.index_page import write_index
from oo_nb.store.store import read_history

EARLY = ["ai-model-landscape.o-o.html", "anthropic-leadership.o-o.html", "yc-w26-batch.o-o.html"]


def _status(result: object) -> dict[str, str]:
    return {r.rel: r.status for r in result.reports}  # type: ignore[attr-defined]


def _data(doc: Document) -> tuple[str, str, dict[str, str]]:
    return doc.span_text(doc.header), doc.article_html, {b: doc.block_text(b) for b in doc.blocks}


def test_marker_document_gets_this_versions_sections(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    before = Document.read(path)
    result = sync_dir(corpus_copy)
    assert _status(result)["agi-declared.o-o.html"] == "updated"
    after = Document.read(path)
    assert after.span_text(find_section(after, "css")) == css_section("document")  # type: ignore[arg-type]
    assert after.span_text(find_section(after, "js")) == js_section("document")  # type: ignore[arg-type]
    assert after.span_text(find_section(after, "shell")) == shell_section("document")  # type: ignore[arg-type]
    assert _data(after) == _data(before)
    # what surrounds the shell markers is the original's (its `set -euo pipefail` and exit)
    tail = after.span_text(after.tail)
    assert tail.startswith("set -euo pipefail\n# OO:SHELL:START\n") and tail.endswith(
        "# OO:SHELL:END\n\nexit 1\n"
    )

    # outside the three sections and the policy bootstrap every byte is the same
    def strip(doc: Document) -> str:
        text = doc.text
        for name in ("shell", "js", "css"):
            span = find_section(doc, name)
            assert span is not None
            text = text[: span.start] + f"@{name}@" + text[span.end :]
        return text.replace(CSP_BOOTSTRAP + "\n", "", 1)

    assert strip(after) == strip(before)
    assert len(read_history(path)) == 2


def test_a_second_sync_changes_nothing(corpus_copy: Path) -> None:
    sync_dir(corpus_copy)
    path = corpus_copy / "agi-declared.o-o.html"
    before = path.read_bytes()
    result = sync_dir(corpus_copy)
    assert _status(result)["agi-declared.o-o.html"] == "unchanged"
    assert path.read_bytes() == before and len(read_history(path)) == 2


def test_dry_run_writes_nothing(corpus_copy: Path) -> None:
    snapshot = {p.name: p.read_bytes() for p in corpus_copy.glob("*.html")}
    result = sync_dir(corpus_copy, dry_run=True, migrate=True)
    assert _status(result)["agi-declared.o-o.html"] == "would update"
    assert _status(result)["yc-w26-batch.o-o.html"] == "would migrate"
    assert {p.name: p.read_bytes() for p in corpus_copy.glob("*.html")} == snapshot
    assert not (corpus_copy / ".oo-history").exists() or not any(
        (corpus_copy / ".oo-history").rglob("*.snap")
    )
    assert "dry run" in result.to_text()


def test_only_the_asked_section(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    before = Document.read(path)
    sync_dir(corpus_copy, "js")
    after = Document.read(path)
    assert after.span_text(find_section(after, "js")) == js_section("document")  # type: ignore[arg-type]
    assert after.span_text(find_section(after, "css")) == before.span_text(
        find_section(before, "css")
    )  # type: ignore[arg-type]
    assert after.span_text(after.tail) == before.span_text(before.tail)


def test_oo_css_goes_into_custom_and_leaves_with_the_file(corpus_copy: Path) -> None:
    (corpus_copy / "oo.css").write_text("#doc-title { color: teal; }\n")
    sync_dir(corpus_copy, "css")
    doc = Document.read(corpus_copy / "agi-declared.o-o.html")
    lines = doc.text.split("\n")
    assert lines[lines.index(MARKERS["css"][1]) + 1] == MARKERS["custom"][0]
    custom = find_section(doc, "custom")
    assert custom is not None and "#doc-title { color: teal; }" in doc.span_text(custom)
    (corpus_copy / "oo.css").write_text("#doc-title { color: navy; }\n")
    sync_dir(corpus_copy, "css")
    doc = Document.read(corpus_copy / "agi-declared.o-o.html")
    assert (
        doc.text.count(MARKERS["custom"][0]) == 1 and "navy" in doc.text and "teal" not in doc.text
    )
    (corpus_copy / "oo.css").unlink()
    result = sync_dir(corpus_copy, "css")
    assert "custom" in result.reports[0].sections
    doc = Document.read(corpus_copy / "agi-declared.o-o.html")
    assert find_section(doc, "custom") is None and "navy" not in doc.text


def test_a_dangerous_oo_css_is_refused(corpus_copy: Path) -> None:
    (corpus_copy / "oo.css").write_text("a{}</style><script>alert(1)</script>")
    before = (corpus_copy / "agi-declared.o-o.html").read_bytes()
    with pytest.raises(Exception, match="</style"):
        sync_dir(corpus_copy)
    assert (corpus_copy / "agi-declared.o-o.html").read_bytes() == before


def test_early_documents_are_reported_not_touched(corpus_copy: Path) -> None:
    snapshot = {n: (corpus_copy / n).read_bytes() for n in [*EARLY, "index.o-o.html"]}
    result = sync_dir(corpus_copy)
    status = _status(result)
    for name in [*EARLY, "index.o-o.html"]:
        assert status[name] == "early layout"
        assert (corpus_copy / name).read_bytes() == snapshot[name]
    assert "sync_dir(folder, migrate=True)" in result.to_text()  # (in Python's words: skin)
    assert result.exit_code == 0


@pytest.mark.parametrize("name", EARLY)
def test_migrate_keeps_all_data(corpus_copy: Path, name: str, tmp_path: Path) -> None:
    path = corpus_copy / name
    before = Document.read(path)
    result = sync_dir(corpus_copy, migrate=True)
    assert _status(result)[name] == "migrated"
    note = next(r.note for r in result.reports if r.rel == name)
    assert "current page layout" in note and "marker" not in note  # the reader's words
    after = Document.read(path)
    assert after.layout == "marker"
    assert _data(after) == _data(before)  # header lines, article, four blocks: byte for byte
    for section, maker in (("css", css_section), ("js", js_section), ("shell", shell_section)):
        span = find_section(after, section)
        assert span is not None and after.span_text(span) == maker("document")
    assert "img-src data:" in after.text
    assert after.text.count("<script>window.stop();</script>") == 1  # the template hazard is gone
    assert after.span_text(after.tail) == shell_section("document") + "exit 0\n"
    script = tmp_path / "tail.sh"
    script.write_text(after.span_text(after.tail))
    subprocess.run(["bash", "-n", str(script)], check=True)
    # the old version is one rollback away
    history = read_history(path)
    assert history[0].snapshot is not None and history[0].snapshot.read_bytes() == before.to_bytes()


def test_migrate_replaces_a_page_script_with_a_data_id(corpus_dir: Path) -> None:
    """Only an ``id`` attribute makes a script a JSON block (vocab.tag_id); a ``data-id`` does
    not, and the original page script it sits on is replaced like any other."""
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    at = doc.text.index("<script>\n", doc.text.index('<script id="oo-manifest"'))
    odd = Document(doc.text[:at] + '<script data-id="page">' + doc.text[at + len("<script>") :])
    new = migrate_early(odd)
    assert '<script data-id="page">' not in new.text
    assert _data(new) == _data(odd)


def _with_in_head(corpus_dir: Path, head: str) -> Document:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    at = doc.text.index("<head>") + len("<head>")
    return Document(doc.text[:at] + "\n" + head + doc.text[at:])


@pytest.mark.parametrize(
    "head",
    [
        '<meta name="note" content="<script>">',  # no script: an attribute value
        "<!-- a note --!>",  # a browser ends the comment here, before the stylesheet
        "<!-- <style> and <script> in a comment -->",
    ],
)
def test_migrate_finds_the_page_code_as_a_browser_reads_the_page(
    corpus_dir: Path, head: str
) -> None:
    """The page's stylesheet and script are replaced, not kept beside the new ones. (The first
    two also hide the article from ``Document``'s own reader, which reads them otherwise: the
    data is compared where it finds the article.)"""
    odd = _with_in_head(corpus_dir, head)
    new = migrate_early(odd)
    for old in ("/* stylesheet omitted", "/* script omitted"):
        assert old in odd.text and old not in new.text
    assert head in new.text
    if odd.article_span is not None:
        assert _data(new) == _data(odd)


def test_migrated_documents_stay_in_sync_afterwards(corpus_copy: Path) -> None:
    sync_dir(corpus_copy, migrate=True)
    assert set(_status(sync_dir(corpus_copy)).values()) == {"unchanged"}


def test_early_index_gets_our_shell_and_keeps_its_page(corpus_copy: Path, tmp_path: Path) -> None:
    path = corpus_copy / "index.o-o.html"
    before = Document.read(path)
    assert "original shell code is omitted" in before.span_text(before.tail)
    dry = sync_dir(corpus_copy, dry_run=True, migrate=True)
    assert (
        _status(dry)["index.o-o.html"] == "would migrate" and path.read_bytes() == before.to_bytes()
    )
    result = sync_dir(corpus_copy, migrate=True)
    assert _status(result)["index.o-o.html"] == "migrated" and result.exit_code == 0
    after = Document.read(path)
    assert after.kind == "index" and after.layout == "marker"
    page = after.text[: after.terminator.end]
    assert page.count(CSP_BOOTSTRAP) == 1  # every page byte but the policy bootstrap
    assert page.replace(CSP_BOOTSTRAP + "\n", "") == before.text[: before.terminator.end]
    assert after.span_text(after.tail) == shell_section("index") + "exit 0\n"
    script = tmp_path / "tail.sh"
    script.write_text(after.span_text(after.tail))
    subprocess.run(["bash", "-n", str(script)], check=True)
    history = read_history(path)
    assert history[0].snapshot is not None and history[0].snapshot.read_bytes() == before.to_bytes()
    # `oo index` keeps our shell from now on, and sync finds it current
    write_index(corpus_copy)
    assert (
        Document.read(path).span_text(Document.read(path).tail)
        == shell_section("index") + "exit 0\n"
    )
    assert _status(sync_dir(corpus_copy))["index.o-o.html"] == "unchanged"


def test_early_index_without_migrate_is_reported_not_touched(corpus_copy: Path) -> None:
    before = (corpus_copy / "index.o-o.html").read_bytes()
    result = sync_dir(corpus_copy, "shell")
    assert _status(result)["index.o-o.html"] == "early layout"
    note = next(r.note for r in result.reports if r.rel == "index.o-o.html")
    assert "sync_dir(folder, migrate=True)" in note
    assert (corpus_copy / "index.o-o.html").read_bytes() == before


def test_early_index_without_a_final_newline_or_with_crlf_migrates(corpus_copy: Path) -> None:
    path = corpus_copy / "index.o-o.html"
    text = path.read_text()
    page = text[: text.index("\nOO_HTML\n") + len("\nOO_HTML")]
    path.write_text(page)  # the terminator is the file's last line, no newline after it
    ended = migrate_early(Document.read(path))
    assert ended.text.replace(CSP_BOOTSTRAP + "\n", "").startswith(page + "\n# OO:SHELL:START\n")
    path.write_bytes(text.encode().replace(b"\n", b"\r\n"))
    crlf = migrate_early(Document.read(path))
    assert b"\n" not in crlf.to_bytes().replace(b"\r\n", b"")


def test_our_index_gets_index_sections(tmp_path: Path, corpus_dir: Path) -> None:
    shutil.copy(corpus_dir / "agi-declared.o-o.html", tmp_path)
    write_index(tmp_path)
    path = tmp_path / "index.o-o.html"
    stale = path.read_text()
    span = find_section(Document.read(path), "js")
    assert span is not None
    old_js = "<!-- OO:JS:START -->\n<script>/* old */</script>\n<!-- OO:JS:END -->\n"
    path.write_text(stale[: span.start] + old_js + stale[span.end :])
    result = sync_dir(tmp_path, "js")
    assert _status(result)["index.o-o.html"] == "updated"
    doc = Document.read(path)
    assert doc.span_text(find_section(doc, "js")) == js_section("index")  # type: ignore[arg-type]


def test_our_new_documents_are_already_in_sync(tmp_path: Path) -> None:
    create_document(NewSpec("Tides"), tmp_path)
    assert _status(sync_dir(tmp_path)) == {"tides.o-o.html": "unchanged"}


def test_unbalanced_markers_are_an_error_for_that_file_only(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    path.write_text(path.read_text().replace("<!-- OO:JS:END -->\n", "", 1))
    before = path.read_bytes()
    result = sync_dir(corpus_copy, migrate=True)
    status = _status(result)
    assert (
        status["agi-declared.o-o.html"] == "error" and status["yc-w26-batch.o-o.html"] == "migrated"
    )
    assert path.read_bytes() == before and result.exit_code == 1


def test_migrate_early_is_a_no_op_on_marker_pages(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "agi-declared.o-o.html")
    assert migrate_early(doc) is doc


def test_crlf_documents_stay_crlf(corpus_copy: Path) -> None:
    path = corpus_copy / "agi-declared.o-o.html"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    (corpus_copy / "oo.css").write_text("h1 { color: teal }\n")
    result = sync_dir(corpus_copy)
    assert _status(result)["agi-declared.o-o.html"] == "updated"
    data = path.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")  # no bare line feed was introduced
    doc = Document.read(path)
    assert doc.span_text(find_section(doc, "js")) == js_section("document").replace("\n", "\r\n")  # type: ignore[arg-type]
    assert _status(sync_dir(corpus_copy))["agi-declared.o-o.html"] == "unchanged"


# --------------------------------------------------------------------------- CR LF in the shell
def test_fix_line_endings_gives_the_shell_lf_and_keeps_the_page_bytes(tmp_path: Path) -> None:
    from tests.support.crlf import bash_help, crlf_document, parts

    path = crlf_document(tmp_path, page=True, shell=True)
    before = path.read_bytes()
    assert bash_help(path).returncode != 0
    # without the option: nothing written, and the report says why bash fails
    report = sync_dir(tmp_path).reports[0]
    assert report.status == "unchanged" and "fix_line_endings=True" in report.note
    assert path.read_bytes() == before and not read_history(path)[:-1]
    dry = sync_dir(tmp_path, fix_line_endings=True, dry_run=True).reports[0]
    assert dry.status == "would update" and path.read_bytes() == before
    report = sync_dir(tmp_path, fix_line_endings=True).reports[0]
    assert (report.status, report.sections) == ("updated", ["line endings"])
    after = path.read_bytes()
    head, page, tail = parts(after)
    assert page == parts(before)[1] and b"\r\n" in page  # the data between: byte for byte
    assert b"\r" not in head + tail
    assert bash_help(path).stdout.startswith("Usage")
    assert path.stat().st_mode & 0o111  # still executable
    # through the store: the CR LF version is kept in history, the row names the fix
    kept = read_history(path)
    assert kept[0].snapshot is not None and kept[0].snapshot.read_bytes() == before
    assert kept[0].action.endswith("--fix-line-endings")
    assert _status(sync_dir(tmp_path, fix_line_endings=True))[path.name] == "unchanged"
    # later syncs of the shell keep LF there (the page's CR LF is no reason for CR LF in bash)
    doc = Document.read(path)
    shell = find_section(doc, "shell")
    assert shell is not None
    old = doc.replace_range(shell.start, shell.end, "# OO:SHELL:START\n# old\n# OO:SHELL:END\n")
    path.write_bytes(old.to_bytes())
    sync_dir(tmp_path, "shell")
    assert b"\r" not in b"".join(parts(path.read_bytes())[::2])


def test_fix_line_endings_on_an_early_document_without_migrating(corpus_copy: Path) -> None:
    from tests.support.crlf import parts

    path = corpus_copy / "yc-w26-batch.o-o.html"
    before = path.read_bytes().replace(b"\n", b"\r\n")
    path.write_bytes(before)
    report = next(r for r in sync_dir(corpus_copy).reports if r.rel == path.name)
    assert report.status == "early layout" and "CRLF" in report.note
    report = next(
        r for r in sync_dir(corpus_copy, fix_line_endings=True).reports if r.rel == path.name
    )
    assert (report.status, report.sections) == ("updated", ["line endings"])
    head, page, tail = parts(path.read_bytes())
    assert page == parts(before)[1] and b"\r" not in head + tail
    assert Document.read(path).layout == "early"  # not migrated: only the line endings


# --------------------------------------------------------------------------- damaged blocks
@pytest.mark.parametrize(
    ("name", "old", "new", "migrate"),
    [
        ("agi-declared.o-o.html", '"version": "2.0",', '"version": "2.0",,', False),
        ("agi-declared.o-o.html", '"version": 2,', '"version": "two",', False),
        ("yc-w26-batch.o-o.html", '"version": "2.0",', '"version": "2.0",,', True),
    ],
)
def test_sync_names_the_line_oo_check_names(
    corpus_copy: Path, name: str, old: str, new: str, migrate: bool
) -> None:
    """The error is about the file as it is on disk (not the version sync would have written,
    whose new stylesheet and script move every line below them)."""
    from oo_nb.format.check import check_path

    path = corpus_copy / name
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")
    before = path.read_bytes()
    (checked,) = [f for f in check_path(path) if f.code in ("invalid-json", "invalid-block")]
    for dry_run in (True, False):
        result = sync_dir(corpus_copy, migrate=migrate, dry_run=dry_run)
        report = next(r for r in result.reports if r.rel == name)
        assert report.status == "error" and report.note == checked.message
        assert result.exit_code == 1
    assert path.read_bytes() == before


def test_sync_names_a_hand_edited_region_it_replaces(tmp_path: Path) -> None:
    create_document(NewSpec("Tides"), tmp_path)
    path = tmp_path / "tides.o-o.html"
    doc = Document.read(path)
    span = find_section(doc, "css")
    assert span is not None
    end = doc.text.index("</style>", span.start)
    own = "#article p { color: rebeccapurple; } /* mine */\n"
    path.write_bytes(doc.replace_range(end, end, own).to_bytes())
    (report,) = sync_dir(tmp_path, dry_run=True).reports
    assert report.status == "would update" and report.sections == ["css"]
    assert "replaces hand-edited css" in report.note
    (report,) = sync_dir(tmp_path).reports
    assert "replaces hand-edited css" in report.note and own not in path.read_text()
    # this version's own code, or an earlier version's, is no hand edit
    (report,) = sync_dir(tmp_path).reports
    assert report.status == "unchanged" and report.note == ""
