"""The events of Claude Code's ``stream-json`` output: one JSON object a line; anything else on
its stdout (a banner, a half-written last line) is not an event and is passed over."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = ["stream_events"]


def stream_events(stdout: str) -> Iterator[dict[str, Any]]:
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            yield event
