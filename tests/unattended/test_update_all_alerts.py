"""``oo update-all --auto`` sends the library's alerts at its end: a proposal kept for review and
a failed update arrive at a loopback webhook; a failing channel never fails the update."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.cli.main import main
from tests.support.agent_helpers import MARKER, copy_doc, start_mock
from tests.support.alert_receivers import webhook_receiver
from tests.support.alert_settings import write_alerts
from tests.support.mock_api import MockRequest, Reply, message
from tests.support.mock_scenarios import research_scenario, text


def _team(url: str) -> dict[str, str]:
    return {"type": "webhook", "name": "team", "format": "slack", "url": url}


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    research = research_scenario(with_image=False)

    def responder(req: MockRequest) -> Reply:
        if "Y Combinator" in str(req.body["messages"][0]["content"])[:400]:
            return Reply(message=message([text("I refuse")], "refusal"))
        return research(req)

    mock = start_mock(responder)
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    yield mock
    mock.stop()


def test_update_all_sends_review_and_failure_alerts_once(
    api: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_doc(tmp_path, "agi-declared.o-o.html")
    copy_doc(tmp_path, "yc-w26-batch.o-o.html")
    with webhook_receiver() as hook:
        write_alerts(tmp_path, _team(hook.url), digest_after=10)
        code = main(["update-all", str(tmp_path), "--force", "--no-progress"])
        out = capsys.readouterr().out
        assert code == 1  # the refused document failed: update-all says so, as before
        assert "alerts: 2 new event(s)" in out and "2 message(s) to team" in out
        texts = "\n".join(b["text"] for b in hook.bodies)
        assert "agi-declared: proposal" in texts and "awaits review since" in texts
        assert "cost $" in texts
        assert "yc-w26-batch: update failed" in texts and "declined" in texts
        assert MARKER not in texts
        n = len(hook.bodies)
        # nothing changed since: a second run (its proposal awaits review) sends nothing new
        main(["update-all", str(tmp_path), "--no-progress"])
        assert len(hook.bodies) == n, [b["text"] for b in hook.bodies[n:]]


def test_failing_alert_never_fails_the_update(
    api: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_doc(tmp_path, "agi-declared.o-o.html")
    write_alerts(tmp_path, _team("http://127.0.0.1:9/unreachable"), digest_after=10)
    # without --auto the update is kept for review: an event, and its channel is down
    assert main(["update-all", str(tmp_path), "--force", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "alert error: channel 'team' (webhook): cannot connect" in out
    assert "1 proposed" in out
    # --no-alerts: not even tried
    assert (
        main(["update-all", str(tmp_path), "--force", "--auto", "--no-progress", "--no-alerts"])
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert not [line for line in lines if line.startswith(("alerts:", "alert error:"))]
