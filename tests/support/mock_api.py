"""A loopback mock of the Anthropic Messages API: a real HTTP server on 127.0.0.1 in a thread.

Tests, notebooks' CI and benchmarks point the SDK at it (``base_url=mock.base_url`` or
``ANTHROPIC_BASE_URL``). It accepts ``Authorization: Bearer KEY`` and ``x-api-key: KEY``, serves
``/v1/messages`` (with or without ``?beta=true``) as JSON or SSE (following the request's
``stream`` flag), ``/v1/messages/count_tokens``, the Message Batches endpoints (``results_url``
points at itself; ``.../cancel`` too) and ``/img/NAME.png`` (a small PNG, for image downloads).

What it answers is scriptable per request: a *responder* receives a ``MockRequest`` and returns a
``Reply`` (a message, an error status with headers, or a fault: connection reset, hang, error
event mid-stream, a stream cut or garbled after its first half, a JSON body cut mid-way).
``Script`` plays replies in order; ``mock_scenarios`` holds the canned
research turn. Every request is recorded in ``requests`` for asserts. Requests with
``cache_control`` marks get the API's cache figures in their usage (``mock_cache``: a write on the
first request with a prefix, readable once its response begins, i.e. after ``latency``; reads on
later ones; ``prompt_cache=False`` turns it off).

    with MockAPI(research_scenario()) as mock:
        client = Anthropic(api_key="sk-ant-test-MARKER", base_url=mock.base_url)
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from tests.support.mock_cache import CacheRefusal, CacheUse, PromptCache
from tests.support.mock_messages import PNG_CHART, message, new_id, sse_events, sse_stream

__all__ = [
    "PNG_CHART",
    "MockAPI",
    "MockRequest",
    "Reply",
    "Script",
    "error_reply",
    "message",
    "sse_events",
]

Fault = Literal["reset", "hang", "stream_error", "stream_garbage", "truncate"]


@dataclass(frozen=True)
class MockRequest:
    method: str
    path: str  # without the query string
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: Any  # parsed JSON (None when empty)
    raw: bytes

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []


@dataclass
class Reply:
    """One scripted answer. ``message`` is a Messages API message dict (sent as JSON or SSE);
    ``error`` an error body sent with ``status``; ``fault`` breaks the connection instead."""

    message: dict[str, Any] | None = None
    status: int = 200
    error: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    fault: Fault | None = None
    delay: float = 0.0
    stream: bool | None = None  # None: as the request asks
    body: bytes | None = None  # raw body (overrides message/error)
    cache_use: CacheUse | None = None  # cache entries to publish once the response begins


Responder = Callable[[MockRequest], Reply]


def error_reply(
    status: int,
    kind: str,
    text: str,
    *,
    retry_after_ms: int | None = None,
    should_retry: bool | None = None,
) -> Reply:
    headers: dict[str, str] = {}
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    if should_retry is not None:
        headers["x-should-retry"] = "true" if should_retry else "false"
    return Reply(
        status=status,
        error={"type": "error", "error": {"type": kind, "message": text}},
        headers=headers,
    )


class Script:
    """Replies in order (thread-safe). An item may be a ``Reply``, a message dict, or a responder
    called with the request. When the script runs out it answers 500 without retry, loudly."""

    def __init__(
        self, items: Iterable[Reply | dict[str, Any] | Responder], *, repeat_last: bool = False
    ) -> None:
        self.items = list(items)
        self.repeat_last = repeat_last
        self.used = 0
        self._lock = threading.Lock()

    def __call__(self, request: MockRequest) -> Reply:
        with self._lock:
            if self.used < len(self.items):
                item = self.items[self.used]
                self.used += 1
            elif self.repeat_last and self.items:
                item = self.items[-1]
            else:
                return error_reply(500, "api_error", "mock script exhausted", should_retry=False)
        if isinstance(item, Reply):
            return item
        if isinstance(item, dict):
            return Reply(message=item)
        return item(request)


# --------------------------------------------------------------------------- the server
class MockAPI:
    """The server. ``responder`` answers ``/v1/messages``; ``latency`` seconds are added to every
    answer; ``api_key`` (if given) must match the request's credential, else 401."""

    def __init__(
        self,
        responder: Responder | Sequence[Reply | dict[str, Any] | Responder] | None = None,
        *,
        latency: float = 0.0,
        api_key: str | None = None,
        batch_polls: int = 1,
        batch_retrieve_error: Reply | None = None,
        prompt_cache: bool = True,
    ) -> None:
        if responder is None:
            responder = Script([])
        elif not callable(responder):
            responder = Script(responder)
        self.responder: Responder = responder
        self.latency = latency
        self.api_key = api_key
        self.batch_polls = batch_polls  # retrieves answered "in_progress" before "ended"
        # an error answer for every batch retrieve (to test a poll that fails), else None
        self.batch_retrieve_error = batch_retrieve_error
        # how many requests of a batch finish (and are billed) before a cancel takes effect
        self.batch_done_before_cancel = 0
        # what /v1/messages/count_tokens answers: the count (default: request bytes / 4, about
        # what the real tokenizer gives English), or this error reply (a proxy without it, say)
        self.count_tokens: Callable[[bytes], int] = lambda raw: max(1, len(raw) // 4)
        self.count_tokens_error: Reply | None = None
        self.count_latency = 0.0  # seconds before a count is answered (``latency``: messages only)
        # what the mock's prompt cache holds (None: cache marks are ignored)
        self.prompt_cache: PromptCache | None = PromptCache() if prompt_cache else None
        self.requests: list[MockRequest] = []
        self.batches: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle
    def start(self) -> MockAPI:
        handler = type("Handler", (_Handler,), {"mock": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="mock-anthropic",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> MockAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("mock server not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def message_requests(self) -> list[MockRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == "/v1/messages"]

    def _record(self, request: MockRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def wait(self, seconds: float) -> None:
        """Sleep that ends early when the server stops (hangs must not outlive a test)."""
        self._stopping.wait(seconds)

    # batches
    def create_batch(self, body: Any) -> dict[str, Any]:
        now = datetime.now(UTC)
        batch_id = f"msgbatch_mock_{new_id():06d}"
        requests = list(body.get("requests", [])) if isinstance(body, dict) else []
        record = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": {
                "processing": len(requests),
                "succeeded": 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": now.isoformat(),
            "expires_at": (now + timedelta(hours=24)).isoformat(),
            "ended_at": None,
            "cancel_initiated_at": None,
            "archived_at": None,
            "results_url": None,
            "_requests": requests,
            "_polls": 0,
            "_results": None,
        }
        with self._lock:
            self.batches[batch_id] = record
        return _public(record)

    def retrieve_batch(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            record = self.batches.get(batch_id)
        if record is None:
            return None
        record["_polls"] += 1
        done = record["_polls"] > self.batch_polls or record.get("_cancel")
        if done and record["_results"] is None:
            self._finish_batch(record)
        return _public(record)

    def cancel_batch(self, batch_id: str) -> dict[str, Any] | None:
        """``POST /v1/messages/batches/{id}/cancel``: an unfinished batch goes to "canceling"
        and ends at the next retrieve, its first ``batch_done_before_cancel`` requests answered
        and the rest "canceled". An ended batch is returned unchanged."""
        with self._lock:
            record = self.batches.get(batch_id)
        if record is None:
            return None
        if record["processing_status"] != "ended":
            record.update(
                processing_status="canceling",
                cancel_initiated_at=datetime.now(UTC).isoformat(),
                _cancel=True,
            )
        return _public(record)

    def cached(self, request: MockRequest, reply: Reply) -> Reply:
        """``reply`` with the cache figures the API would report for ``request`` (a 400 for
        cache marks it refuses)."""
        if self.prompt_cache is None or reply.message is None or reply.status != 200:
            return reply
        try:
            msg, use = self.prompt_cache.apply(request.body, reply.message)
        except CacheRefusal as exc:
            return error_reply(400, "invalid_request_error", str(exc))
        return reply if msg is reply.message else replace(reply, message=msg, cache_use=use)

    def begin_response(self, reply: Reply) -> None:
        """The response to ``reply``'s request has begun: what it wrote becomes readable."""
        if self.prompt_cache is not None:
            self.prompt_cache.publish(reply.cache_use)

    def _finish_batch(self, record: dict[str, Any]) -> None:
        lines, counts = (
            [],
            {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
        )
        for n, item in enumerate(record["_requests"]):
            if record.get("_cancel") and n >= self.batch_done_before_cancel:
                lines.append(
                    json.dumps({"custom_id": item.get("custom_id"), "result": {"type": "canceled"}})
                )
                counts["canceled"] += 1
                continue
            params = dict(item.get("params", {}))
            params.pop("stream", None)
            request = MockRequest(
                "POST", "/v1/messages", {}, {}, params, json.dumps(params).encode()
            )
            reply = self.cached(request, self.responder(request))
            self.begin_response(reply)
            if reply.message is not None and reply.fault is None and reply.status == 200:
                result: dict[str, Any] = {"type": "succeeded", "message": reply.message}
                counts["succeeded"] += 1
            else:
                err = reply.error or {
                    "type": "error",
                    "error": {"type": "api_error", "message": "mock fault"},
                }
                result = {"type": "errored", "error": err}
                counts["errored"] += 1
            lines.append(json.dumps({"custom_id": item.get("custom_id"), "result": result}))
        record.update(
            processing_status="ended",
            request_counts=counts,
            ended_at=datetime.now(UTC).isoformat(),
            results_url=f"{self.base_url}/v1/messages/batches/{record['id']}/results",
            _results="\n".join(lines) + "\n",
        )


def _public(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not k.startswith("_")}


class _Handler(BaseHTTPRequestHandler):
    mock: MockAPI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def finish(self) -> None:
        with contextlib.suppress(OSError):  # the connection was reset on purpose
            super().finish()

    # routing
    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        request = MockRequest(
            method,
            parts.path,
            parse_qs(parts.query),
            {k.lower(): v for k, v in self.headers.items()},
            body,
            raw,
        )
        self.mock._record(request)
        if parts.path.startswith("/img/"):
            self._send(200, PNG_CHART, "image/png")
            return
        if not self._authorised(request):
            self._json(
                401,
                {
                    "type": "error",
                    "error": {"type": "authentication_error", "message": "invalid x-api-key"},
                },
            )
            return
        path = parts.path.rstrip("/")
        if method == "POST" and path == "/v1/messages":
            self._messages(request)
        elif method == "POST" and path == "/v1/messages/count_tokens":
            if self.mock.count_latency:
                self.mock.wait(self.mock.count_latency)
            failure = self.mock.count_tokens_error
            if failure is not None:
                self._json(failure.status, failure.error, failure.headers)
            else:
                self._json(200, {"input_tokens": self.mock.count_tokens(raw)})
        elif method == "POST" and path == "/v1/messages/batches":
            self._json(200, self.mock.create_batch(body))
        elif (
            method == "POST"
            and path.startswith("/v1/messages/batches/")
            and path.endswith("/cancel")
        ):
            batch_id = path.split("/")[4]
            cancelled = self.mock.cancel_batch(batch_id)
            if cancelled is None:
                self._json(
                    404,
                    {
                        "type": "error",
                        "error": {"type": "not_found_error", "message": f"no batch {batch_id}"},
                    },
                )
            else:
                self._json(200, cancelled)
        elif method == "GET" and path.startswith("/v1/messages/batches/"):
            self._batch(path.split("/")[4:])
        else:
            self._json(
                404,
                {
                    "type": "error",
                    "error": {"type": "not_found_error", "message": f"no route {method} {path}"},
                },
            )

    def _authorised(self, request: MockRequest) -> bool:
        bearer = request.headers.get("authorization", "")
        key = (
            bearer[7:]
            if bearer.lower().startswith("bearer ")
            else request.headers.get("x-api-key", "")
        )
        if not key:
            return False
        return self.mock.api_key is None or key == self.mock.api_key

    def _batch(self, rest: list[str]) -> None:
        batch_id = rest[0] if rest else ""
        fault = self.mock.batch_retrieve_error
        if fault is not None and len(rest) == 1:
            self._json(fault.status, fault.error, fault.headers)
            return
        record = (
            self.mock.retrieve_batch(batch_id)
            if len(rest) == 1
            else self.mock.batches.get(batch_id)
        )
        if record is None:
            self._json(
                404,
                {
                    "type": "error",
                    "error": {"type": "not_found_error", "message": f"no batch {batch_id}"},
                },
            )
        elif len(rest) == 2 and rest[1] == "results":
            results = self.mock.batches[batch_id].get("_results")
            if results is None:
                self._json(
                    400,
                    {
                        "type": "error",
                        "error": {
                            "type": "invalid_request_error",
                            "message": "batch still processing",
                        },
                    },
                )
            else:
                self._send(200, results.encode(), "application/binary")
        else:
            self._json(200, _public(record))

    def _messages(self, request: MockRequest) -> None:
        reply = self.mock.cached(request, self.mock.responder(request))
        wait = self.mock.latency + reply.delay
        if wait:
            self.mock.wait(wait)
        if reply.fault == "reset":
            self._reset()
            return
        if reply.fault == "hang":
            self.mock.wait(60)
            self._reset()
            return
        self.mock.begin_response(reply)
        if reply.body is not None:
            self._send(reply.status, reply.body, "application/json", reply.headers)
        elif reply.error is not None or reply.status != 200:
            self._json(reply.status, reply.error or {}, reply.headers)
        elif reply.message is not None:
            stream = request.stream if reply.stream is None else reply.stream
            if stream:
                self._stream(reply)
            elif reply.fault == "truncate":
                data = json.dumps(reply.message).encode()
                self._send(
                    200, data[: len(data) // 2], "application/json", reply.headers, length=len(data)
                )
                self._reset()
            else:
                self._json(200, reply.message, reply.headers)
        else:
            self._json(
                500,
                {"type": "error", "error": {"type": "api_error", "message": "empty mock reply"}},
            )

    # writing
    def _stream(self, reply: Reply) -> None:
        assert reply.message is not None
        events = sse_events(reply.message)
        if reply.fault == "stream_error":
            events = [
                *events[: max(2, len(events) // 2)],
                (
                    "error",
                    {
                        "type": "error",
                        "error": {"type": "overloaded_error", "message": "Overloaded"},
                    },
                ),
            ]
        elif reply.fault in ("truncate", "stream_garbage"):  # the first half, then a break
            events = events[: max(2, len(events) // 2)]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", f"req_mock_{new_id():06d}")
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.end_headers()
        for chunk in sse_stream(events):
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.flush()
        if reply.fault == "stream_garbage":  # an event the SDK cannot read, then a clean end
            chunk = b'event: content_block_delta\ndata: {"type": "content_block_delta", "ind\n\n'
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        if reply.fault == "truncate":
            # Closed without the final chunk (FIN, not RST): what was sent arrives, then the
            # client finds the body incomplete, as when a proxy drops a long stream.
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(body).encode(), "application/json", headers)

    def _send(
        self,
        status: int,
        data: bytes,
        ctype: str,
        headers: dict[str, str] | None = None,
        length: int | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data) if length is None else length))
        self.send_header("request-id", f"req_mock_{new_id():06d}")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _reset(self) -> None:
        """Abort the connection with a TCP reset (SO_LINGER 0), as a dropped connection looks."""
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.close()
