"""Message shapes for the loopback mock: Messages API message dicts, their SSE event stream, and
the chart PNG the mock serves. Plain data, no server."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["PNG_CHART", "message", "new_id", "sse_events", "sse_stream"]

_ids = itertools.count(1)


def new_id() -> int:
    """A process-wide counter for mock ids (messages, batches, request ids)."""
    return next(_ids)


def _chart_png() -> bytes:
    """A 96×64 PNG with transparency (what ``/img/*.png`` serves): big enough to be kept."""
    import io

    from PIL import Image, ImageDraw

    img = Image.new("RGBA", (96, 64), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    for i, h in enumerate((20, 35, 50, 28)):
        draw.rectangle((8 + i * 22, 60 - h, 24 + i * 22, 60), fill=(40, 90, 200, 255))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


PNG_CHART = _chart_png()


def message(
    content: Sequence[dict[str, Any]],
    stop_reason: str = "end_turn",
    *,
    model: str = "claude-sonnet-5-5",
    input_tokens: int = 1000,
    output_tokens: int = 200,
    searches: int = 0,
    fetches: int = 0,
) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    if searches or fetches:
        usage["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": fetches}
    return {
        "id": f"msg_mock_{new_id():06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def sse_events(msg: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The streaming events that rebuild ``msg`` (text and JSON inputs split into deltas)."""
    start = {
        **msg,
        "content": [],
        "stop_reason": None,
        "usage": {**msg["usage"], "output_tokens": 1},
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for index, block in enumerate(msg["content"]):
        kind = block.get("type")
        head: dict[str, Any]
        deltas: list[dict[str, Any]]
        if kind == "text":
            head = {"type": "text", "text": ""}
            deltas = [
                {"type": "text_delta", "text": part} for part in _chunks(block.get("text", ""))
            ]
            deltas += [
                {"type": "citations_delta", "citation": c} for c in block.get("citations") or []
            ]
        elif kind in ("tool_use", "server_tool_use"):
            head = {**block, "input": {}}
            raw = json.dumps(block.get("input", {}))
            deltas = [{"type": "input_json_delta", "partial_json": part} for part in _chunks(raw)]
        else:
            head, deltas = block, []
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": head},
            )
        )
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta_usage = {k: v for k, v in msg["usage"].items() if k != "cache_creation"}
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                "usage": delta_usage,
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _chunks(text: str, size: int = 400) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def sse_stream(events: Iterable[tuple[str, dict[str, Any]]]) -> Iterable[bytes]:
    for name, data in events:
        yield f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
