"""A connection lost after the answer began is the same event under every SDK in our range.

Up to anthropic 2.16 a body cut mid-read came out as httpx2's own error; from 2.17 the SDK reads
bodies through ``iter_response_bytes``, which wraps it in ``APIConnectionError`` (or
``APITimeoutError``) with the httpx2 error as ``__cause__``. Under 2.17 the wrapped shape was
taken for an error event: not tried again, and reported as "cannot reach the API ... (after 50
retries)". Both shapes are fed here whatever version is installed: directly, and end to end by
making the installed SDK hand over the shape the other versions produce."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx2
import pytest

from oo_nb.agent.backends import anthropic as backend_module
from oo_nb.agent.pricing import price_for
from oo_nb.errors import AgentError
from tests.agent.test_usage_unknown import MODEL, PlannedBudget, run_with, submit
from tests.support.agent_helpers import backend, start_mock
from tests.support.mock_api import Reply

REQUEST = httpx2.Request("POST", "http://127.0.0.1:9/v1/messages")


def wrapped(cause: BaseException) -> BaseException:
    """``cause`` as anthropic 2.17's ``iter_response_bytes`` raises it."""
    if isinstance(cause, httpx2.TimeoutException):
        outer: BaseException = anthropic.APITimeoutError(request=REQUEST)
    else:
        outer = anthropic.APIConnectionError(request=REQUEST)
    outer.__cause__ = cause
    return outer


CUT_CAUSES = {
    "RemoteProtocolError": httpx2.RemoteProtocolError("peer closed connection"),
    "ReadError": httpx2.ReadError("connection reset"),
    "ReadTimeout": httpx2.ReadTimeout("timed out"),
}


@pytest.mark.parametrize("shape", ["raw", "wrapped"])
@pytest.mark.parametrize("name", list(CUT_CAUSES))
def test_a_stream_cut_is_a_lost_connection_in_either_shape(shape: str, name: str) -> None:
    cause = CUT_CAUSES[name]
    exc = cause if shape == "raw" else wrapped(cause)
    lost = backend_module._StreamUsage().lost(exc, retries=2, where="http://x")
    assert lost.retry and lost.what == "stream cut"
    assert lost.message == (
        f"the API stream broke off: the connection was lost after the answer began ({name})"
    )


@pytest.mark.parametrize("shape", ["raw", "wrapped"])
def test_a_cut_body_is_a_lost_connection_in_either_shape(shape: str) -> None:
    cause = httpx2.RemoteProtocolError("peer closed connection")
    lost = backend_module._body_lost(cause if shape == "raw" else wrapped(cause))
    assert lost.retry and lost.what == "answer cut"
    assert "lost after the answer began (RemoteProtocolError)" in lost.message


def test_a_wrapper_without_a_cause_is_still_a_lost_connection() -> None:
    lost = backend_module._StreamUsage().lost(
        anthropic.APIConnectionError(request=REQUEST), retries=2, where="http://x"
    )
    assert lost.retry and "(APIConnectionError)" in lost.message


def test_an_error_event_is_not_taken_for_a_lost_connection() -> None:
    event = anthropic.APIStatusError(
        "overloaded",
        response=httpx2.Response(200, request=REQUEST),
        body={"type": "error", "error": {"type": "overloaded_error", "message": "busy"}},
    )
    lost = backend_module._StreamUsage().lost(event, retries=2, where="http://x")
    assert not lost.retry and lost.what == "stream ended by an error event"


def test_what_a_wrapper_holds_that_is_no_cut_is_read_as_that() -> None:
    # a wrapped parse failure is the parse failure, as the older SDKs raised it: not tried again
    lost = backend_module._StreamUsage().lost(
        wrapped(ValueError("bad JSON")), retries=2, where="http://x"
    )
    assert not lost.retry and lost.what == "stream unreadable"


# ------------------------------------------------------------------ end to end, both shapes
def _pass_through(response: httpx2.Response, client: Any) -> Iterator[bytes]:
    yield from response.iter_bytes()


async def _apass_through(response: httpx2.Response, client: Any) -> Any:
    async for chunk in response.aiter_bytes():
        yield chunk


def _as_shape(monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    """Make the installed SDK raise a mid-body cut in ``shape``, as the other versions do."""
    import anthropic._streaming as streaming

    if shape == "raw":  # as up to 2.16: the httpx2 error itself
        monkeypatch.setattr(streaming, "iter_response_bytes", _pass_through, raising=False)
        monkeypatch.setattr(streaming, "async_iter_response_bytes", _apass_through, raising=False)
        return
    # as from 2.17: httpx2's error wrapped, with it as the cause (2.17 passes an AnthropicError on)
    read, aread = httpx2.Response.iter_bytes, httpx2.Response.aiter_bytes

    def iter_bytes(self: httpx2.Response, *args: Any, **kwargs: Any) -> Iterator[bytes]:
        try:
            yield from read(self, *args, **kwargs)
        except httpx2.TransportError as err:
            raise anthropic.APIConnectionError(request=self.request) from err

    async def aiter_bytes(self: httpx2.Response, *args: Any, **kwargs: Any) -> Any:
        try:
            async for chunk in aread(self, *args, **kwargs):
                yield chunk
        except httpx2.TransportError as err:
            raise anthropic.APIConnectionError(request=self.request) from err

    monkeypatch.setattr(httpx2.Response, "iter_bytes", iter_bytes)
    monkeypatch.setattr(httpx2.Response, "aiter_bytes", aiter_bytes)


@pytest.mark.parametrize("concurrent", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
@pytest.mark.parametrize("shape", ["raw", "wrapped"])
def test_one_cut_then_a_good_answer_makes_the_proposal(
    monkeypatch: pytest.MonkeyPatch, shape: str, stream: bool, concurrent: bool
) -> None:
    """The figures of the issue: one cut then a good answer is 2 requests and a proposal."""
    _as_shape(monkeypatch, shape)
    mock = start_mock([Reply(message=submit(), fault="truncate"), submit()], prompt_cache=False)
    try:
        proposal, run = run_with(
            backend(mock, stream=stream, retries=2),
            PlannedBudget(5.0, price_for(MODEL)),
            concurrent=concurrent,
        )
    finally:
        mock.stop()
    assert proposal.summary == "ok" and len(mock.message_requests) == 2
    cut = re.compile(r"lost after the answer began \((RemoteProtocolError|ReadError)\)")
    assert any(cut.search(w) and w.endswith(": trying again (1 of 2)") for w in run.warnings), (
        run.warnings
    )


@pytest.mark.parametrize("shape", ["raw", "wrapped"])
def test_cuts_past_the_retries_say_the_real_count(
    monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    _as_shape(monkeypatch, shape)
    cut = Reply(message=submit(), fault="truncate")
    mock = start_mock([cut, cut], prompt_cache=False)
    try:
        with pytest.raises(AgentError) as err:
            run_with(backend(mock, stream=True, retries=1), PlannedBudget(5.0, price_for(MODEL)))
    finally:
        mock.stop()
    assert len(mock.message_requests) == 2
    text = str(err.value)
    assert (
        "the connection was lost after the answer began (RemoteProtocolError); "
        "tried again 1 of 1 times; nothing was proposed" in text
    ), text
    assert "cannot reach the API" not in text
