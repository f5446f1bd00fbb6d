"""Recorded response bodies read as the SDK reads them, without the SDK.

A replay must not wait on ``import anthropic`` (~1 CPU s, seconds under load), so a recorded
answer becomes the message JSON the conversation takes (``Conversation.on_response`` reads a
dict as it reads an SDK message) here, following what ``anthropic`` 2.x does with the same bytes:

- a JSON body: the message object, or ``Lost`` when it is no JSON object;
- an SSE body: its events (``event:``/``data:`` lines, a blank line ends each) accumulated into
  the final message as the Messages API defines it: ``message_start``, ``content_block_start``,
  ``content_block_delta`` (``text_delta``, ``input_json_delta``, ``citations_delta``,
  ``thinking_delta``, ``signature_delta``), ``content_block_stop``, ``message_delta`` (stop
  reason, usage), ``message_stop``; ``ping`` skipped; an ``error`` event ends it as the API's
  failure. What the stream said of its usage goes to ``StreamUsage`` as it comes, so a stream
  that breaks off is charged as a live one would be;
- an error status: the one line the live backend would say (``driver.status_failure_text``).

The equivalence with the SDK is tested on every cassette in the repository
(``tests/agent/test_replay_equivalence.py``).
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Iterator
from typing import Any

from oo_nb.agent.backends.driver import (
    StreamUsage,
    not_a_message,
    status_failure_text,
)

__all__ = [
    "ApiFailure",
    "error_text",
    "json_message",
    "sse_events",
    "status_error",
    "stream_message",
]

_TOOL_INPUT_BLOCKS = ("tool_use", "server_tool_use")  # the SDK's TRACKS_TOOL_INPUT


class ApiFailure(Exception):
    """The API answered with a failure (an error status, or an ``error`` event in a stream):
    ``text`` is the line the run reports (its cost added by the conversation)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _property(body: Any, *path: str) -> Any:
    """``body[path[0]][path[1]]...``, None once a level is not an object (the SDK's rule)."""
    for key in path:
        if not isinstance(body, dict):
            return None
        body = body.get(key)
    return body


def _string(*values: Any) -> str | None:
    return next((v for v in values if isinstance(v, str) and v), None)


def _sdk_wording(status: int, body: Any, path: str) -> str:
    """The text the SDK gives an error with no ``error.message`` of its own (what a user of
    the live backend reads: the status, the body, then the request's path and the error's
    type and code)."""
    text = _string(_property(body, "error", "message"), body)
    details = _property(body, "error", "details") if text else None
    if text is None and body == "":
        said = f"{status} status code (no body)"
    else:
        text = text or json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        said = f"{status} {text}" if status >= 400 else text
    named = {
        "error_code": _string(_property(body, "error", "details", "error_code")),
        "request_id": _string(_property(body, "request_id")),
        "path": path,
        "type": _string(_property(body, "error", "type")),
    }
    said += " (" + ", ".join(f"{k}: {v}" for k, v in named.items() if v) + ")"
    if details is not None and (not isinstance(details, dict) or details.keys() - {"error_code"}):
        said += "\n\n" + json.dumps(details, indent=2, ensure_ascii=False)
    return said


def error_text(status: int, body: Any, *, path: str, retries: int, where: str) -> str:
    """The line for an error ``body`` (parsed JSON, or the text) answered with ``status`` (200:
    an ``error`` event in a stream) to a request for ``path``."""
    kind = _property(body, "error", "type") or "error"
    text = _property(body, "error", "message") or _sdk_wording(status, body, path)
    return status_failure_text(status, kind, text, retries=retries, where=where)


def status_error(status: int, text: str, *, path: str, retries: int, where: str) -> ApiFailure:
    """The failure of a response with an error ``status`` and body ``text``."""
    body: Any = text.strip()
    with contextlib.suppress(ValueError):  # else the text itself
        body = json.loads(body)
    return ApiFailure(error_text(status, body, path=path, retries=retries, where=where))


def json_message(text: str, content_type: str) -> dict[str, Any]:
    """The message of a whole JSON body; raises ``Lost`` when it is none."""
    try:
        data: Any = json.loads(text)
    except (ValueError, RecursionError) as exc:
        if content_type.split(";")[0].lower().endswith("json"):
            raise not_a_message(exc) from None
        data = text  # the SDK hands back the text of a body that says it is not JSON
    if not isinstance(data, dict):
        raise not_a_message(ValueError(f"a {type(data).__name__}, not a message object"))
    return data


# --------------------------------------------------------------------------- SSE
def sse_events(body: str) -> Iterator[tuple[str | None, str]]:
    """``(event, data)`` of each event of an SSE body, as the SDK's decoder splits them (a line
    ends at CR, LF or CRLF; an event at a blank line; one not ended by one is not dispatched)."""
    event: str | None = None
    data: list[str] = []
    last_id: str | None = None
    retry = False
    for raw in body.encode("utf-8").splitlines():
        line = raw.decode("utf-8")
        if not line:
            if event or data or last_id or retry:
                yield event, "\n".join(data)
            event, data, retry = None, [], False
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id" and "\0" not in value:
            last_id = value
        elif name == "retry":
            retry = value.strip().lstrip("+-").isdigit()


def _field(obj: Any, key: str) -> Any:
    """``obj.key`` of an event read as the SDK's models: a missing key is None, a value that is
    not an object has no fields."""
    if not isinstance(obj, dict):
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{key}'")
    return obj.get(key)


def _object(obj: Any, key: str) -> dict[str, Any]:
    """``obj.key``, which must be an object (the SDK fails on any other value too)."""
    value = _field(obj, key)
    if not isinstance(value, dict):
        raise AttributeError(f"{key!r} is a {type(value).__name__}, not an object")
    return value


class _Accumulator:
    """The final message of a stream, built event by event (the SDK's ``accumulate_event``)."""

    def __init__(self, seen: StreamUsage) -> None:
        self.seen = seen
        self.message: dict[str, Any] | None = None
        self.json_bufs: dict[Any, bytes] = {}

    def take(self, event: Any) -> None:
        kind = _field(event, "type")
        if self.message is None and kind != "message_start":
            self._usage(event, kind)  # passed on as it came, before any message
            return
        if kind == "message_start":
            if self.message is None:
                self.message = copy.deepcopy(_object(event, "message"))
            self._usage(event, kind)
        elif kind == "content_block_start":
            self._blocks().append(copy.deepcopy(_object(event, "content_block")))
        elif kind == "content_block_delta":
            self._delta(event)
        elif kind == "message_delta":
            self._message_delta(event)
            self._usage(event, kind)

    def _blocks(self) -> list[Any]:
        assert self.message is not None
        blocks = self.message.setdefault("content", [])
        if not isinstance(blocks, list):
            raise AttributeError(f"'{type(blocks).__name__}' object has no attribute 'append'")
        return blocks

    def _usage(self, event: dict[str, Any], kind: Any) -> None:
        if kind == "message_start":
            self.seen.start(dict(_object(_object(event, "message"), "usage")))
        elif kind == "message_delta" and _field(event, "usage") is not None:
            self.seen.delta(dict(_field(event, "usage")))

    def _delta(self, event: dict[str, Any]) -> None:
        index = _field(event, "index")
        block = self._blocks()[index]
        delta = _field(event, "delta")
        kind, block_kind = _field(delta, "type"), _field(block, "type")
        if kind == "text_delta" and block_kind == "text":
            block["text"] = block.get("text", "") + _field(delta, "text")
        elif kind == "input_json_delta" and block_kind in _TOOL_INPUT_BLOCKS:
            buf = self.json_bufs.get(index, b"") + _field(delta, "partial_json").encode("utf-8")
            if buf:
                block["input"] = _partial_json(buf)
            self.json_bufs[index] = buf
        elif kind == "citations_delta" and block_kind == "text":
            block["citations"] = [*(block.get("citations") or []), _field(delta, "citation")]
        elif kind == "thinking_delta" and block_kind == "thinking":
            block["thinking"] = block.get("thinking", "") + _field(delta, "thinking")
        elif kind == "signature_delta" and block_kind == "thinking":
            block["signature"] = _field(delta, "signature")

    def _message_delta(self, event: dict[str, Any]) -> None:
        assert self.message is not None
        delta, usage = _field(event, "delta"), _field(event, "usage")
        for key in ("stop_reason", "stop_sequence", "stop_details"):
            self.message[key] = _field(delta, key)
        if _field(delta, "container") is not None:
            self.message["container"] = delta["container"]
        final = _object(self.message, "usage")
        final["output_tokens"] = _field(usage, "output_tokens")
        # cumulative totals: they replace; one left out keeps message_start's figure
        for key in (
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "server_tool_use",
            "output_tokens_details",
        ):
            if usage.get(key) is not None:
                final[key] = usage[key]


def _partial_json(buf: bytes) -> Any:
    """A tool input so far, parsed as the SDK parses it (jiter, partial mode: an unfinished
    value is cut back to what is complete; a lone surrogate or deep nesting is refused)."""
    from jiter import from_json  # the SDK's own parser (a dependency of anthropic), ~2 ms

    try:
        return from_json(buf, partial_mode=True)
    except ValueError as exc:
        raise ValueError(
            "Unable to parse tool parameter JSON from model. Please retry your request or "
            f"adjust your prompt. Error: {exc}. JSON: {buf.decode('utf-8')}"
        ) from exc


def stream_message(
    body: str, seen: StreamUsage, *, path: str, retries: int, where: str
) -> dict[str, Any]:
    """The final message of a recorded SSE ``body``; what it said of its usage goes to ``seen``.
    Raises ``Lost`` when the stream broke off, could not be read or carried an error event."""
    acc = _Accumulator(seen)
    try:
        for event, data in sse_events(body):
            if event in ("ping", None):
                continue
            if event == "error":
                raise _error_event(data, path=path, retries=retries, where=where)
            if data:
                acc.take(json.loads(data))
        if acc.message is None:  # the SDK's get_final_message asserts a message began
            raise AssertionError
    except ApiFailure as failure:
        raise seen.lost_as(failure.text, "stream ended by an error event", retry=False) from None
    except Exception as exc:  # anything that stops reading the stream loses it
        raise seen.unreadable(exc) from None
    if not seen.final:
        raise seen.ended_early()
    return acc.message


def _error_event(data: str, *, path: str, retries: int, where: str) -> ApiFailure:
    body: Any = data
    with contextlib.suppress(ValueError):
        body = json.loads(data)
    return ApiFailure(error_text(200, body, path=path, retries=retries, where=where))
