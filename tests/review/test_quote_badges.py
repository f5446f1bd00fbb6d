"""The review shows the quote check (issue 16): a badge on each quoted fact, a badge on the
paragraph citing a source whose new fact's quote was not found, and the API's cited passages
beside the paragraphs citing those pages."""

from __future__ import annotations

from pathlib import Path

from oo_nb.agent.pending import open_review
from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
from oo_nb.review.diff import diff_documents
from oo_nb.review.terminal import render_diff
from tests.support.agent_helpers import MARKER, copy_doc, start_mock
from tests.support.mock_scenarios import research_scenario


def test_fact_and_paragraph_badges_and_cited_passages(tmp_path: Path) -> None:
    mock = start_mock(research_scenario(with_image=False, unsupported_quote=True))
    try:
        path = copy_doc(tmp_path)
        opts = UpdateOptions(force=True, agent="anthropic", api_key=MARKER, base_url=mock.base_url)
        write_result(prepare_update(path, opts), yes=False)
    finally:
        mock.stop()
    review = open_review(path)
    diff = diff_documents(review.original, review.candidate, review.run)
    facts = [h for h in diff.hunks if h.area == "facts" and h.kind == "added"]
    assert [h.badges for h in facts] == [("quote found",), ("quote not found",)]
    paragraphs = [h for h in diff.hunks if h.area == "article" and "[s" in h.after_html]
    flagged = [h for h in paragraphs if any("quote not found" in b for b in h.badges)]
    assert len(flagged) == 1 and "citing s" in flagged[0].badges[0]
    assert any("The latest developments" in c for c in flagged[0].cited)
    text = render_diff(diff)
    assert "! quote not found" in text and "= quote found" in text
    assert "> cited [s" in text
    assert diff.to_dict()["hunks"][flagged[0].index]["badges"] == list(flagged[0].badges)


def test_hostile_citations_in_a_saved_run_are_ignored_not_fatal(tmp_path: Path) -> None:
    mock = start_mock(research_scenario(with_image=False))
    try:
        path = copy_doc(tmp_path)
        opts = UpdateOptions(force=True, agent="anthropic", api_key=MARKER, base_url=mock.base_url)
        write_result(prepare_update(path, opts), yes=False)
    finally:
        mock.stop()
    review = open_review(path)
    run = dict(review.run, citations=[1, ["x"], [None, "y"], {"a": "b"}, "z"])
    diff = diff_documents(review.original, review.candidate, run)
    assert all(not h.cited for h in diff.hunks)
