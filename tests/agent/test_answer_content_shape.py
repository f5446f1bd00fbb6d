"""An answer is untrusted input: one whose ``content`` is not a list (an Anthropic-compatible
endpoint's, a hand-made cassette's) ends the run with an AgentError naming the request and the
field, its cost counted, and not with a TypeError traceback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from oo_nb.errors import AgentError
from tests.support.agent_helpers import backend, run_backend, start_mock
from tests.support.mock_api import Reply

USAGE = {"input_tokens": 1000, "output_tokens": 50}


@pytest.mark.parametrize("content", [5, "text", {"type": "text"}])
def test_an_answer_whose_content_is_not_a_list_is_a_clear_agent_error(
    content: Any, recwarn: pytest.WarningsRecorder
) -> None:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": "end_turn",
        "usage": USAGE,
    }
    mock = start_mock([Reply(body=json.dumps(body).encode())])
    try:
        with pytest.raises(AgentError) as err:
            run_backend(backend(mock))
    finally:
        mock.stop()
    text = str(err.value)
    assert "answer 1" in text and f"`content` is {type(content).__name__}, not a list" in text, text
    assert err.value.cost_usd > 0  # the request was billed: counted
    assert not [w for w in recwarn if "serializ" in str(w.message)]  # no pydantic warning first
