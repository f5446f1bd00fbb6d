"""oo index: the scan, the page, and the update of an original index inside its markers."""

from __future__ import annotations

import re
import shutil
from datetime import date, datetime
from pathlib import Path
from urllib.parse import unquote

import pytest

from oo_nb.cli import index as index_cmd
from oo_nb.edit.contract import Edit, apply_edits
from oo_nb.edit.new import NewSpec, create_document
from oo_nb.errors import FormatError
from oo_nb.format.document import Document
from oo_nb.library.index_data import discover, quick_excerpt, scan
from oo_nb.library.index_page import (
    CONTENT_END,
    CONTENT_START,
    human_size,
    nice_date,
    render_content,
    write_index,
)
from oo_nb.store.store import read_history
from tests.conftest import CORPUS
from tests.support.bad_text import plant_lone_surrogate, undecodable_name

TODAY = date(2026, 2, 20)
NOW = datetime(2026, 2, 20, 9, 30)


def _mask(text: str) -> str:
    """The text with the content region and the two stamps blanked out."""
    start = text.index(CONTENT_START) + len(CONTENT_START)
    end = text.index(CONTENT_END)
    text = text[:start] + "@@CONTENT@@" + text[end:]
    text = re.sub(r'(<strong id="doc-count">)[^<]*(</strong>)', r"\1@@\2", text, count=1)
    return re.sub(r'(<span id="last-scan">)[^<]*(</span>)', r"\1@@\2", text, count=1)


def _hrefs(html: str) -> list[str]:
    return re.findall(r'<a class="card" href="([^"]*)"', html)


def test_original_index_updated_only_between_markers(corpus_copy: Path) -> None:
    path = corpus_copy / "index.o-o.html"
    before = path.read_text()
    result = write_index(corpus_copy, now=NOW)
    after = path.read_text()
    assert not result.created
    assert _mask(after) == _mask(before)  # every other byte is the original's
    assert '<strong id="doc-count">4</strong>' in after
    assert '<span id="last-scan">2026-02-20 09:30</span>' in after
    # the shell template after the terminator (with its own markers and blocks) is untouched
    old, new = Document.parse(before.encode()), Document.read(path)
    assert old.span_text(old.tail) == new.span_text(new.tail)
    assert new.kind == "index"
    # the original's own script sorts Size by the number in the text: sizes stay in KB
    assert re.search(r'<td class="num" data-sort="29401">29 KB</td>', after)
    history = read_history(path)
    assert history[0].snapshot is not None and history[0].snapshot.read_text() == before


def test_rebuilding_with_nothing_new_writes_nothing(corpus_copy: Path) -> None:
    write_index(corpus_copy, now=NOW)
    path = corpus_copy / "index.o-o.html"
    first = path.read_bytes()
    again = write_index(corpus_copy, now=datetime(2026, 2, 20, 10, 0))
    assert not again.changed and "already up to date" in again.to_text()
    assert path.read_bytes() == first and len(read_history(path)) == 2  # no new snapshot
    create_document(NewSpec("Tides"), corpus_copy)
    third = write_index(corpus_copy, now=datetime(2026, 2, 20, 11, 0))
    assert third.changed and '<span id="last-scan">2026-02-20 11:00</span>' in path.read_text()


def test_cards_table_badges_and_excerpts(corpus_copy: Path) -> None:
    write_index(corpus_copy, now=NOW)
    html = (corpus_copy / "index.o-o.html").read_text()
    content = html[html.index(CONTENT_START) : html.index(CONTENT_END)]
    # most recent first: agi-declared (Feb 17) before the Feb 16 ones
    assert _hrefs(content)[0] == "agi-declared.o-o.html"
    assert "index.o-o.html" not in _hrefs(content)
    assert (
        '<span class="card-badge fresh" title="Updated 2026-02-17; updates every 7 days">Feb 17, 2026</span>'
        in content
    )
    assert "Sentinel: not occurred" in content
    assert (
        "As of February 2026, no major AI company or research laboratory has made a formal, official declaration that it has achi..."
        in content
    )
    assert (
        "The LLM Landscape: Models, Benchmarks &amp; Pricing" in content
    )  # the original wrote a raw &
    for header in ("Title", "Size", "Last Updated", "Version", "Sources", "Sentinel"):
        assert (
            f'data-type="{"number" if header in ("Size", "Version", "Sources") else "date" if header == "Last Updated" else "text"}">{header}</th>'
            in content
        )


def test_stale_by_each_documents_own_cadence(corpus_copy: Path) -> None:
    apply_edits(corpus_copy / "agi-declared.o-o.html", [Edit("set", "update_every_days", "30")])
    found = scan(corpus_copy)
    by_name = {e.rel: e for e in found.entries}
    assert not by_name["agi-declared.o-o.html"].is_stale(date(2026, 3, 1))  # 12 days < 30
    assert by_name["yc-w26-batch.o-o.html"].is_stale(date(2026, 2, 23))  # 7 days, weekly
    assert not by_name["yc-w26-batch.o-o.html"].is_stale(date(2026, 2, 22))
    content = render_content(found, date(2026, 3, 1))
    assert 'card-badge fresh" title="Updated 2026-02-17; updates every 30 days"' in content
    assert 'card-badge stale" title="Updated 2026-02-16; updates every 7 days; due now"' in content


def test_links_work_for_sub_folders(corpus_copy: Path) -> None:
    sub = corpus_copy / "2026 reports" / "tech"
    sub.mkdir(parents=True)
    shutil.move(corpus_copy / "yc-w26-batch.o-o.html", sub / "yc-w26-batch.o-o.html")
    write_index(corpus_copy, now=NOW)
    html = (corpus_copy / "index.o-o.html").read_text()
    assert 'href="2026%20reports/tech/yc-w26-batch.o-o.html"' in html
    for href in set(re.findall(r'href="([^"#]*\.o-o\.html)"', html[html.index(CONTENT_START) :])):
        assert (corpus_copy / unquote(href)).is_file(), href


def test_index_files_and_history_are_left_out(corpus_copy: Path) -> None:
    apply_edits(
        corpus_copy / "agi-declared.o-o.html", [Edit("set", "budget", "3")]
    )  # makes .oo-history
    assert (corpus_copy / ".oo-history").is_dir()
    shutil.copy(corpus_copy / "index.o-o.html", corpus_copy / "index-old.o-o.html")
    (corpus_copy / "notes").mkdir()
    shutil.copy(corpus_copy / "index.o-o.html", corpus_copy / "notes" / "index.o-o.html")
    names = [p.relative_to(corpus_copy).as_posix() for p in discover(corpus_copy)]
    assert names == [
        "agi-declared.o-o.html",
        "ai-model-landscape.o-o.html",
        "anthropic-leadership.o-o.html",
        "yc-w26-batch.o-o.html",
    ]


def test_a_document_whose_name_starts_with_index_is_indexed(corpus_copy: Path) -> None:
    shutil.copy(corpus_copy / "yc-w26-batch.o-o.html", corpus_copy / "index-funds.o-o.html")
    result = write_index(corpus_copy, now=NOW)
    assert "index-funds.o-o.html" in [e.rel for e in result.scan.entries]
    assert "index.o-o.html" not in [e.rel for e in result.scan.entries] and not result.scan.errors
    assert 'href="index-funds.o-o.html"' in (corpus_copy / "index.o-o.html").read_text()


def test_a_broken_file_is_listed_and_never_stops_the_scan(corpus_copy: Path) -> None:
    (corpus_copy / "broken.o-o.html").write_text(
        "#!/usr/bin/env bash\n: << 'OO_HTML'\n<p>no terminator\n"
    )
    bad_json = (
        (corpus_copy / "agi-declared.o-o.html")
        .read_text()
        .replace('"version": 2,', '"version": 2,,', 1)
    )
    (corpus_copy / "bad-json.o-o.html").write_text(bad_json)
    result = write_index(corpus_copy, now=NOW)
    assert len(result.scan.entries) == 4
    assert [e.rel for e in result.scan.errors] == ["bad-json.o-o.html", "broken.o-o.html"]
    html = (corpus_copy / "index.o-o.html").read_text()
    assert "2 files could not be read" in html and "<code>broken.o-o.html</code>" in html
    assert "block oo-manifest, line" in html
    assert "2 file(s) could not be read" in result.to_text()


def test_a_lone_surrogate_is_listed_and_the_rest_indexed(corpus_copy: Path) -> None:
    """A "\\ud800" escape in one document stopped the whole index (the page could not be
    encoded): now it is listed as unreadable with its block and line, like any bad block."""
    data, line, _ = plant_lone_surrogate((corpus_copy / "agi-declared.o-o.html").read_bytes())
    (corpus_copy / "agi-declared.o-o.html").write_bytes(data)
    result = write_index(corpus_copy, now=NOW)
    assert len(result.scan.entries) == 3
    assert [e.rel for e in result.scan.errors] == ["agi-declared.o-o.html"]
    message = result.scan.errors[0].message
    assert message.startswith(f"block oo-manifest, line {line}, column") and "surrogate" in message
    html = (corpus_copy / "index.o-o.html").read_text("utf-8")
    assert "1 file could not be read" in html and "Y Combinator W26 Batch" in html


def test_a_file_name_that_is_not_utf8_is_indexed(tmp_path: Path) -> None:
    """A name Python holds with a surrogate escape (the byte 0xe9) made the index crash while
    quoting its link; now the link carries the byte (%E9) and the page shows U+FFFD."""
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", tmp_path / "yc.o-o.html")
    odd = undecodable_name(tmp_path)
    shutil.copy(CORPUS / "agi-declared.o-o.html", odd)
    (tmp_path / "agi.o-o.html").write_bytes(b"not a document")  # an unreadable one too
    odd.with_name(odd.name.replace(".o-o", "-broken.o-o")).write_bytes(b"nope")
    result = write_index(tmp_path, now=NOW)
    assert len(result.scan.entries) == 2 and len(result.scan.errors) == 2
    html = (tmp_path / "index.o-o.html").read_text("utf-8")
    assert 'href="caf%E9.o-o.html"' in html and "caf\ufffd-broken.o-o.html" in html
    assert unquote("caf%E9.o-o.html", errors="surrogateescape") == odd.name


def test_hostile_title_escaped_on_the_page(tmp_path: Path) -> None:
    create_document(
        NewSpec('Q&A: "AI" </script><script>alert(1)</script> $(touch pwned.txt)', "x"), tmp_path
    )
    write_index(tmp_path, now=NOW)
    html = (tmp_path / "index.o-o.html").read_text()
    assert "<script>alert(1)" not in html
    assert (
        'Q&amp;A: "AI" &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; $(touch pwned.txt)'
        in html
    )
    assert 'data-sort="q&amp;a: &quot;ai&quot; &lt;/script&gt;' in html


def test_own_page_written_when_absent_then_updated(tmp_path: Path, corpus_dir: Path) -> None:
    shutil.copy(corpus_dir / "anthropic-leadership.o-o.html", tmp_path)
    result = write_index(tmp_path, title="Leaders", now=NOW)
    assert result.created
    path = tmp_path / "index.o-o.html"
    doc = Document.read(path)
    assert doc.kind == "index" and doc.layout == "marker"
    assert path.stat().st_mode & 0o111
    text = path.read_text()
    assert '<h1 id="doc-title">Leaders</h1>' in text and '<strong id="doc-count">1</strong>' in text
    assert re.search(
        r'<td class="num" data-sort="17438">17 KB</td>', text
    )  # our script sorts by bytes
    create_document(NewSpec("Tides"), tmp_path)
    again = write_index(tmp_path, now=datetime(2026, 2, 21, 8, 0))
    assert not again.created
    text2 = path.read_text()
    assert (
        '<strong id="doc-count">2</strong>' in text2 and '<h1 id="doc-title">Leaders</h1>' in text2
    )
    assert _mask(text2) == _mask(text)
    assert '<span class="card-badge new" title="Not researched yet">New</span>' in text2


def test_empty_state(tmp_path: Path) -> None:
    result = write_index(tmp_path, now=NOW)
    html = (tmp_path / "index.o-o.html").read_text()
    assert 'class="empty-state"' in html and "<table>" not in html
    assert '<strong id="doc-count">0</strong>' in html
    assert "0 documents" in result.to_text()


def test_an_existing_non_index_file_is_not_overwritten(corpus_copy: Path) -> None:
    target = corpus_copy / "index.o-o.html"
    shutil.copy(corpus_copy / "agi-declared.o-o.html", target)
    before = target.read_bytes()
    with pytest.raises(FormatError, match="not an index page"):
        write_index(corpus_copy, now=NOW)
    assert target.read_bytes() == before


def test_eight_cards_most_recent_first(tmp_path: Path) -> None:
    for day in range(1, 11):
        doc = create_document(NewSpec(f"Doc {day:02d}"), tmp_path)
        assert doc.path is not None
        updated = doc.edit_block(
            "oo-manifest", lambda m, d=day: m.update(version=1, as_of=f"2026-02-{d:02d}")
        )
        doc.path.write_bytes(updated.to_bytes())
    write_index(tmp_path, now=NOW)
    cards = _hrefs((tmp_path / "index.o-o.html").read_text())
    assert cards == [f"doc-{d:02d}.o-o.html" for d in range(10, 2, -1)]


def test_quick_excerpt_matches_the_article_model(corpus_dir: Path) -> None:
    for path in sorted(corpus_dir.glob("*.o-o.html")):
        doc = Document.read(path)
        if doc.kind == "document":
            assert quick_excerpt(doc.article_html) == doc.article.excerpt, path.name
    samples = [
        "<h2 id='a'>A</h2><div class='intro'><!-- pid:a:12345678 --><p> First &amp; <b>bold</b> [s1] </p></div><p>second</p>",
        "<div class='table-wrap'><table><tr><td><p>in a table</p></td></tr></table></div><p>after the table</p>",
        "<ul><li><p>in a list</p></li></ul><blockquote><p>quoted</p></blockquote>",
        "<p></p><p>   </p><p>real</p>",
        "<h2>Only headings</h2>",
        # the first "</p>" is inside a script or a comment: the cut leaves the paragraph open
        '<p>abc<script>"</p>"</script> def</p><p>next</p>',
        "<!-- </p> --><p>after a comment</p>",
        '<p title="</p>">in an attribute</p>',
    ]
    from oo_nb.format.article import Article

    for html in samples:
        assert quick_excerpt(html) == Article.parse(html).excerpt, html
    assert quick_excerpt('<div class="stub-notice"><p>Not researched yet</p></div>') == ""


def test_sizes_and_dates() -> None:
    assert human_size(500) == "0.5 KB"
    assert human_size(157_696) == "154 KB"
    assert human_size(5 * 1024 * 1024) == "5.0 MB"
    assert human_size(5 * 1024 * 1024, kb_only=True) == "5120 KB"
    assert human_size(300, kb_only=True) == "1 KB"
    assert nice_date(date(2026, 2, 6)) == "Feb 6, 2026"


def test_notebook_preview_is_a_sandboxed_iframe(tmp_path: Path, corpus_dir: Path) -> None:
    create_document(NewSpec('Evil "title" <img src=x onerror=alert(1)>'), tmp_path)
    result = write_index(tmp_path, now=NOW)
    bundle = result._repr_mimebundle_()
    frame = bundle["text/html"]
    assert frame.startswith('<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" ')
    srcdoc = frame[frame.index(' srcdoc="') + len(' srcdoc="') : frame.rindex('"')]
    assert "<" not in srcdoc and '"' not in srcdoc  # fully escaped attribute value
    import html as _html

    page = _html.unescape(srcdoc)  # what the frame parses
    assert (
        "Content-Security-Policy" in page and "<img src=x onerror" not in page
    )  # cleaned, with a CSP
    assert "index.o-o.html: written; 1 document" in bundle["text/plain"]


def test_command(tmp_path: Path, corpus_dir: Path) -> None:
    import argparse

    shutil.copy(corpus_dir / "yc-w26-batch.o-o.html", tmp_path)
    parser = argparse.ArgumentParser()
    index_cmd.add_arguments(parser)
    result = index_cmd.run(parser.parse_args([str(tmp_path), "--title", "YC"]))
    assert result.exit_code == 0 and (tmp_path / "index.o-o.html").exists()


def test_a_process_pool_gives_the_same_scan(corpus_copy: Path) -> None:
    (corpus_copy / "broken.o-o.html").write_text("not a document")
    one = scan(corpus_copy, workers=1)
    two = scan(corpus_copy, workers=2)
    assert one == two
    assert len(two.entries) == 4 and [e.rel for e in two.errors] == ["broken.o-o.html"]


def test_terminator_line_in_a_title_cannot_break_an_existing_index(tmp_path: Path) -> None:
    """Regression: the update path of an existing index spliced cards without neutralising a
    line equal to the heredoc terminator, so the index could no longer be rebuilt."""
    import subprocess as _sp
    import sys as _sys

    from oo_nb.format.document import Document as _Document

    lib = tmp_path / "lib"
    _sp.run([_sys.executable, "-m", "oo_nb", "demo", str(lib), "--quiet"], check=True)
    _sp.run([_sys.executable, "-m", "oo_nb", "index", str(lib)], check=True, capture_output=True)
    doc_path = next(p for p in sorted(lib.glob("*.o-o.html")) if not p.name.startswith("index"))
    doc = _Document.read(doc_path)
    hostile = doc.edit_block(
        "oo-manifest", lambda m: m.update(title="Heat\nOO_HTML\ntouch pwned.txt\nx")
    )
    doc_path.write_bytes(hostile.to_bytes())
    r = _sp.run([_sys.executable, "-m", "oo_nb", "index", str(lib)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    index = _Document.read(lib / "index.o-o.html")
    assert "\nOO_HTML\n" not in index.span_text(index.html)
    _sp.run(
        ["bash", str(lib / "index.o-o.html"), "--help"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert not (tmp_path / "pwned.txt").exists()
