"""Recorded API exchanges, played back without the ``anthropic`` SDK.

A cassette is a JSON file holding, in order, each request the backend made (method, path, JSON
body) and the response it got (status, a few headers, the body text: JSON or SSE). Replaying
answers each request of the research loop the live backend runs (``driver.MessagesDriver``: the
same conversation, deadline and accounting) with the next recorded response, read into a message
as the SDK would read it (``recorded_answers``), labelled ``recorded=True`` everywhere it shows.
Used by the demo library, notebooks and Binder when no API key is set: importing the SDK costs
~1 CPU s (seconds under load), which a replay never waits on; this module imports neither the SDK
nor ``httpx2``.

Recording (``backends.recording``) wraps the real transport: a live run or a run against the
loopback mock is written to a cassette with NO request headers at all and every occurrence of
the credential scrubbed, so a cassette never carries an API key or auth header.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oo_nb.agent.backends.conversation import AgentSettings, Conversation
from oo_nb.agent.backends.driver import AsyncSend, MessagesDriver, Send, StreamUsage
from oo_nb.agent.backends.recorded_answers import (
    ApiFailure,
    json_message,
    status_error,
    stream_message,
)
from oo_nb.agent.deadline import Deadline
from oo_nb.errors import FormatError

__all__ = [
    "CASSETTE_FORMAT",
    "MESSAGES_PATH",
    "REPLAY_BASE_URL",
    "Cassette",
    "ReplayBackend",
    "mismatch_body",
    "next_recorded",
]

CASSETTE_FORMAT = "oo-nb-cassette"
REPLAY_BASE_URL = "https://replay.invalid"  # where a replay's errors say the API is
MESSAGES_PATH = "/v1/messages"  # what every request of the research loop asks for


@dataclass
class Cassette:
    interactions: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> Cassette:
        p = Path(path)
        try:
            raw = json.loads(p.read_text("utf-8"))
        except FileNotFoundError:
            raise FormatError("no such cassette", file=str(p)) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise FormatError(f"cassette is not readable JSON: {exc}", file=str(p)) from None
        if (
            not isinstance(raw, dict)
            or raw.get("format") != CASSETTE_FORMAT
            or not isinstance(raw.get("interactions"), list)
        ):
            raise FormatError(
                f"not an oo_nb cassette (expected format {CASSETTE_FORMAT!r})", file=str(p)
            )
        for n, item in enumerate(raw["interactions"]):
            if not isinstance(item, dict) or not isinstance(item.get("response"), dict):
                raise FormatError(
                    f"interaction {n} has no response", file=str(p), key=f"interactions[{n}]"
                )
        meta = {k: v for k, v in raw.items() if k not in ("format", "interactions")}
        return cls(raw["interactions"], meta)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": CASSETTE_FORMAT,
            "version": 1,
            **self.meta,
            "interactions": self.interactions,
        }

    def save(self, path: str | Path) -> Path:
        from oo_nb.store.store import atomic_write_bytes

        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(self.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
        atomic_write_bytes(p, data, mode=0o644)
        return p

    @property
    def streamed(self) -> bool:
        return any(
            "text/event-stream" in str(i["response"].get("headers", {}).get("content-type", ""))
            for i in self.interactions
        )


# --------------------------------------------------------------------------- playback
def _exhausted(count: int) -> str:
    return f"cassette exhausted: the replayed run made more than {count} requests"


def _mismatch(position: int, want: dict[str, Any], method: str, path: str) -> str:
    """``position``: the request's number, from 1."""
    return (
        f"cassette mismatch at request {position}: recorded {want.get('method')} "
        f"{want.get('path')}, replay asked {method} {path}"
    )


def next_recorded(cassette: Cassette, position: int, method: str, path: str) -> Any:
    """The recorded response for request number ``position + 1`` (method and path must match),
    or the text of why the cassette does not fit (answered as a 400 the run reports)."""
    items = cassette.interactions
    if position >= len(items):
        return _exhausted(len(items))
    item = items[position]
    want = item.get("request", {})
    if (want.get("path") and want.get("path") != path) or want.get("method", "POST") != method:
        return _mismatch(position + 1, want, method, path)
    return item["response"]


def mismatch_body(text: str) -> str:
    """The error body a cassette that does not fit is answered with."""
    return json.dumps(
        {"type": "error", "error": {"type": "invalid_request_error", "message": text}}
    )


class ReplayBackend(MessagesDriver):
    """The research loop fed from a cassette: no network, no key, no SDK; labelled as
    recorded."""

    name = "replay"
    max_retries = 0  # a retry the live run made was recorded as the next exchange

    def __init__(
        self,
        cassette: Cassette | str | Path,
        *,
        model: str | None = None,
        settings: AgentSettings | None = None,
        document: str | None = None,
    ) -> None:
        self.cassette = cassette if isinstance(cassette, Cassette) else Cassette.load(cassette)
        self.document = document  # the file name of the document it is replayed for
        recorded_model = str(self.cassette.meta.get("model") or "") or None
        chosen = recorded_model or model or "claude-sonnet-5-5"
        base = settings or AgentSettings(model=chosen)
        self.model = chosen
        self.settings = AgentSettings(
            **{**base.__dict__, "model": chosen, "stream": self.cassette.streamed}
        )
        self.base_url = REPLAY_BASE_URL
        self.recorded = True
        self.position = 0  # responses played so far

    def ready(self) -> None:
        """A replay needs no key: it can always start."""

    def answer(self, params: dict[str, Any], seen: StreamUsage) -> Any:
        """The message the next recorded response holds; ``ApiFailure`` for an error status
        (or a cassette that does not fit), ``Lost`` for an answer that broke off."""
        found = next_recorded(self.cassette, self.position, "POST", MESSAGES_PATH)
        self.position += 1
        if isinstance(found, str):
            raise status_error(
                400, mismatch_body(found), path=MESSAGES_PATH, retries=0, where=self.base_url
            )
        status = int(found.get("status", 200))
        headers = {str(k).lower(): str(v) for k, v in (found.get("headers") or {}).items()}
        body = str(found.get("body", ""))
        if not 200 <= status < 300:
            raise status_error(
                status, body, path=MESSAGES_PATH, retries=self.max_retries, where=self.base_url
            )
        if self.settings.stream:
            return stream_message(
                body, seen, path=MESSAGES_PATH, retries=self.max_retries, where=self.base_url
            )
        return json_message(body, headers.get("content-type", "*"))

    def failure_text(self, exc: BaseException) -> str | None:
        return exc.text if isinstance(exc, ApiFailure) else None

    def foreign(self) -> str | None:
        """The warning for a cassette recorded for another document than this replay's (its
        answers are that document's research), or None."""
        recorded_for = self.cassette.meta.get("document")
        if not isinstance(recorded_for, str) or not self.document:
            return None
        if recorded_for == self.document:
            return None
        return (
            f"the cassette was recorded for {recorded_for!r}, not {self.document!r}: "
            "what it proposes is that document's research"
        )

    def _say_foreign(self, conv: Conversation) -> None:
        if (said := self.foreign()) is not None:
            conv.run.warnings.append(f"{said}; kept for review, not written automatically")
            conv.run.foreign_recording = True

    @contextlib.contextmanager
    def session(self, conv: Conversation, deadline: Deadline) -> Iterator[Send]:
        self._say_foreign(conv)
        yield lambda params, seen, deadline: self.answer(params, seen)

    @contextlib.asynccontextmanager
    async def asession(self, conv: Conversation, deadline: Deadline) -> AsyncIterator[AsyncSend]:
        self._say_foreign(conv)

        async def send(params: dict[str, Any], seen: StreamUsage, deadline: Deadline) -> Any:
            return self.answer(params, seen)

        yield send
