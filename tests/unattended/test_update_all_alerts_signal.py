"""A signal to `oo update-all` while it sends its alerts (the documents already written): the
sending stops at once, the channel in flight abandoned; the report says what the run did and how
far the alerts got; the exit status is the signal's; the next run sends what was not sent.
Regression: Ctrl-C printed "interrupted; nothing was written" (documents were written) and a
SIGTERM ended the process without a word.

The webhook sends the signal to the process while the second message is in flight, and holds
that request until the process has ended: no timing decides what was sent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from oo_nb.cli.main import main
from oo_nb.format.document import Document
from tests.support.agent_helpers import MARKER, copy_doc, start_mock
from tests.support.alert_receivers import webhook_receiver
from tests.support.alert_settings import write_alerts
from tests.support.mock_api import MockRequest, Reply, message
from tests.support.mock_scenarios import research_scenario, text

WRITTEN = "agi-declared.o-o.html"
REFUSED = {
    "anthropic-leadership.o-o.html": "Anthropic Leadership",
    "yc-w26-batch.o-o.html": "Y Combinator",
}


def _failed_keys(bodies: list[Any]) -> list[str]:
    return [e["key"] for b in bodies for e in b["events"] if e["kind"] == "failed"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_alerts_are_sent_says_what_was_done_and_the_rest_go_next_run(
    sig: signal.Signals, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = tmp_path / "lib"
    docs = [copy_doc(lib, name) for name in (WRITTEN, *REFUSED)]
    versions = [Document.read(doc).manifest.version for doc in docs]
    research = research_scenario(with_image=False)
    refusing = [True]  # the first run: two documents refused (two failed events)

    def responder(req: MockRequest) -> Reply:
        head = str(req.body["messages"][0]["content"])[:400]
        if refusing[0] and any(title in head for title in REFUSED.values()):
            return Reply(message=message([text("I refuse")], "refusal"))
        return research(req)

    mock = start_mock(responder)
    monkeypatch.setenv("OO_DATA_DIR", str(tmp_path / "data"))  # the child's too (trust's key)
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    child: list[subprocess.Popen[str]] = []
    ended = threading.Event()

    def second_in_flight(n: int) -> None:
        if n == 2 and child:
            child[0].send_signal(sig)
            ended.wait(60)  # answered only once the process is gone

    args = ["update-all", str(lib), "--force", "--yes", "--no-progress", "--base-url"]
    try:
        with webhook_receiver(on_post=second_in_flight) as hook:
            hook_channel = {"type": "webhook", "name": "team", "format": "json", "url": hook.url}
            write_alerts(lib, hook_channel, digest_after=10)  # one message per event
            child.append(
                subprocess.Popen(
                    [sys.executable, "-m", "oo_nb", *args, mock.base_url],
                    env=dict(os.environ),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            try:
                out, err = child[0].communicate(timeout=120)
            finally:
                ended.set()
                if child[0].poll() is None:
                    child[0].kill()
            first = _failed_keys(hook.bodies)
            # the next run: nothing fails now, so nothing would show the earlier failure again
            refusing[0] = False
            assert main([*args, mock.base_url]) == 0
    finally:
        mock.stop()
    name = signal.Signals(sig).name
    assert "Traceback" not in err and "nothing was written" not in err, err
    assert child[0].returncode == 128 + sig, (out, err)
    lines = out.splitlines()
    assert "1 written, 0 proposed, 0 awaiting review, 0 fresh, 2 failed" in out, out
    assert f"alerts interrupted by {name}: 1 of 2 sent; the rest go with the next run" in lines
    assert not [line for line in lines if line.startswith("alert error:")], out
    assert [Document.read(d).manifest.version for d in docs] == [
        versions[0] + 2,  # written by both runs
        versions[1] + 1,  # refused, then written by the next run
        versions[2] + 1,
    ]
    # two failures: one taken, one in flight when the signal came; the next run sends that one
    # again (a duplicate of the one in flight is allowed), and nothing else
    assert len(first) == 2 and len(set(first)) == 2
    assert _failed_keys(hook.bodies[2:]) == [first[1]]
