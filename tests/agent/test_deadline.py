"""A hung API server: one deadline per update (``--timeout``, default 600 s) across requests,
retries and continuation turns, and a progress line at least every ``HEARTBEAT_S`` while one
request is waited on. Timings here only use generous upper bounds; the figures are in the
reliability table ("8 attack")."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from oo_nb.agent import deadline as deadline_module
from oo_nb.agent.backends.anthropic import AnthropicBackend
from oo_nb.agent.backends.conversation import AgentSettings
from oo_nb.agent.deadline import (
    DEFAULT_DEADLINE_S,
    Deadline,
    DeadlinePassed,
    await_with_deadline,
    call_with_deadline,
)
from oo_nb.agent.many import update_library
from oo_nb.agent.run import UpdateOptions
from oo_nb.cli.main import main
from oo_nb.cli.verbs import build_parser
from oo_nb.errors import AgentError
from tests.support.agent_helpers import (
    DOCS,
    MARKER,
    copy_doc,
    no_history_written,
    run_backend,
    start_mock,
)
from tests.support.magic_helpers import oo
from tests.support.mock_api import MockAPI, Reply, Script, error_reply, message
from tests.support.mock_scenarios import endless_pause, research_scenario, text

GENEROUS_S = 20.0  # an upper bound for "stopped at the deadline" on a loaded machine
HEARTBEAT = 0.2


@pytest.fixture
def quick_heartbeat(monkeypatch: pytest.MonkeyPatch) -> float:
    monkeypatch.setattr(deadline_module, "HEARTBEAT_S", HEARTBEAT)
    return HEARTBEAT


def hang() -> Reply:
    return Reply(message=message([text("late")]), fault="hang")


def api_backend(mock: MockAPI, deadline_s: float, **settings: object) -> AnthropicBackend:
    return AnthropicBackend(
        model="claude-sonnet-5-5",
        api_key=MARKER,
        base_url=mock.base_url,
        max_retries=2,
        deadline_s=deadline_s,
        settings=AgentSettings(model="claude-sonnet-5-5", **settings),  # type: ignore[arg-type]
    )


# --------------------------------------------------------------------------- the waiters
def test_call_with_deadline_returns_raises_and_tells(quick_heartbeat: float) -> None:
    lines: list[str] = []
    assert call_with_deadline(lambda: 42, Deadline(5), lines.append) == 42
    with pytest.raises(KeyError):
        call_with_deadline(lambda: {}["x"], Deadline(5), lines.append)
    assert lines == []
    with pytest.raises(DeadlinePassed):
        call_with_deadline(lambda: time.sleep(5), Deadline(1.0), lines.append)
    assert len(lines) >= 2 and all(line.startswith("still waiting for the API (") for line in lines)


def test_await_with_deadline_cancels_the_request(quick_heartbeat: float) -> None:
    lines: list[str] = []
    cancelled: list[bool] = []

    async def slow() -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def quick() -> int:
        return 7

    async def both() -> None:
        assert await await_with_deadline(quick(), Deadline(5), lines.append) == 7
        with pytest.raises(DeadlinePassed):
            await await_with_deadline(slow(), Deadline(1.0), lines.append)

    asyncio.run(both())
    assert cancelled == [True] and len(lines) >= 2


# --------------------------------------------------------------------------- the command
@pytest.mark.parametrize("stream", [False, True])
def test_a_hung_server_stops_at_the_deadline_with_progress_lines(
    stream: bool,
    quick_heartbeat: float,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Nothing was printed for minutes and the worst case was ~30 (600 s per attempt, 3
    attempts, per request). Now `--timeout` holds and a line comes every HEARTBEAT_S."""
    mock = start_mock(Script([hang()], repeat_last=True))
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    path = copy_doc(tmp_path)
    before = path.read_bytes()
    args = ["update", str(path), "--force", "--yes", "--base-url", mock.base_url]
    started = time.monotonic()
    try:
        assert main([*args, "--timeout", "1.5", *(["--stream"] if stream else [])]) == 2
    finally:
        mock.stop()
    assert time.monotonic() - started < GENEROUS_S
    err = capsys.readouterr().err.splitlines()
    waiting = [line for line in err if line.startswith("  still waiting for the API (")]
    assert len(waiting) >= 3, err
    assert err[-1] == (
        f"oo update: error: {path}: no answer from the API within the deadline (1.5 s, set by "
        "--timeout) (cost so far $0.0000); nothing was written"
    )
    assert path.read_bytes() == before and no_history_written(path)


def test_the_deadline_holds_across_retries(quick_heartbeat: float) -> None:
    """The SDK would retry a 529 three times, waiting the server's retry-after each time."""
    mock = start_mock(
        Script([error_reply(529, "overloaded_error", "busy", retry_after_ms=700)], repeat_last=True)
    )
    started = time.monotonic()
    try:
        with pytest.raises(AgentError, match=r"within the deadline \(1 s"):
            run_backend(api_backend(mock, deadline_s=1.0))
    finally:
        mock.stop()
    assert time.monotonic() - started < GENEROUS_S


def test_the_deadline_holds_across_continuation_turns(quick_heartbeat: float) -> None:
    """Each pause_turn answer arrives in time; the run as a whole does not."""
    slow = endless_pause()

    def respond(request: object) -> Reply:
        reply = slow(request)  # type: ignore[arg-type]
        reply.delay = 0.4
        return reply

    mock = start_mock(respond)
    try:
        with pytest.raises(AgentError, match=r"within the deadline \(1.5 s") as err:
            run_backend(api_backend(mock, deadline_s=1.5, max_continuations=100, max_requests=100))
    finally:
        mock.stop()
    assert 2 <= len(mock.message_requests) < 10
    assert err.value.cost_usd > 0  # the answers that did arrive are counted


def test_update_all_gives_each_document_its_deadline(
    quick_heartbeat: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mock = start_mock()
    good = research_scenario(base_url=lambda: mock.base_url, with_image=False)
    mock.responder = lambda req: hang() if "AGI Declared" in req.raw.decode() else good(req)
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    for name in DOCS[:2]:
        copy_doc(tmp_path, name)
    steps: list[str] = []
    opts = UpdateOptions(force=True, base_url=mock.base_url, timeout_s=1.5, progress=steps.append)
    try:
        outcome = update_library(tmp_path, opts, concurrency=2, progress=False)
    finally:
        mock.stop()
    assert [r.path.name for r in outcome.by_status("proposed")] == [DOCS[1]]
    (failure,) = outcome.failures.values()
    assert "no answer from the API within the deadline (1.5 s" in failure
    assert any(s.startswith("agi-declared: still waiting for the API") for s in steps)


def test_timeout_flag_everywhere(shell: InteractiveShell, tmp_path: Path) -> None:
    for verb in ("update", "update-all"):
        parser = build_parser(verbs=[verb])
        assert parser.parse_args([verb, "x", "--timeout", "90"]).timeout == 90.0
        assert parser.parse_args([verb, "x"]).timeout is None  # the backend's default
        for bad in ("0", "-3", "nan", "inf", "soon"):
            with pytest.raises(SystemExit):
                parser.parse_args([verb, "x", "--timeout", bad])
    with pytest.raises(UsageError, match="--timeout: must be more than 0 seconds"):
        oo(shell, f"update {tmp_path / 'x.o-o.html'} --timeout 0")
    assert DEFAULT_DEADLINE_S == 600 and deadline_module.HEARTBEAT_S <= 30
