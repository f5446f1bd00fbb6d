"""The loopback mock itself: a real HTTP server on 127.0.0.1 speaking the Messages API."""

from __future__ import annotations

import json

import anthropic
import httpx2
import pytest

from tests.support.agent_helpers import MARKER
from tests.support.mock_api import PNG_CHART, MockAPI, Reply, Script, message, sse_events
from tests.support.mock_scenarios import text

HELLO = message([text("hello")])


def test_bearer_and_x_api_key_both_accepted_and_beta_path() -> None:
    with MockAPI([HELLO, HELLO], api_key=MARKER) as mock:
        client = anthropic.Anthropic(api_key=MARKER, base_url=mock.base_url, max_retries=0)
        msg = client.messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
        assert msg.content[0].type == "text"
        # Claude Code's shape: x-api-key, old version header, ?beta=true
        r = httpx2.post(
            f"{mock.base_url}/v1/messages?beta=true",
            headers={"x-api-key": MARKER, "anthropic-version": "2023-06-01"},
            json={"model": "m", "max_tokens": 10, "messages": []},
        )
        assert r.status_code == 200 and r.json()["type"] == "message"
        first, second = mock.message_requests
        assert first.headers["authorization"] == f"Bearer {MARKER}"
        assert first.headers["anthropic-version"] == "2026-10-21"
        assert second.headers["x-api-key"] == MARKER and second.query == {"beta": ["true"]}


def test_wrong_or_missing_key_is_401() -> None:
    with MockAPI([HELLO], api_key=MARKER) as mock:
        client = anthropic.Anthropic(
            api_key="sk-ant-test-WRONG", base_url=mock.base_url, max_retries=0
        )
        with pytest.raises(anthropic.AuthenticationError):
            client.messages.create(
                model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
        assert httpx2.post(f"{mock.base_url}/v1/messages", json={}).status_code == 401


def test_sse_rebuilds_the_same_message() -> None:
    msg = message(
        [
            text(
                "abc" * 300,
                [
                    {
                        "type": "web_search_result_location",
                        "url": "https://x.org",
                        "title": "X",
                        "encrypted_index": "e",
                        "cited_text": "c",
                    }
                ],
            )
        ],
        "end_turn",
    )
    names = [name for name, _ in sse_events(msg)]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    with MockAPI([msg]) as mock:
        client = anthropic.Anthropic(api_key=MARKER, base_url=mock.base_url, max_retries=0)
        with client.messages.stream(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        ) as s:
            final = s.get_final_message()
    assert final.content[0].type == "text" and final.content[0].text == "abc" * 300
    assert final.content[0].citations and final.content[0].citations[0].url == "https://x.org"
    assert final.usage.input_tokens == 1000 and final.stop_reason == "end_turn"


def test_script_exhaustion_is_loud_and_not_retried() -> None:
    with MockAPI(Script([])) as mock:
        client = anthropic.Anthropic(api_key=MARKER, base_url=mock.base_url, max_retries=2)
        with pytest.raises(anthropic.InternalServerError, match="exhausted"):
            client.messages.create(
                model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
        assert len(mock.message_requests) == 1


def test_batches_round_trip_through_the_sdk() -> None:
    with MockAPI(
        lambda req: Reply(message=message([text(req.body["messages"][0]["content"])])),
        batch_polls=2,
    ) as mock:
        client = anthropic.Anthropic(api_key=MARKER, base_url=mock.base_url, max_retries=0)
        batch = client.messages.batches.create(
            requests=[
                {
                    "custom_id": f"doc-{i}",
                    "params": {
                        "model": "m",
                        "max_tokens": 5,
                        "messages": [{"role": "user", "content": f"q{i}"}],
                    },
                }
                for i in range(3)
            ]
        )
        states = [client.messages.batches.retrieve(batch.id).processing_status for _ in range(3)]
        assert states == ["in_progress", "in_progress", "ended"]
        results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert {k: v.message.content[0].text for k, v in results.items() if v.type == "succeeded"} == {
        "doc-0": "q0",
        "doc-1": "q1",
        "doc-2": "q2",
    }


def test_image_endpoint_serves_a_png() -> None:
    with MockAPI() as mock:
        r = httpx2.get(f"{mock.base_url}/img/chart.png")
    assert (
        r.status_code == 200 and r.content == PNG_CHART and r.headers["content-type"] == "image/png"
    )
    assert json.dumps(HELLO)  # messages are plain JSON
