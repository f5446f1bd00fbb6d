from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from oo_nb.errors import BlockError, FormatError, ValidationError
from oo_nb.format.document import Document, neutralise_terminator, read_regular
from tests.conftest import ALL_NAMES, CORPUS, DOC_NAMES


@pytest.mark.parametrize("name", ALL_NAMES)
def test_corpus_round_trips_byte_for_byte(name: str) -> None:
    data = (CORPUS / name).read_bytes()
    doc = Document.parse(data)
    assert doc.to_bytes() == data
    # Re-encoding the text is identical too (not only the cached input bytes).
    assert doc.text.encode("utf-8") == data


@pytest.mark.parametrize("name", DOC_NAMES)
def test_blocks_are_taken_from_the_first_heredoc_only(name: str) -> None:
    doc = Document.read(CORPUS / name)
    assert set(doc.blocks) == {"oo-manifest", "oo-contract", "oo-source-cache", "oo-changelog"}
    for span in doc.blocks.values():
        assert span.end <= doc.terminator.start
    # The template after the terminator says version 0; the real manifest does not.
    assert doc.manifest.version >= 1


@pytest.mark.parametrize("name", DOC_NAMES)
def test_changing_version_changes_only_manifest_bytes(name: str) -> None:
    doc = Document.read(CORPUS / name)
    new = doc.edit_block("oo-manifest", lambda m: m.update(version=m["version"] + 1))
    span = doc.blocks["oo-manifest"]
    new_span = new.blocks["oo-manifest"]
    assert new.text[: span.start] == doc.text[: span.start]
    assert new.text[new_span.end :] == doc.text[span.end :]
    assert new.manifest.version == doc.manifest.version + 1
    assert new.manifest.title == doc.manifest.title


def test_corrupt_template_after_terminator_does_not_disturb_reading() -> None:
    data = (CORPUS / "agi-declared.o-o.html").read_text("utf-8")
    head, sep, tail = data.partition("\nOO_HTML\n")
    broken_tail = tail.replace('{"title": "__TITLE__"', '{"title": <<<broken').replace(
        "</script>", "", 2
    )
    doc = Document.parse((head + sep + broken_tail).encode())
    assert doc.manifest.title == "AGI Declared"
    assert doc.manifest.version == 2


def test_layouts_and_kinds() -> None:
    assert Document.read(CORPUS / "agi-declared.o-o.html").layout == "marker"
    assert Document.read(CORPUS / "yc-w26-batch.o-o.html").layout == "early"
    index = Document.read(CORPUS / "index.o-o.html")
    assert index.kind == "index"
    assert index.blocks == {}


def test_crlf_documents_round_trip_and_edit_keeps_crlf() -> None:
    data = (CORPUS / "yc-w26-batch.o-o.html").read_bytes().replace(b"\n", b"\r\n")
    doc = Document.parse(data)
    assert doc.to_bytes() == data
    assert doc.newline == "\r\n"
    assert doc.manifest.title == "Y Combinator W26 Batch"
    new = doc.edit_block("oo-manifest", lambda m: m.update(version=9)).to_bytes()
    assert b"\n" not in new.replace(b"\r\n", b"")
    assert Document.parse(new).manifest.version == 9


def test_missing_closing_tags_are_read() -> None:
    doc = Document.read(CORPUS / "anthropic-leadership.o-o.html")
    assert "</html>" not in doc.span_text(doc.html)
    assert doc.changelog.form == "array"


def test_non_ascii_text_round_trips() -> None:
    data = (CORPUS / "yc-w26-batch.o-o.html").read_text("utf-8")
    data = data.replace("Y Combinator W26 Batch</h1>", "Zürich — 東京 ✓ Batch</h1>")
    doc = Document.parse(data.encode())
    assert doc.to_bytes() == data.encode()
    new = doc.edit_block("oo-manifest", lambda m: m.update(title="Zürich — 東京"))
    assert "Zürich — 東京" in new.text
    assert new.manifest.title == "Zürich — 東京"


def test_liki_documents_are_read() -> None:
    data = (CORPUS / "yc-w26-batch.o-o.html").read_text("utf-8")
    liki = data.replace("'OO_HTML'", "'LIKI_HTML'").replace("\nOO_HTML\n", "\nLIKI_HTML\n", 1)
    liki = liki.replace('id="oo-', 'id="liki-')
    doc = Document.parse(liki.encode())
    assert doc.marker == "LIKI_HTML"
    assert doc.manifest.title == "Y Combinator W26 Batch"
    assert doc.to_bytes() == liki.encode()


def test_invalid_json_names_file_block_line_and_column(tmp_path: Path) -> None:
    data = (CORPUS / "yc-w26-batch.o-o.html").read_text("utf-8")
    bad = data.replace('"version": 1,', '"version": 1,,', 1)
    p = tmp_path / "bad.o-o.html"
    p.write_text(bad, "utf-8")
    doc = Document.read(p)
    with pytest.raises(BlockError) as info:
        _ = doc.manifest
    err = info.value
    assert err.block == "oo-manifest" and err.file == str(p)
    line = bad[: bad.index('"version": 1,,')].count("\n") + 1
    assert err.line == line
    assert err.column is not None
    assert f"line {line}" in str(err)


def _located(text: str, needle: str) -> tuple[int, int]:
    """Line and column (1-based) of ``needle`` in ``text``."""
    at = text.index(needle)
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def test_a_wrong_value_names_its_line_and_column(tmp_path: Path) -> None:
    data = (CORPUS / "ai-model-landscape.o-o.html").read_text("utf-8")
    bad = data.replace('"version": 1,', '"version": "one",', 1)
    doc = Document.parse(bad.encode(), path=str(tmp_path / "badver.o-o.html"))
    with pytest.raises(ValidationError) as info:
        _ = doc.manifest
    err = info.value
    assert (err.line, err.column) == _located(bad, '"one"') == (223, 14)
    assert str(err).endswith(
        "block oo-manifest, line 223, column 14, key 'version': must be a whole number, found 'one'"
    )


def test_a_wrong_nested_value_names_its_line(tmp_path: Path) -> None:
    data = (CORPUS / "agi-declared.o-o.html").read_text("utf-8")
    bad = data.replace('"facts": [', '"facts": [7, ', 1)
    with pytest.raises(ValidationError) as info:
        _ = Document.parse(bad.encode()).source_cache
    err = info.value
    assert err.key == "facts[0]"  # no trailing dot
    assert (err.line, err.column) == _located(bad, "7, ")
    budget = data.replace('"max_cost_usd": ', '"max_cost_usd": -', 1)
    with pytest.raises(ValidationError) as info:
        _ = Document.parse(budget.encode()).contract
    assert info.value.key == "budget.max_cost_usd"
    assert (info.value.line, info.value.column) == _located(budget, "-5.00")


def test_invalid_json_on_the_block_s_first_line_keeps_its_file_column() -> None:
    data = (CORPUS / "yc-w26-batch.o-o.html").read_text("utf-8")
    start = data.index('<script id="oo-changelog"')
    end = data.index("</script>", start)
    tag = data[start : data.index(">", start) + 1]
    bad = data[:start] + tag + '{"entries": [],,}' + data[end:]
    with pytest.raises(BlockError) as info:
        _ = Document.parse(bad.encode()).changelog
    line, column = _located(bad, ",,}")
    assert (info.value.line, info.value.column) == (line, column + 1)  # the second comma


def test_not_a_document_and_no_terminator() -> None:
    with pytest.raises(FormatError, match="heredoc opener"):
        Document.parse(b"<!DOCTYPE html><html></html>")
    with pytest.raises(FormatError, match="terminator"):
        Document.parse(b"#!/usr/bin/env bash\n: << 'OO_HTML'\n<html></html>\n")
    with pytest.raises(FormatError, match="UTF-8"):
        Document.parse(b"#!/usr/bin/env bash\n: << 'OO_HTML'\n\xff\nOO_HTML\n")


def test_duplicate_block_in_page_is_an_error() -> None:
    data = (CORPUS / "yc-w26-batch.o-o.html").read_text("utf-8")
    block = '<script id="oo-changelog" type="application/json">[]</script>\n'
    dup = data.replace("<!-- CHANGELOG -->", block + "<!-- CHANGELOG -->")
    with pytest.raises(BlockError, match="twice"):
        Document.parse(dup.encode())


def test_script_in_json_string_cannot_end_the_block() -> None:
    doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")
    hostile = "x</script><script>alert(1)</script><!--"
    new = doc.edit_block("oo-manifest", lambda m: m.update(title=hostile))
    text = new.block_text("oo-manifest")
    assert "</script" not in text and "<!--" not in text
    assert json.loads(text)["title"] == hostile
    assert Document.parse(new.to_bytes()).manifest.title == hostile


def test_article_line_oo_html_is_neutralised_and_bash_runs_only_our_shell(tmp_path: Path) -> None:
    import subprocess

    doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")
    evil = "<p>before</p>\nOO_HTML\ntouch pwned.txt\n<p>after</p>\n"
    new = doc.with_article(evil)
    assert "\nOO_HTML\n" not in new.span_text(new.html)
    assert new.article_html.count("<!---->OO_HTML") == 1
    p = tmp_path / "doc.o-o.html"
    p.write_bytes(new.to_bytes())
    subprocess.run(["bash", str(p)], cwd=tmp_path, capture_output=True, timeout=30)
    assert not (tmp_path / "pwned.txt").exists()


def test_edit_that_would_break_the_document_is_refused() -> None:
    doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")
    span = doc.article_span
    assert span is not None
    with pytest.raises(FormatError, match="break"):
        doc.replace_range(span.start, span.end, "</article><script>")


def test_neutralise_terminator_only_touches_exact_lines() -> None:
    assert (
        neutralise_terminator("a\nOO_HTML\n OO_HTML\nOO_HTMLx")
        == "a\n<!---->OO_HTML\n OO_HTML\nOO_HTMLx"
    )


def test_every_lt_in_json_is_escaped_but_close_tags_read_as_written() -> None:
    doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")
    new = doc.edit_block("oo-manifest", lambda m: m.update(title="a<script>b<!--c</x>"))
    text = new.block_text("oo-manifest")
    assert "<script" not in text and "<!--" not in text and "<\\/x>" in text
    assert new.manifest.title == "a<script>b<!--c</x>"


@pytest.mark.parametrize("where", ["header", "article", "tail"])
def test_a_nul_is_refused_with_its_line_from_bytes_and_from_text(where: str) -> None:
    page = (CORPUS / "agi-declared.o-o.html").read_text()
    at = {"header": 3, "article": page.index("</article>"), "tail": len(page) - 2}[where]
    text = page[:at] + "x\x00y" + page[at:]
    line = text.count("\n", 0, at) + 1
    for make in (lambda: Document.parse(text.encode()), lambda: Document(text)):
        with pytest.raises(FormatError, match="NUL byte") as caught:
            make()
        assert caught.value.line == line


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs fifos")
def test_a_fifo_or_device_where_a_document_was_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.o-o.html"
    os.mkfifo(fifo)  # no writer: a blocking open or read would wait for ever
    with pytest.raises(FormatError, match="cannot read: not a plain file") as refused:
        Document.read(fifo)
    assert refused.value.file == str(fifo)
    if Path("/dev/zero").exists():
        with pytest.raises(OSError, match="not a plain file"):
            read_regular("/dev/zero")  # would never end
    with pytest.raises(FormatError, match="cannot read: Is a directory"):
        Document.read(tmp_path)
    page = CORPUS / "agi-declared.o-o.html"
    assert read_regular(page) == page.read_bytes()
