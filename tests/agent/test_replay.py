"""Recorded runs: cassettes written from the mock hold no key; replays go through the same SDK
code path, are labelled as recorded, and fail clearly when the cassette does not fit."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from oo_nb.agent.backends.recording import RecordingTransport
from oo_nb.agent.backends.replay import Cassette, ReplayBackend
from oo_nb.agent.cassettes import cassette_name, find_cassette
from oo_nb.agent.run import UpdateOptions, prepare_update
from oo_nb.cli.main import main
from oo_nb.errors import AgentError, FormatError
from oo_nb.format.document import Document
from tests.support.agent_helpers import MARKER, TODAY, assert_no_secret, copy_doc
from tests.support.mock_api import MockAPI
from tests.support.mock_scenarios import research_scenario
from tools.record_cassette import record_demo_cassette


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, Path]:
    doc = copy_doc(tmp_path)
    out = record_demo_cassette(doc, tmp_path / cassette_name(doc), "paused", today=TODAY)
    return doc, out


def test_cassette_holds_no_key_and_no_request_headers(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    _, out = recorded
    raw = json.loads(out.read_text("utf-8"))
    assert raw["format"] == "oo-nb-cassette" and len(raw["interactions"]) == 2
    assert all(set(i["request"]) == {"method", "path", "body"} for i in raw["interactions"])
    text = out.read_text("utf-8").lower()
    assert "authorization" not in text and "x-api-key" not in text and "bearer" not in text
    assert_no_secret(tmp_path)


def test_replay_reproduces_the_run_labelled_recorded(
    recorded: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, _ = recorded
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    result = prepare_update(
        doc, UpdateOptions(force=True, today=TODAY)
    )  # default agent without a key
    assert result.agent == "replay" and result.run is not None and result.run.recorded
    assert result.run.requests == 2 and result.run.cost_usd > 0
    assert result.warnings[0].startswith("RECORDED run")
    assert "(recorded)" in result.message
    cand = result.candidate
    assert cand is not None
    latest = cand.document.changelog.latest
    assert latest is not None and latest.extra["agent"] == "replay (recorded)"
    new = cand.document.source_cache.by_id()["s20"]
    assert new.verified is True


def test_cli_default_is_replay_without_a_key(
    recorded: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = recorded
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    base = doc.read_bytes()
    assert main(["update", str(doc), "--force"]) == 0
    out = capsys.readouterr().out
    assert "replay (recorded)" in out and "RECORDED run" in out
    assert doc.read_bytes() == base


def test_no_cassette_and_no_key_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    doc = copy_doc(tmp_path)
    assert find_cassette(doc) is None
    assert main(["update", str(doc), "--force"]) == 2
    assert "no API key" in capsys.readouterr().err


def test_anthropic_agent_without_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    doc = copy_doc(tmp_path)
    assert main(["update", str(doc), "--force", "--agent", "anthropic"]) == 2
    assert "set ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_exhausted_or_mismatched_cassette_fails_clearly(recorded: tuple[Path, Path]) -> None:
    doc, out = recorded
    cassette = Cassette.load(out)
    cassette.interactions = cassette.interactions[:1]  # the continuation is missing
    with pytest.raises(AgentError, match="cassette exhausted"):
        prepare_update(doc, UpdateOptions(force=True, today=TODAY), backend=ReplayBackend(cassette))
    cassette = Cassette.load(out)
    cassette.interactions[0]["request"]["path"] = "/v1/other"
    with pytest.raises(AgentError, match="cassette mismatch"):
        prepare_update(doc, UpdateOptions(force=True, today=TODAY), backend=ReplayBackend(cassette))


def test_bad_cassette_files(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no such cassette"):
        Cassette.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    with pytest.raises(FormatError, match="not an oo_nb cassette"):
        Cassette.load(bad)


def test_streamed_runs_record_and_replay_as_sse(tmp_path: Path) -> None:
    doc = copy_doc(tmp_path)
    with MockAPI(research_scenario(with_image=False), api_key=MARKER) as mock:
        transport = RecordingTransport()
        from oo_nb.agent.backends.anthropic import AnthropicBackend
        from oo_nb.agent.backends.conversation import AgentSettings

        live = AnthropicBackend(
            api_key=MARKER,
            base_url=mock.base_url,
            http_client=httpx2.Client(transport=transport),
            settings=AgentSettings(model="claude-sonnet-5-5", stream=True),
        )
        first = prepare_update(doc, UpdateOptions(force=True, today=TODAY), backend=live)
        out = transport.save(tmp_path / "streamed.json", model="claude-sonnet-5-5")
    cassette = Cassette.load(out)
    assert (
        cassette.streamed and "event: message_start" in cassette.interactions[0]["response"]["body"]
    )
    replay = ReplayBackend(cassette)
    assert replay.settings.stream
    first.release_claim()  # not written: its claim on the research is let go by hand
    again = prepare_update(doc, UpdateOptions(force=True, today=TODAY), backend=replay)
    assert again.candidate is not None and first.candidate is not None
    a, b = again.candidate.document, first.candidate.document
    assert [x.text for x in a.article.paragraphs] == [
        x.text for x in b.article.paragraphs
    ]  # pids are random
    assert a.block_json("oo-source-cache") == b.block_json("oo-source-cache")
    assert replay.position == 1
    assert_no_secret(tmp_path)


def test_find_cassette_locations(tmp_path: Path) -> None:
    doc = copy_doc(tmp_path)
    assert find_cassette(doc) is None
    hidden = tmp_path / ".oo-cassettes" / f"{doc.name}.json"
    hidden.parent.mkdir()
    hidden.write_text("{}")
    assert find_cassette(doc) == hidden
    beside = tmp_path / "agi-declared.cassette.json"
    beside.write_text("{}")
    assert find_cassette(doc) == beside
    assert Document.read(doc).kind == "document"


def test_update_record_option_writes_a_replayable_cassette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = copy_doc(tmp_path)
    out = tmp_path / "run.cassette.json"
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    with MockAPI(research_scenario(with_image=False), api_key=MARKER) as mock:
        assert (
            main(["update", str(doc), "--force", "--base-url", mock.base_url, "--record", str(out)])
            == 0
        )
    cassette = Cassette.load(out)
    assert cassette.meta["outcome"] == "proposal" and cassette.meta["document"] == doc.name
    assert_no_secret(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert main(["update", str(doc), "--force", "--agent", "replay", "--cassette", str(out)]) == 0
    assert "replay (recorded)" in capsys.readouterr().out
    assert main(["update", str(doc), "--force", "--agent", "replay", "--record", str(out)]) == 2


def test_a_cassette_recorded_for_another_document_is_said(
    recorded: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--cassette`` of another document's run replays it, saying so among the warnings; the
    document's own cassette says nothing of the kind."""
    doc, cassette = recorded
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    own = prepare_update(doc, UpdateOptions(force=True, today=TODAY, cassette=cassette))
    assert not any("recorded for" in w for w in own.warnings)
    other = tmp_path / "elsewhere" / "other-topic.o-o.html"
    other.parent.mkdir()
    other.write_bytes(doc.read_bytes())
    result = prepare_update(other, UpdateOptions(force=True, today=TODAY, cassette=cassette))
    said = [w for w in result.warnings if "recorded for" in w]
    assert said == [
        f"the cassette was recorded for {doc.name!r}, not 'other-topic.o-o.html': what it "
        "proposes is that document's research; kept for review, not written automatically"
    ]
    assert own.auto_write and not result.auto_write


def test_yes_keeps_another_documents_recording_for_review(
    recorded: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``oo update OTHER --cassette THIS --yes`` writes nothing: the proposal waits for review."""
    doc, cassette = recorded
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    other = tmp_path / "elsewhere" / "other-topic.o-o.html"
    other.parent.mkdir()
    other.write_bytes(doc.read_bytes())
    before = other.read_bytes()
    main(["update", str(other), "--force", "--yes", "--cassette", str(cassette)])
    assert other.read_bytes() == before
    assert (other.parent / ".oo-history" / other.name / "pending.json").exists()


def test_a_refused_proposal_says_why_when_the_replay_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recorded proposal the validation refuses is sent back for a correction the cassette
    never recorded: the run ends "cassette exhausted", and the reason it was refused is said,
    as a progress line when it happens and in the error."""
    import oo_nb
    from oo_nb.demo import demo_today, install_demo

    monkeypatch.setenv("OO_TODAY", demo_today())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    name = "heat-pumps-in-europe.o-o.html"
    install_demo(tmp_path, index=False, quiet=True)
    path = tmp_path / ".oo-cassettes" / f"{name}.json"
    cassette = json.loads(path.read_text("utf-8"))
    last = cassette["interactions"][-1]["response"]
    body = json.loads(last["body"])
    submit = next(b for b in body["content"] if b.get("name") == "submit_proposal")
    submit["input"]["sections"][0]["id"] = 'x" onmouseover="alert(1)'
    last["body"] = json.dumps(body)
    path.write_text(json.dumps(cassette), "utf-8")
    said: list[str] = []
    with pytest.raises(AgentError) as caught:
        oo_nb.open(tmp_path / name).update(agent="replay", progress=said.append)
    reason = "key 'sections[0].id': invalid submit_proposal input: must be a section id"
    assert "cassette exhausted" in str(caught.value) and reason in str(caught.value)
    assert [line for line in said if line.startswith("proposal refused")] == [
        f"proposal refused, asked for a correction: {reason} (letters, digits, '-', '_', '.', "
        """':'), found 'x" onmouseover="alert(1)'"""
    ]
