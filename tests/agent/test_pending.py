"""Saved proposals are untrusted input: ``pending.json`` holds the proposal's data (never a
document to write), and the review rebuilds the candidate from it through the agent's own
validation and sanitiser. A normal update → review round trip gives exactly the candidate the
update built (CLI, --accept-all, the widget), images and kept figures included."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from oo_nb.agent.pending import ProposalRefused, StaleProposal, open_review
from oo_nb.agent.run import UpdateOptions, UpdateResult, prepare_update, write_result
from oo_nb.agent.types import RunInfo
from oo_nb.cli.main import main
from oo_nb.errors import FormatError
from oo_nb.format.document import Document
from oo_nb.store.store import history_dir, load_pending, read_history
from tests.agent.test_context import image_heavy
from tests.support.agent_helpers import DOCS, MARKER, copy_doc, start_mock
from tests.support.forged_pending import save_proposal
from tests.support.mock_api import MockAPI
from tests.support.mock_scenarios import research_scenario

IMAGE_URL = "https://images.example.com/chart.png"


@pytest.fixture
def mock() -> Iterator[MockAPI]:
    api = start_mock(research_scenario(image_url=IMAGE_URL))
    yield api
    api.stop()


def _update(path: Path, api: MockAPI) -> UpdateResult:
    """An update against the mock, its image fetched from the mock, saved for review."""

    def fetch(url: str) -> bytes:
        assert url == IMAGE_URL
        return httpx2.get(f"{api.base_url}/img/chart.png").content

    opts = UpdateOptions(
        force=True, agent="anthropic", api_key=MARKER, base_url=api.base_url, fetch_image=fetch
    )
    result = write_result(prepare_update(path, opts), yes=False)
    assert result.pending is not None and result.candidate is not None
    return result


def _record(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((history_dir(path) / "pending.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("name", DOCS)
def test_the_review_rebuilds_exactly_what_the_update_built(
    name: str, mock: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy_doc(tmp_path, name)
    result = _update(path, mock)
    assert result.candidate is not None and result.candidate.images_added == 1
    record = _record(path)
    assert "candidate" not in record and record["proposal"]["format"] == 2
    assert list(record["proposal"]["images"]) == [IMAGE_URL]  # downloaded once, kept
    review = open_review(path)
    assert review.rebuilt and not review.stale
    assert review.candidate.to_bytes() == result.candidate.document.to_bytes()
    assert main(["review", str(path), "--accept-all"]) == 0
    assert path.read_bytes() == result.candidate.document.to_bytes()
    assert read_history(path)[-2].action == "review"  # the replaced version, kept
    capsys.readouterr()


def test_interactive_review_and_the_widget_round_trip(
    mock: MockAPI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io
    import sys

    from oo_nb.notebook.review_widget import ReviewWidget

    path = copy_doc(tmp_path)
    result = _update(path, mock)
    assert result.candidate is not None
    monkeypatch.setattr(sys, "stdin", io.StringIO("a\n"))  # accept this and every other change
    assert main(["review", str(path)]) == 0
    assert path.read_bytes() == result.candidate.document.to_bytes()
    capsys.readouterr()

    other = copy_doc(tmp_path / "w")
    result = _update(other, mock)
    assert result.candidate is not None
    widget = ReviewWidget.from_pending(other)
    widget.accept_all_button.click()
    widget.write_button.click()
    assert widget.error.value == ""
    assert other.read_bytes() == result.candidate.document.to_bytes()
    with pytest.raises(Exception, match="no saved proposal"):
        load_pending(other)


def test_a_kept_figure_comes_back_from_the_documents_image(tmp_path: Path) -> None:
    """The proposal is stored as the model wrote it (``oo-image:1``), with the source that
    placeholder stands for; the rebuild puts it back after validation, as the update did."""
    doc = image_heavy(images=1, kb=20)
    path = tmp_path / "heavy.o-o.html"
    path.write_bytes(doc.to_bytes())

    def keep_figure(p: dict[str, Any]) -> dict[str, Any]:
        figure = '<figure class="fig-right"><img src="oo-image:1" alt="Chart 0"><figcaption>C.</figcaption></figure>'
        p["sections"] = [
            {"id": "status", "title": "Status", "html": figure + "<p>Still no [s20].</p>"},
            *p["sections"],
        ]
        p["images"] = []
        return p

    api = start_mock(research_scenario(proposal=keep_figure))
    try:
        opts = UpdateOptions(force=True, agent="anthropic", api_key=MARKER, base_url=api.base_url)
        result = write_result(prepare_update(path, opts), yes=False)
    finally:
        api.stop()
    record = _record(path)["proposal"]
    assert "oo-image:1" in json.dumps(record["proposal"]) and list(record["image_refs"]) == [
        "oo-image:1"
    ]
    assert result.candidate is not None
    assert open_review(path).candidate.to_bytes() == result.candidate.document.to_bytes()


def test_a_stale_proposal_is_applied_to_the_file_as_it_is_now(
    mock: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy_doc(tmp_path)
    _update(path, mock)
    doc = Document.read(path)
    edited = doc.edit_block("oo-manifest", lambda m: m.update(title="Renamed meanwhile"))
    path.write_bytes(edited.to_bytes())
    with pytest.raises(StaleProposal):
        open_review(path)
    assert main(["review", str(path), "--accept-all"]) == 1
    assert "changed since this proposal was made" in capsys.readouterr().out
    assert main(["review", str(path), "--accept-all", "--force"]) == 0
    written = Document.read(path)
    assert written.manifest.title == "Renamed meanwhile"  # the edit is kept, not undone
    assert written.manifest.version == doc.manifest.version + 1
    assert "applied to the file as it is now" in capsys.readouterr().err


def test_a_stored_proposal_cannot_touch_the_contract(tmp_path: Path) -> None:
    """The agent path never writes the budget (or anything of the contract but a structured
    sentinel's status, date and evidence): neither does a rebuilt proposal, whatever it says."""
    path = copy_doc(tmp_path)
    doc = Document.read(path)
    raw = {
        "summary": "s",
        "sections": [{"id": "status", "title": "Status", "html": "<p>No declaration yet.</p>"}],
        "budget": {"max_cost_usd": 999},
        "contract": {"budget": {"max_cost_usd": 999}},
        "sentinel": {"status": "not_occurred", "evidence": "nothing new"},
    }
    save_proposal(path, raw)
    record = _record(path)
    record["proposal"]["run"]["budget_usd"] = 999.0
    record["proposal"]["proposal"]["max_cost_usd"] = 999
    (history_dir(path) / "pending.json").write_text(json.dumps(record), "utf-8")
    candidate = open_review(path).candidate
    before, after = doc.block_json("oo-contract"), candidate.block_json("oo-contract")
    assert {k for k in set(before) | set(after) if before.get(k) != after.get(k)} <= {"sentinel"}
    assert after["budget"] == before["budget"]
    assert main(["review", str(path), "--accept-all"]) == 0
    assert Document.read(path).contract.max_cost_usd == doc.contract.max_cost_usd


@pytest.mark.parametrize(
    ("where", "value", "named"),
    [
        (("format",), 7, "proposal.format"),
        (("run", "cost_usd"), "free", "run.cost_usd"),
        (("run", "usage"), [], "run.usage"),
        (("run", "seen_urls"), [1], "run.seen_urls"),
        (("images",), {IMAGE_URL: "not base64!"}, "proposal.images"),
        (("today",), "yesterday", "Invalid isoformat"),
    ],
)
def test_a_damaged_record_names_the_field(
    tmp_path: Path, where: tuple[str, ...], value: Any, named: str
) -> None:
    path = copy_doc(tmp_path)
    save_proposal(
        path, {"summary": "s", "sections": [{"id": "status", "title": "S", "html": "<p>t</p>"}]}
    )
    record = _record(path)
    target = record["proposal"]
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    (history_dir(path) / "pending.json").write_text(json.dumps(record), "utf-8")
    before = path.read_bytes()
    with pytest.raises(FormatError, match="saved proposal is damaged") as caught:
        open_review(path)
    assert named in str(caught.value) and "pending.json" in str(caught.value)
    assert path.read_bytes() == before


def test_an_invalid_proposal_is_refused_naming_its_field(tmp_path: Path) -> None:
    path = copy_doc(tmp_path)
    save_proposal(
        path, {"summary": "s", "sections": [{"id": "status", "title": "S", "html": "<p>t</p>"}]}
    )
    record = _record(path)
    record["proposal"]["proposal"]["sections"][0]["id"] = "toc"  # reserved by the page
    (history_dir(path) / "pending.json").write_text(json.dumps(record), "utf-8")
    with pytest.raises(ProposalRefused, match=r"sections\[0\]\.id"):
        open_review(path)


def test_run_records_read_back() -> None:
    run = RunInfo(
        backend="anthropic", model="m", requests=3, cost_usd=0.12, seen_urls={"https://a.example/"}
    )
    assert RunInfo.from_record(run.to_record()) == run
    with pytest.raises(ValueError, match=r"run\.recorded"):
        RunInfo.from_record({**run.to_record(), "recorded": "yes"})
    with pytest.raises(ValueError, match=r"run\.cost_usd"):
        RunInfo.from_record({**run.to_record(), "cost_usd": float("nan")})
