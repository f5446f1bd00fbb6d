"""Regression tests for the core bugs the hardening fuzzer found (one test per fix)."""

from __future__ import annotations

import errno
import os
import shutil
import unittest.mock
from pathlib import Path

import pytest

from oo_nb.errors import BlockError, FormatError, OOError, ValidationError
from oo_nb.format.document import Document, neutralise_terminator
from oo_nb.store.store import (
    history_dir,
    load_pending,
    read_history,
    save_pending,
    version_bytes,
    write_document,
)
from tests.conftest import CORPUS


@pytest.fixture
def doc() -> Document:
    return Document.read(CORPUS / "yc-w26-batch.o-o.html")


def _with_raw_manifest(doc: Document, body: str) -> Document:
    span = doc.blocks["oo-manifest"]
    return Document(doc.text[: span.start] + body + doc.text[span.end :])


@pytest.mark.parametrize("depth", [100, 700, 5000])
def test_deeply_nested_json_is_a_block_error_not_recursion_error(doc: Document, depth: int) -> None:
    broken = _with_raw_manifest(doc, '{"a": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(BlockError, match="nested deeper"):
        _ = broken.manifest


def test_nesting_of_real_blocks_still_reads(doc: Document) -> None:
    ok = _with_raw_manifest(doc, '{"version": 3, "a": ' + "[" * 20 + "]" * 20 + "}")
    assert ok.manifest.version == 3


def test_manifest_changelog_of_wrong_type_is_ignored(doc: Document) -> None:
    m = doc.with_block("oo-manifest", {"title": "x", "version": 2, "changelog": 5}).manifest
    assert m.changelog_notes == ()


def test_procedure_of_wrong_type_does_not_crash_the_contract(doc: Document) -> None:
    c = doc.with_block("oo-contract", {"instructions": {"procedure": 5}}).contract
    assert c.sentinel is None


@pytest.mark.parametrize("budget", ["inf", "-inf", "nan", 10**400])
def test_non_finite_budget_is_refused(doc: Document, budget: object) -> None:
    # An infinite budget would let an update spend without limit.
    bad = doc.with_block("oo-contract", {"budget": {"max_cost_usd": budget}})
    with pytest.raises(ValidationError, match="finite"):
        _ = bad.contract


def test_budget_of_1e400_in_the_file_is_refused(doc: Document) -> None:
    span = doc.blocks["oo-contract"]
    text = doc.text[: span.start] + '{"budget": {"max_cost_usd": 1e400}}' + doc.text[span.end :]
    with pytest.raises(ValidationError, match="finite"):
        _ = Document(text).contract


def test_budget_as_text_still_reads(doc: Document) -> None:
    assert (
        doc.with_block("oo-contract", {"budget": {"max_cost_usd": "$1.25"}}).contract.max_cost_usd
        == 1.25
    )


@pytest.mark.parametrize("value", [{"x": float("nan")}, {"x": {1, 2}}, {"x": float("inf")}])
def test_unwritable_block_values_raise_validation_error(doc: Document, value: object) -> None:
    with pytest.raises(ValidationError, match="cannot be written as JSON"):
        doc.with_block("oo-manifest", value)


def test_lone_surrogate_is_refused_before_anything_is_built(doc: Document) -> None:
    # JSON from an API may carry "\ud800"; encoding it later would fail in the middle of a write.
    with pytest.raises(FormatError, match="UTF-8"):
        doc.with_block("oo-manifest", {"title": "\ud800"})
    with pytest.raises(FormatError, match="UTF-8"):
        doc.with_article("<p>\udc80</p>")
    with pytest.raises(FormatError, match="UTF-8"):
        Document(doc.text.replace("Overview", "\ud800", 1)).to_bytes()


def test_article_html_cannot_close_the_article_early(doc: Document) -> None:
    hostile = '<p>a</p></article><script>alert(1)</script><article id="article">'
    with pytest.raises(FormatError, match="closes or reopens"):
        doc.with_article(hostile)
    with pytest.raises(OOError):
        doc.with_article("<p>a</p></article><p>outside</p>")


def test_article_edit_still_sets_exactly_the_new_html(doc: Document) -> None:
    new = doc.with_article("\n<p>one</p>\nOO_HTML\n")
    again = Document.parse(new.to_bytes())
    assert again.article_html == "\n<p>one</p>\n<!---->OO_HTML\n"
    crlf = Document.parse(doc.to_bytes().replace(b"\n", b"\r\n"))
    assert (
        Document.parse(crlf.with_article("<p>a</p>\n<p>b</p>").to_bytes()).article_html
        == "<p>a</p>\r\n<p>b</p>"
    )


def test_tab_indented_terminator_is_neutralised() -> None:
    # Under a `<<-` opener bash strips leading tabs, so "\tOO_HTML" would end the heredoc.
    assert neutralise_terminator("a\n\tOO_HTML\nb") == "a\n<!---->\tOO_HTML\nb"
    assert neutralise_terminator("a\n OO_HTML\nb") == "a\n OO_HTML\nb"


@pytest.mark.parametrize("call", ["fsync", "replace"])
def test_disk_full_during_write_is_an_ooerror_that_says_the_file_is_unchanged(
    tmp_path: Path, call: str
) -> None:
    path = tmp_path / "yc-w26-batch.o-o.html"
    shutil.copy(CORPUS / path.name, path)
    before = path.read_bytes()
    new = Document.read(path).edit_block("oo-manifest", lambda m: {**m, "version": 77})

    def disk_full(*args: object, **kw: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with (
        unittest.mock.patch.object(os, call, disk_full),
        pytest.raises(OOError, match=r"No space left.*unchanged"),
    ):
        write_document(new, expected=before)
    assert path.read_bytes() == before


@pytest.fixture
def with_history(tmp_path: Path) -> Path:
    path = tmp_path / "yc-w26-batch.o-o.html"
    shutil.copy(CORPUS / path.name, path)
    before = path.read_bytes()
    write_document(
        Document.read(path).edit_block("oo-manifest", lambda m: {**m, "version": 50}),
        expected=before,
    )
    save_pending(path, Document.read(path), {"agent": "test"}, path.read_bytes())
    return path


@pytest.mark.parametrize(
    "line",
    [
        '"just a string"',
        "[1, 2]",
        '{"seq": 1}',
        '{"seq": "1", "file": "a.snap", "sha256": "x"}',
        '{"seq": 1, "file": "../../outside.snap", "sha256": "x"}',
        '{"seq": 1, "file": "a.snap", "sha256": "x", "version": "2"}',
    ],
)
def test_damaged_history_log_rows_are_format_errors(with_history: Path, line: str) -> None:
    log = history_dir(with_history) / "log.jsonl"
    log.write_text(log.read_text("utf-8") + line + "\n", "utf-8")
    with pytest.raises(FormatError, match="line 2"):
        read_history(with_history)
    new = Document.read(with_history).edit_block("oo-manifest", lambda m: {**m, "version": 51})
    with pytest.raises(FormatError):  # no write on top of a history it cannot extend
        write_document(new, expected=with_history.read_bytes())


def test_history_log_that_is_not_utf8_is_a_format_error(with_history: Path) -> None:
    log = history_dir(with_history) / "log.jsonl"
    log.write_bytes(log.read_bytes() + b"\xff\n")
    with pytest.raises(FormatError, match="UTF-8"):
        read_history(with_history)


def test_missing_snapshot_is_a_format_error(with_history: Path) -> None:
    for snap in (history_dir(with_history) / "snapshots").iterdir():
        snap.unlink()
    version = Document.read(CORPUS / with_history.name).manifest.version
    with pytest.raises(FormatError, match="missing"):
        version_bytes(with_history, version)


@pytest.mark.parametrize(
    "content",
    [
        b"[]",
        b'{"candidate": 5, "base_sha256": "x"}',
        b'{"candidate": "x"}',
        b"\xff\xfe",
        b'{"candidate": "no doc", "base_sha256": "x"}',
    ],
)
def test_damaged_pending_proposal_is_a_format_error(with_history: Path, content: bytes) -> None:
    (history_dir(with_history) / "pending.json").write_bytes(content)
    with pytest.raises(FormatError, match="saved proposal is damaged"):
        load_pending(with_history)


def test_a_document_under_an_unquoted_heredoc_opener_is_refused(doc: Document) -> None:
    # `: << OO_HTML` (unquoted) makes bash expand $(…) in the page: the text already there, and
    # any an edit would add, would run. The document is refused as it is read, with the fix.
    with pytest.raises(FormatError, match=r"unquoted.*: << 'OO_HTML'"):
        Document(doc.text.replace(": << 'OO_HTML'", ": << OO_HTML", 1))
    assert "$(" in doc.with_article("<p>$(x)</p>").article_html  # quoted opener: inert text
