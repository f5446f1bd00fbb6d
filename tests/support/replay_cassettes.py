"""Every cassette the repository has, and the shapes a recorded answer can take, for the test
that replays each one both ways (``tests/agent/test_replay_equivalence.py``).

- the demo's cassettes (``oo_nb/demo/data/cassettes``), each with its document;
- the tests' recorded runs: the mock scenarios recorded as JSON and as SSE, and recorded faults
  (error statuses, an ``error`` event, an unreadable event);
- cassettes edited from those: what a live stream may hold that the mock does not send (thinking
  and signature deltas, pings, comments, CRLF line ends, an event before ``message_start``), what
  breaks it (a cut, a lone surrogate or deep nesting in a tool input, an empty body), bodies that
  are no message, and cassettes that do not fit the run (exhausted, another path).
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

import httpx2

from oo_nb.agent.backends.anthropic import AnthropicBackend
from oo_nb.agent.backends.conversation import AgentSettings
from oo_nb.agent.backends.recorded_answers import sse_events
from oo_nb.agent.backends.recording import RecordingTransport
from oo_nb.agent.backends.replay import Cassette
from oo_nb.agent.run import UpdateOptions, prepare_update
from oo_nb.api.new import new_document
from oo_nb.demo import DATA_DIR, demo_today
from oo_nb.errors import AgentError
from tests.support.agent_helpers import MARKER, TODAY, copy_doc
from tests.support.mock_api import MockAPI, MockRequest, Reply, error_reply
from tests.support.mock_scenarios import research_scenario, then
from tools.record_cassette import record_demo_cassette

__all__ = ["Case", "all_cases"]

Event = tuple[str | None, Any]


@dataclass
class Case:
    name: str
    doc: Path
    cassette: Cassette
    today: date


# --------------------------------------------------------------------------- recording
def _record(doc: Path, responder: Any, *, stream: bool) -> Cassette:
    transport = RecordingTransport()
    with MockAPI(responder, api_key=MARKER) as mock:
        live = AnthropicBackend(
            api_key=MARKER,
            base_url=mock.base_url,
            http_client=httpx2.Client(transport=transport),
            max_retries=0,
            settings=AgentSettings(model="claude-sonnet-5-5", stream=stream),
        )
        # a fault scenario fails: what was exchanged until then is the cassette
        with contextlib.suppress(AgentError):
            prepare_update(doc, UpdateOptions(force=True, today=TODAY), backend=live)
    transport.close()
    cassette = transport.cassette
    cassette.meta["model"] = "claude-sonnet-5-5"
    return cassette


def _research() -> Callable[[MockRequest], Reply]:
    return research_scenario(with_image=False)


# --------------------------------------------------------------------------- editing
def _events(body: str) -> list[Event]:
    return [(name, json.loads(data) if data else data) for name, data in sse_events(body)]


def _sse(events: list[Event], *, comment: bool = False) -> str:
    out = [": keep-alive\n\n"] if comment else []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        out.append(f"event: {name}\ndata: {text}\n\n")
    return "".join(out)


def _edit_body(cassette: Cassette, at: int, edit: Callable[[str], str]) -> Cassette:
    out = copy.deepcopy(cassette)
    response = out.interactions[at]["response"]
    response["body"] = edit(str(response["body"]))
    return out


def _edit_events(
    cassette: Cassette, at: int, edit: Callable[[list[Event]], list[Event]], **kw: Any
) -> Cassette:
    return _edit_body(cassette, at, lambda body: _sse(edit(_events(body)), **kw))


def _with_thinking(events: list[Event]) -> list[Event]:
    """A thinking block (its text in two deltas, then its signature) before the last one's
    ``message_delta``, and a ping after ``message_start``."""
    index = sum(1 for name, _ in events if name == "content_block_start")
    block = [
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
        ),
        *[
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "thinking_delta", "thinking": part},
                },
            )
            for part in ("Let me weigh ", "the sources.")
        ],
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl"},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]
    at = next(i for i, (name, _) in enumerate(events) if name == "message_delta")
    ping: list[Event] = [("ping", {"type": "ping"})]
    before: list[Event] = [("unknown_event", {"type": "unknown_event"})]
    return [*before, events[0], *ping, *events[1:at], *block, *events[at:]]


def _final_figures_last(events: list[Event]) -> list[Event]:
    """As the API streams: ``message_start`` with the input so far, ``message_delta`` with
    every final figure (more input than at the start) and a container."""
    out = copy.deepcopy(events)
    for name, data in out:
        if name == "message_start":
            data["message"]["usage"] = {"input_tokens": 5, "output_tokens": 1}
        elif name == "message_delta":
            data["usage"]["input_tokens"] += 7
            data["delta"]["container"] = {"id": "container_1", "expires_at": "2026-12-01T00:00:00Z"}
    return out


def _submit_index(events: list[Event]) -> int:
    return int(
        next(
            data["index"]
            for name, data in events
            if name == "content_block_start"
            and data["content_block"].get("name") == "submit_proposal"
        )
    )


def _tool_input(raw: str) -> Callable[[list[Event]], list[Event]]:
    """The submit call's input replaced by ``raw`` (JSON text, sent as one delta)."""

    def edit(events: list[Event]) -> list[Event]:
        index = _submit_index(events)
        out: list[Event] = []
        sent = False
        for name, data in events:
            delta = data.get("delta") if isinstance(data, dict) else None
            if data.get("index") == index and delta and delta["type"] == "input_json_delta":
                if sent:
                    continue
                sent = True
                data = {**data, "delta": {**delta, "partial_json": raw}}
            out.append((name, data))
        return out

    return edit


def _lone_surrogate(events: list[Event]) -> list[Event]:
    index = _submit_index(events)
    for _, data in events:
        delta = data.get("delta") if isinstance(data, dict) else None
        if data.get("index") == index and delta and delta.get("type") == "input_json_delta":
            delta["partial_json"] = delta["partial_json"].replace('": "', '": "\\ud800', 1)
            break
    return events


def _cut_before_delta(events: list[Event]) -> list[Event]:
    at = next(i for i, (name, _) in enumerate(events) if name == "message_delta")
    return events[:at]


def _message(cassette: Cassette, at: int, edit: Callable[[dict[str, Any]], Any]) -> Cassette:
    return _edit_body(cassette, at, lambda body: json.dumps(edit(json.loads(body))))


def _without_usage(msg: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in msg.items() if k != "usage"}


def _refused(msg: dict[str, Any]) -> dict[str, Any]:
    return {**msg, "stop_reason": "refusal"}


def _deep_input(msg: dict[str, Any]) -> dict[str, Any]:
    deep: Any = "x"
    for _ in range(40):
        deep = [deep]
    content = [
        {**b, "input": {**b["input"], "summary": deep}} if b.get("type") == "tool_use" else b
        for b in msg["content"]
    ]
    return {**msg, "content": content}


def _status(cassette: Cassette, status: int, body: str, ctype: str) -> Cassette:
    out = copy.deepcopy(cassette)
    out.interactions[0]["response"] = {
        "status": status,
        "headers": {"content-type": ctype},
        "body": body,
    }
    return out


# --------------------------------------------------------------------------- every case
def demo_cases(folder: Path) -> list[Case]:
    today = date.fromisoformat(demo_today())
    cases = []
    for path in sorted((DATA_DIR / "cassettes").glob("*.json")):
        name = path.name.removesuffix(".json")
        source = DATA_DIR / "documents" / name
        if source.is_file():
            doc = copy_doc_from(source, folder / name)
        else:  # a cassette for `oo new`'s first version: the new document it researches
            title = name.removesuffix(".o-o.html").replace("-", " ").capitalize()
            doc = new_document(title, folder, update=False).document.path
            assert doc.name == name, (doc, name)
        cases.append(Case(f"demo:{name}", doc, Cassette.load(path), today))
    return cases


def copy_doc_from(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return target


def all_cases(tmp: Path) -> list[Case]:
    """Every cassette (each case with its own copy of its document)."""
    cases = demo_cases(tmp / "demo")
    doc = copy_doc(tmp / "tests")
    recorded: dict[str, Cassette] = {}
    for scenario in ("research", "paused"):
        path = record_demo_cassette(doc, tmp / f"{scenario}.json", scenario, today=TODAY)
        recorded[f"json:{scenario}"] = Cassette.load(path)
    recorded["sse:research"] = _record(doc, _research(), stream=True)
    recorded["sse:paused"] = _record(
        doc, research_scenario(with_image=False, pause_after_search=True), stream=True
    )
    faults = {
        "429": error_reply(429, "rate_limit_error", "Number of requests", retry_after_ms=10),
        "500": error_reply(500, "api_error", "Internal server error", should_retry=False),
        "401": error_reply(401, "authentication_error", "invalid x-api-key"),
        "400": error_reply(400, "invalid_request_error", "max_tokens: too large"),
    }
    for code, reply in faults.items():
        recorded[f"json:status {code}"] = _record(doc, then(reply, _research()), stream=False)
        recorded[f"sse:status {code}"] = _record(doc, then(reply, _research()), stream=True)

    def faulty(fault: Any) -> Any:
        """The research, its first answer broken by ``fault``."""
        research, answered = _research(), list[MockRequest]()

        def respond(request: MockRequest) -> Reply:
            reply = research(request)
            if answered:
                return reply
            answered.append(request)
            return replace(reply, fault=fault)

        return respond

    recorded["sse:error event"] = _record(doc, faulty("stream_error"), stream=True)
    recorded["sse:garbled event"] = _record(doc, faulty("stream_garbage"), stream=True)
    json_run, sse_run = recorded["json:research"], recorded["sse:research"]
    paused = recorded["json:paused"]
    edited = {
        "sse:thinking, ping, comment": _edit_events(sse_run, 0, _with_thinking, comment=True),
        "sse:final figures last": _edit_events(sse_run, 0, _final_figures_last),
        "sse:CRLF": _edit_body(sse_run, 0, lambda b: b.replace("\n", "\r\n")),
        "sse:cut before message_delta": _edit_events(sse_run, 0, _cut_before_delta),
        "sse:lone surrogate in tool input": _edit_events(sse_run, 0, _lone_surrogate),
        "sse:tool input nested 300 deep": _edit_events(
            sse_run, 0, _tool_input('{"summary": ' + "[" * 300 + "]" * 300 + "}")
        ),
        "sse:unfinished tool input": _edit_events(sse_run, 0, _tool_input('{"summary": "cut sho')),
        "sse:empty body": _edit_body(sse_run, 0, lambda b: ""),
        "sse:JSON body": _edit_body(
            sse_run, 0, lambda b: json_run.interactions[0]["response"]["body"]
        ),
        "json:no usage": _message(json_run, 0, _without_usage),
        "json:refusal": _message(json_run, 0, _refused),
        "json:tool input nested 40 deep": _message(json_run, 0, _deep_input),
        "json:a list": _edit_body(json_run, 0, lambda b: "[]"),
        "json:null": _edit_body(json_run, 0, lambda b: "null"),
        "json:not JSON": _edit_body(json_run, 0, lambda b: "<html>busy</html>"),
        "json:cut in half": _edit_body(json_run, 0, lambda b: b[: len(b) // 2]),
        "json:529 overloaded": _status(
            json_run,
            529,
            '{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}',
            "application/json",
        ),
        "json:502 HTML": _status(json_run, 502, "<html>Bad gateway</html>\n", "text/html"),
        "json:400 without a message": _status(json_run, 400, '{"error": {}}', "application/json"),
        "json:exhausted": Cassette(paused.interactions[:1], dict(paused.meta)),
        "json:another path": _with_path(paused, 1, "/v1/other"),
        "json:another method": _with_method(paused, 0, "GET"),
    }
    text_plain = copy.deepcopy(json_run)
    text_plain.interactions[0]["response"]["headers"] = {"content-type": "text/plain"}
    edited["json:as text/plain"] = text_plain
    for name, cassette in {**recorded, **edited}.items():
        cases.append(Case(f"tests:{name}", copy_doc(tmp / "tests" / _slug(name)), cassette, TODAY))
    return cases


def _with_path(cassette: Cassette, at: int, path: str) -> Cassette:
    out = copy.deepcopy(cassette)
    out.interactions[at]["request"]["path"] = path
    return out


def _with_method(cassette: Cassette, at: int, method: str) -> Cassette:
    out = copy.deepcopy(cassette)
    out.interactions[at]["request"]["method"] = method
    return out


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name)
