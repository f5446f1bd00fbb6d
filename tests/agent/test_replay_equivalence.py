"""The replay without the SDK does what the replay through it did, on every cassette in the
repository (and on answers edited into the shapes a live run may record): the same proposal, the
same run (costs, tokens, requests, warnings, URLs seen, progress lines) and the same errors, both
sync and async; and each recorded answer becomes the same message. That it never imports the
SDK is checked in a fresh process (``tests/cli/test_sdk_not_imported.py``)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.backends.recording import sdk_replay
from oo_nb.agent.backends.replay import ReplayBackend
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.run import UpdateOptions, begin, new_budget
from oo_nb.errors import AgentError
from tests.support.replay_cassettes import Case, all_cases

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    return all_cases(tmp_path_factory.mktemp("cassettes"))


def _outcome(case: Case, backend: Any, *, use_async: bool) -> dict[str, Any]:
    prep = begin(case.doc, UpdateOptions(force=True, today=case.today))
    run = backend.new_run(prep.budget_usd)
    said: list[str] = []
    run.on_progress = said.append
    budget = new_budget(prep, backend, run)
    proposal: Any = None
    error: tuple[str, str, float] | None = None
    try:
        if use_async:
            proposal = asyncio.run(
                backend.arun(prep.ctx, budget=budget, run=run, validate=validate_proposal)
            )
        else:
            proposal = backend.run(prep.ctx, budget=budget, run=run, validate=validate_proposal)
    except AgentError as exc:
        error = (type(exc).__name__, str(exc), exc.cost_usd)
    return {
        "proposal": proposal,
        "error": error,
        "run": replace(run, on_progress=None),
        "pages": run.pages,
        "said": said,
    }


# The replay words a status error as SDK 2.17 (the lock's) does, pinned word for word by
# test_the_cases_fail_as_they_should. Earlier SDK releases word the detail after "API error NNN
# (type):" otherwise (no status and path around an HTML body; "Error code: 400 - {...}" for a
# body without a message): compared with one of those, the detail is left out, the kind of
# error, its status and type and its cost are not.
_DETAIL = re.compile(
    r"^(API error [0-9]{3} \([^)]*\)): .*?((?:, after [0-9]+ retries)? \(cost so far [^)]*\))$"
)


def _sdk_before_2_17() -> bool:
    import anthropic

    major, minor = (int(part) for part in anthropic.__version__.split(".")[:2])
    return (major, minor) < (2, 17)


def _era_free(error: tuple[str, str, float] | None) -> tuple[str, str, float] | None:
    if error is None or not _sdk_before_2_17():
        return error
    kind, text, cost = error
    return kind, _DETAIL.sub(r"\1: …\2", text), cost


def test_every_cassette_replays_as_through_the_sdk(cases: list[Case]) -> None:
    names = [c.name for c in cases]
    assert sum(n.startswith("demo:") for n in names) == 3  # each demo cassette
    outcomes = {"proposal": 0, "error": 0}
    for case in cases:
        for use_async in (False, True):
            new = _outcome(case, ReplayBackend(case.cassette), use_async=use_async)
            old = _outcome(case, sdk_replay(case.cassette), use_async=use_async)
            where = f"{case.name} ({'async' if use_async else 'sync'})"
            assert _era_free(new["error"]) == _era_free(old["error"]), where
            assert new["proposal"] == old["proposal"], where
            assert new["run"] == old["run"], where
            assert new["said"] == old["said"], where
            assert new["pages"] == old["pages"], where
            outcomes["error" if new["error"] else "proposal"] += 1
            assert new["run"].recorded and new["run"].backend == "replay"
    assert outcomes["proposal"] >= 16 and outcomes["error"] >= 30, outcomes


def test_the_cases_fail_as_they_should(cases: list[Case]) -> None:
    """Each edited case reaches the failure it was made for (no case passes by failing early)."""
    want = {
        "tests:sse:error event": "stream broke off with an error event (overloaded_error",
        "tests:sse:garbled event": "could not be read",
        "tests:sse:cut before message_delta": "stream ended before the message did",
        "tests:sse:lone surrogate in tool input": "could not be read (its tool input",
        "tests:sse:tool input nested 300 deep": "could not be read (its tool input",
        "tests:sse:empty body": "stream could not be read (AssertionError)",
        "tests:json:a list": "not a message (ValueError: a list, not a message object)",
        "tests:json:not JSON": "not a message (JSONDecodeError",
        "tests:json:tool input nested 40 deep": "nested deeper than 32 levels",
        "tests:json:refusal": "stop_reason: refusal",
        "tests:json:529 overloaded": "API error 529 (overloaded_error): Overloaded, after 0 retries",
        "tests:json:502 HTML": "API error 502 (error): 502 <html>Bad gateway</html> (path: /v1/messages)",
        "tests:json:status 401": "rejected the credentials (401 authentication_error)",
        "tests:json:exhausted": "cassette exhausted: the replayed run made more than 1 requests",
        "tests:json:another path": (
            "API error 400 (invalid_request_error): cassette mismatch at request 2: recorded "
            "POST /v1/other, replay asked POST /v1/messages"
        ),
    }
    by_name = {c.name: c for c in cases}
    for name, text in want.items():
        with pytest.raises(AgentError) as failed:
            _outcome_or_raise(by_name[name])
        assert text in str(failed.value), (name, str(failed.value))
    for name in ("tests:sse:thinking, ping, comment", "tests:sse:CRLF", "tests:json:no usage"):
        assert _outcome_or_raise(by_name[name]) is not None, name


def _outcome_or_raise(case: Case) -> Any:
    out = _outcome(case, ReplayBackend(case.cassette), use_async=False)
    if out["error"]:
        raise AgentError(out["error"][1])
    return out["proposal"]


def _sdk_read(body: str, *, stream: bool, ctype: str) -> tuple[Any, Any]:
    """What the SDK makes of one recorded 200 answer: the message as JSON (or the exception
    that stopped it) and, for a stream, the usage its events reported."""
    import anthropic
    import httpx2

    from oo_nb.agent.backends import anthropic as sdk_backend

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": ctype}, content=body.encode())

    client = anthropic.Anthropic(
        api_key="replay-no-key",
        base_url="https://replay.invalid",
        http_client=httpx2.Client(transport=httpx2.MockTransport(answer)),
        max_retries=0,
    )
    params: dict[str, Any] = {"model": "m", "max_tokens": 1, "messages": []}
    seen = sdk_backend._StreamUsage()
    try:
        if stream:
            with client.messages.stream(**params) as events:
                for event in events:
                    seen.take(event)
                message = events.get_final_message()
        else:
            message = client.messages.create(**params)
        return message.to_dict(mode="json"), (seen.usage, seen.final)
    except Exception as exc:
        return type(exc), (seen.usage, seen.final)


def test_every_recorded_answer_reads_as_the_sdk_reads_it(cases: list[Case]) -> None:
    """Each 200 answer of every cassette, read alone: the same message JSON (every block, its
    thinking, signature, citations and tool input, the stop reason and usage) and the same
    usage reported on the way."""
    from oo_nb.agent.backends.driver import Lost, StreamUsage
    from oo_nb.agent.backends.recorded_answers import json_message, stream_message

    compared = 0
    for case in cases:
        stream = case.cassette.streamed
        for n, item in enumerate(case.cassette.interactions):
            response = item["response"]
            if response.get("status", 200) != 200:
                continue
            body = str(response.get("body", ""))
            ctype = str((response.get("headers") or {}).get("content-type", "*"))
            want, want_usage = _sdk_read(body, stream=stream, ctype=ctype)
            seen = StreamUsage()
            try:
                got: Any = (
                    stream_message(body, seen, path="/v1/messages", retries=0, where="x")
                    if stream
                    else json_message(body, ctype)
                )
            except Lost:
                got = Lost
            where = f"{case.name}, answer {n}"
            # the live backend loses a stream that ended before its final message_delta too
            sdk_lost = not isinstance(want, dict) or (stream and not want_usage[1])
            if sdk_lost:  # both lose it (what each says is compared by the runs above)
                assert got is Lost, (where, want)
            else:
                assert got == want, where
                compared += 1
            if stream:  # the SDK's usage also names the fields it left empty (None)
                assert (_set(seen.usage), seen.final) == (_set(want_usage[0]), want_usage[1]), where
    assert compared >= 20, compared


def _set(value: Any) -> Any:
    """``value`` without the None-valued keys of its objects (the figures count them as 0)."""
    if isinstance(value, dict):
        return {k: _set(v) for k, v in value.items() if v is not None}
    return value
