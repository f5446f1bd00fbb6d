"""Issue 12, part 2: sections can be removed, never silently. ``drop_sections`` in
``submit_proposal`` (through the loopback mock) and a section gone from Claude Code's edited copy
(through the fake ``claude``) both become one reviewable "removed section" change; accepted, the
section leaves the article (the page builds its TOC from the h2s), its sources stay in the
cache; rejected, every byte stays. A section the contract still requires is not removed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.backends.conversation import SUBMIT_TOOL
from oo_nb.agent.context import build_context
from oo_nb.agent.pending import open_review
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.run import UpdateOptions, prepare_update
from oo_nb.cli.main import main
from oo_nb.errors import AgentError
from oo_nb.format.document import Document
from oo_nb.review.session import ReviewSession
from oo_nb.review.terminal import render_diff
from tests.support.agent_helpers import MARKER, TODAY, start_mock
from tests.support.fake_claude import fake_claude_env
from tests.support.mock_api import MockAPI
from tests.support.mock_scenarios import research_scenario

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "issue12"
DOC = "refs-outlet-footer.o-o.html"
PRICING = "pricing-comparison"  # cites s8 (and s1); the contract requires "Pricing Comparison"


def copy_fixture(tmp_path: Path) -> Path:
    target = tmp_path / DOC
    shutil.copyfile(FIXTURES / DOC, target)
    return target


def h2_ids(doc: Document) -> list[str]:
    return [s.id for s in doc.article.sections if s.level == 2]


def no_longer_required(path: Path, title: str = "Pricing Comparison") -> None:
    assert main(["contract", str(path), "--remove", "section", title]) == 0


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Any:
    mock = start_mock()
    drops: list[str] = []

    def with_drops(proposal: dict[str, Any]) -> dict[str, Any]:
        return {**proposal, "drop_sources": [], "drop_sections": list(drops)}

    mock.responder = research_scenario(with_image=False, proposal=with_drops, strict_schema=True)
    mock.drops = drops  # type: ignore[attr-defined]
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    yield mock
    mock.stop()


def test_the_mock_refuses_a_field_the_schema_does_not_declare(
    api: MockAPI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What makes the other tests here prove that ``drop_sections`` is declared."""
    from oo_nb.agent.backends import conversation

    schema = dict(conversation.SUBMIT_TOOL["input_schema"])
    schema["properties"] = {k: v for k, v in schema["properties"].items() if k != "drop_sections"}
    monkeypatch.setitem(conversation.SUBMIT_TOOL, "input_schema", schema)
    path = copy_fixture(tmp_path)
    assert main(["update", str(path), "--force"]) != 0
    out = capsys.readouterr()
    assert "schema does not declare: drop_sections" in out.out + out.err


def test_schema_and_validation_accept_drop_sections() -> None:
    props = SUBMIT_TOOL["input_schema"]["properties"]
    assert props["drop_sections"] == {"type": "array", "items": {"type": "string"}}
    p = validate_proposal(
        {"summary": "s", "sections": [], "drop_sections": ["pricing-comparison", "x", "x"]}
    )
    assert p.drop_sections == p.removes_sections == ("pricing-comparison", "x")
    assert validate_proposal(p.to_json()) == p  # kept in the pending file
    assert "drop_sections" not in validate_proposal({"summary": "s", "sections": []}).to_json()
    with pytest.raises(AgentError, match=r"drop_sections\[0\]"):
        validate_proposal({"summary": "s", "sections": [], "drop_sections": ["<h2>"]})


def test_the_prompt_names_sections_the_contract_no_longer_requires(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path)
    before = build_context(Document.read(path), today=TODAY)
    assert "drop_sections" in before.system and "no longer requires" not in before.user
    no_longer_required(path)
    after = build_context(Document.read(path), today=TODAY)
    line = next(x for x in after.user.splitlines() if "no longer requires" in x)
    assert "pricing-comparison (Pricing Comparison)" in line and "drop_sections" in line
    assert "overview" not in line and "references" not in line


def test_drop_sections_accepted_removes_the_section_and_keeps_its_sources(
    api: MockAPI, tmp_path: Path
) -> None:
    path = copy_fixture(tmp_path)
    no_longer_required(path)
    before = Document.read(path)
    api.drops.append(PRICING)  # type: ignore[attr-defined]
    assert main(["update", str(path), "--force"]) == 0
    review = open_review(path)
    assert review.run["sections_removed"] == [PRICING]
    assert PRICING not in h2_ids(review.candidate) and PRICING in h2_ids(before)
    session = ReviewSession(review.original, review.candidate, review.run)
    (removal,) = [h for h in session.diff.decidable if h.whole_section]
    assert removal.key == PRICING and removal.title == "removed section · Pricing Comparison"
    assert session.diff.summary.sections_removed == (PRICING,)
    shown = render_diff(session.diff)
    assert "removed: removed section · Pricing Comparison" in shown
    assert "- Pricing Comparison" in shown and "sections removed: pricing-comparison" in shown
    # accepted (as `oo review --accept-all` does): gone from the article, so from the TOC
    assert main(["review", str(path), "--accept-all"]) == 0
    after = Document.read(path)
    assert PRICING not in h2_ids(after) and 'id="pricing-frontier-tier"' not in after.article_html
    assert set(before.source_cache.by_id()) <= set(after.source_cache.by_id())  # s8 stays
    latest = after.changelog.latest
    assert latest is not None and latest.extra.get("sections_removed") == [PRICING]


def test_drop_sections_rejected_keeps_every_byte(api: MockAPI, tmp_path: Path) -> None:
    path = copy_fixture(tmp_path)
    no_longer_required(path)
    before = Document.read(path)
    api.drops.append(PRICING)  # type: ignore[attr-defined]
    assert main(["update", str(path), "--force"]) == 0
    review = open_review(path)
    session = ReviewSession(review.original, review.candidate, review.run)
    session.accept_all()
    (removal,) = [h for h in session.diff.decidable if h.whole_section]
    session.reject(removal.id)
    final = session.apply()
    start = before.article_html.index('<h2 id="pricing-comparison">')
    end = before.article_html.index("<!-- pid:", before.article_html.index("<h2", start + 4) - 40)
    assert before.article_html[start:end] in final.article_html
    assert "recent-developments" in h2_ids(final)  # the rest of the update still applies
    latest = final.changelog.latest
    assert latest is not None and "sections_removed" not in latest.extra  # not what happened


def test_a_required_section_is_not_removed(api: MockAPI, tmp_path: Path) -> None:
    path = copy_fixture(tmp_path)
    api.drops.extend([PRICING, "references", "no-such-section"])  # type: ignore[attr-defined]
    assert main(["update", str(path), "--force"]) == 0
    review = open_review(path)
    assert h2_ids(review.candidate)[:-2] == h2_ids(Document.read(path))[:-1]
    warnings = " | ".join(review.run["warnings"])
    assert (
        "drop_sections: 'pricing-comparison' not removed: the contract requires it "
        '(to allow its removal: oo contract DOC --remove section "Pricing Comparison")'
    ) in warnings
    assert "'references' not removed" in warnings and "'no-such-section' not removed" in warnings
    assert "sections_removed" not in review.run
    session = ReviewSession(review.original, review.candidate, review.run)
    assert not [h for h in session.diff.hunks if h.whole_section]


def _claude_update(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, section: str) -> Any:
    for key, value in fake_claude_env(tmp_path / "fake").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "drop-section")
    monkeypatch.setenv("FAKE_CLAUDE_DROP", section)
    path = copy_fixture(tmp_path)
    return path, UpdateOptions(force=True, agent="claude-code", today=TODAY)


def test_claude_code_removal_becomes_the_same_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, opts = _claude_update(tmp_path, monkeypatch, PRICING)
    no_longer_required(path)
    before = Document.read(path)
    result = prepare_update(path, opts)
    cand = result.candidate
    assert cand is not None and cand.sections_removed == [PRICING]  # no longer silently kept
    assert '"drop_sections": ["pricing-comparison"]' in json.dumps(result.proposal_data)
    session = ReviewSession(before, cand.document)
    (removal,) = [h for h in session.diff.decidable if h.whole_section]
    assert removal.key == PRICING
    session.accept(removal.id)
    assert PRICING not in h2_ids(session.apply())
    session.reject(removal.id)
    assert session.apply().article_html == before.article_html


def test_claude_code_cannot_remove_a_required_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, opts = _claude_update(tmp_path, monkeypatch, PRICING)
    before = Document.read(path)
    result = prepare_update(path, opts)
    cand = result.candidate
    assert cand is not None and cand.sections_removed == []
    assert h2_ids(cand.document) == h2_ids(before)
    assert any(
        re.search(r"'pricing-comparison' not removed: the contract", w) for w in cand.warnings
    )
