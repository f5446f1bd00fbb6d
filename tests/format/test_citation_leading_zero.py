"""``[s02]`` is read as the page's script links it (issue 26, left from the s34 attack): as a
citation of s2, the source References entry 2 holds. The model, ``oo check``, the audit, the
agent's renumbering and the review's scrub all read it so."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from oo_nb.agent.sources import remap_citations
from oo_nb.format.article_model import read_model
from oo_nb.format.check import check_path
from oo_nb.format.vocab import CITATION, citation_ids, cited_id, cited_label, entry_source
from oo_nb.library.library import Library
from tests.support.tiny_docs import page, source


def test_a_leading_zero_names_the_source_of_that_number() -> None:
    assert citation_ids("[s02] [S002] [s2]") == ["s2"]
    assert citation_ids("[s0] [s00]") == ["s0"]
    assert entry_source("[s03] Report") == "s3"


def test_the_page_looks_a_citation_up_by_its_own_label() -> None:
    m = CITATION.search("[S02]")
    assert m is not None and cited_label(m) == "s02" and cited_id(m) == "s2"


def test_the_model_counts_s02_as_a_citation_of_s2() -> None:
    model = read_model("<p>Claim [s02].</p>")
    assert [c.source_id for c in model.citations] == ["s2"]


def _written(tmp_path: Path) -> Path:
    doc = page([("00000001", "One [s1]."), ("00000002", "Two [s02].")], [source(1), source(2)])
    path = tmp_path / "tides.o-o.html"
    path.write_text(doc.text, "utf-8")
    return path


def test_check_finds_the_source_s02_cites(tmp_path: Path) -> None:
    found = [f for f in check_path(_written(tmp_path)) if f.code == "unresolved-citation"]
    assert found == []


def test_the_audit_calls_s2_cited_and_s02_resolved(tmp_path: Path) -> None:
    _written(tmp_path)
    findings = Library(tmp_path, today=date(2026, 1, 2), workers=1).audit(all=True)
    codes = set(findings["code"])
    assert "unresolved-citation" not in codes and "uncited-source" not in codes


def test_a_renumbering_rewrites_s02_with_s2() -> None:
    text, removed = remap_citations("A [s02]. B [s2]. C [s03].", {"s2": "s7", "s3": None})
    assert text == "A [s7]. B [s7]. C." and removed == ["s3"]
