"""Documents still on the original o-o page script: found, and what it would turn into markup."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.edit.new import NewSpec, create_document
from oo_nb.edit.sync import migrate_early
from oo_nb.format.document import Document
from oo_nb.format.legacy_script import inert_heading_text, injection_risks, runs_original_script
from tests.conftest import CORPUS, DOC_NAMES

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.mark.parametrize("name", DOC_NAMES)
def test_original_documents_are_on_the_original_script(name: str) -> None:
    assert runs_original_script(Document.read(CORPUS / name))


def test_index_pages_and_our_documents_are_not(tmp_path: Path) -> None:
    assert not runs_original_script(Document.read(CORPUS / "index.o-o.html"))
    assert not runs_original_script(create_document(NewSpec("Ours"), tmp_path))


def test_a_migrated_document_is_on_our_script() -> None:
    doc = Document.read(CORPUS / "anthropic-leadership.o-o.html")
    assert doc.layout == "early"
    assert not runs_original_script(migrate_early(doc))


def test_risks_name_each_value_holding_markup() -> None:
    doc = Document.read(CORPUS / "ai-model-landscape.o-o.html")
    assert injection_risks(doc) == []
    doc = doc.edit_block("oo-contract", lambda c: c["identity"].update(scope=HOSTILE))
    heading = '<h2 id="x-risk">Models &lt;img src=x onerror=alert(1)&gt;</h2>\n<p>Text.</p>\n'
    article = doc.span_text(doc.article_span)
    doc = doc.with_article(article + heading)
    risks = injection_risks(doc)
    assert [r.where for r in risks] == ["contract scope", "heading #x-risk"]
    assert all("original page script" in r.describe() for r in risks)


def test_no_risks_reported_once_migrated() -> None:
    doc = Document.read(CORPUS / "anthropic-leadership.o-o.html")
    doc = doc.edit_block("oo-contract", lambda c: c["identity"].update(scope=HOSTILE))
    assert injection_risks(doc) and not injection_risks(migrate_early(doc))


def test_inert_heading_text_keeps_meaning_without_markup() -> None:
    assert inert_heading_text("a < b > c") == "a \uff1c b \uff1e c"
    assert "<" not in inert_heading_text(HOSTILE)


def test_oo_check_warns_about_values_the_original_script_would_inject(tmp_path: Path) -> None:
    from oo_nb.format.check import check_path

    doc = Document.read(CORPUS / "ai-model-landscape.o-o.html")
    path = tmp_path / "a.o-o.html"
    path.write_bytes(
        doc.edit_block("oo-contract", lambda c: c["identity"].update(tone=HOSTILE)).to_bytes()
    )
    found = [f for f in check_path(path) if f.code == "html-injection"]
    assert len(found) == 1 and found[0].severity == "warning"
    assert "contract tone" in found[0].message and "--migrate" in found[0].message
    path.write_bytes(migrate_early(Document.read(path)).to_bytes())
    assert not [f for f in check_path(path) if f.code == "html-injection"]


def test_a_contract_edit_warns_when_the_value_would_be_injected(tmp_path: Path) -> None:
    from oo_nb.edit.contract import Edit, apply_edits

    path = tmp_path / "a.o-o.html"
    path.write_bytes((CORPUS / "ai-model-landscape.o-o.html").read_bytes())
    result = apply_edits(path, [Edit("set", "scope", HOSTILE)])
    assert result.written and Document.read(path).contract.scope == HOSTILE  # written as given
    assert any("contract scope" in n and "--migrate" in n for n in result.notes)
    assert "warning:" in result.to_text()
    quiet = apply_edits(path, [Edit("set", "tone", "plain")])
    assert not any("original page script" in n for n in quiet.notes)  # only new risks are news
