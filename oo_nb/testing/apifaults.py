"""The API fault matrix: ``oo update DOC --force --yes`` (the command's own ``run``, formatted as
the CLI prints it) against the loopback mock serving one fault each. For every fault: was the
document (or a pending proposal) written, did the run spend more than its budget, and what does
the user read."""

from __future__ import annotations

import contextlib
import shutil
import time
import unittest.mock
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import OOError
from ..store import history_dir
from .corpus import corpus_dir
from .figures import Figure

__all__ = ["FaultCase", "api_faults", "fault_cases", "run_update"]

BUDGET_USD = 0.50
DOC = "agi-declared.o-o.html"
TEST_KEY = "sk-ant-test-apifaults"
Responder = Callable[[Any], Any]


@dataclass(frozen=True)
class FaultCase:
    name: str
    responder: Callable[[Any], Responder]  # gets the MockAPI (for its base URL)
    args: tuple[str, ...] = ()
    should_write: bool = False  # a recovered fault may write; a failure never may
    timeout_s: float = 30.0
    over_reported: bool = False  # the mock reports more usage than was sent (over budget by design)


def fault_cases() -> list[FaultCase]:
    from .mock_api import Reply, Script, error_reply, message
    from .mock_scenarios import endless_pause, research_scenario, text, tool_use

    def research(mock: Any) -> Responder:
        return research_scenario(base_url=lambda: mock.base_url, with_image=False)

    def script(*items: Any, repeat: bool = False) -> Callable[[Any], Responder]:
        return lambda mock: Script(list(items), repeat_last=repeat)

    def first_then_research(reply: Any) -> Callable[[Any], Responder]:
        return lambda mock: Script([reply, research(mock)], repeat_last=True)

    def over_reporting(mock: Any) -> Responder:
        inner = research(mock)

        def respond(req: Any) -> Any:
            reply = inner(req)
            reply.message["usage"]["input_tokens"] = 3_000_000
            return reply

        return respond

    submit_bad = message([tool_use("submit_proposal", {"summary": 1, "sections": "none"})], "tool_use")
    return [
        FaultCase("429 rate limit (every try)", script(error_reply(429, "rate_limit_error", "slow down", retry_after_ms=5), repeat=True)),
        FaultCase("429 once, then a good answer", first_then_research(error_reply(429, "rate_limit_error", "slow down", retry_after_ms=5)), should_write=True),
        FaultCase("529 overloaded", script(error_reply(529, "overloaded_error", "Overloaded", retry_after_ms=5), repeat=True)),
        FaultCase("500 server error", script(error_reply(500, "api_error", "Internal server error", retry_after_ms=5), repeat=True)),
        FaultCase("400 bad request", script(error_reply(400, "invalid_request_error", "temperature: not supported"))),
        FaultCase("401 bad key", script(error_reply(401, "authentication_error", "invalid x-api-key"))),
        FaultCase("timeout (no answer)", script(Reply(message=message([text("x")]), fault="hang"), repeat=True), timeout_s=0.5),
        FaultCase("connection reset", script(Reply(message=message([text("x")]), fault="reset"), repeat=True)),
        FaultCase("error event mid-stream", script(Reply(message=message([text("x")]), fault="stream_error")), args=("--stream",)),
        FaultCase("malformed submit_proposal", script(submit_bad, submit_bad)),
        FaultCase("missing submit_proposal", script(message([text("Done.")], "end_turn"), message([text("Done.")], "end_turn"))),
        FaultCase("endless pause_turn", lambda mock: endless_pause()),
        FaultCase("refusal", script(message([text("I can't help with that.")], "refusal"))),
        FaultCase("max_tokens", script(message([text("...")], "max_tokens"))),
        FaultCase("budget too small to start", research, args=("--budget", "0.02")),
        FaultCase("API reports more usage than sent", over_reporting, over_reported=True),
    ]


@contextmanager
def _short_timeout(seconds: float, key: str) -> Iterator[None]:
    """The CLI path with a backend whose HTTP timeout is ``seconds`` (the default is minutes)."""
    from ..agent import run as run_module
    from ..agent.backends.anthropic import AnthropicBackend
    from ..agent.backends.conversation import AgentSettings

    def make_backend(agent: str, opts: Any, model: str, doc_path: Path) -> Any:
        return AnthropicBackend(
            model=model, api_key=key, base_url=opts.base_url, timeout=seconds, max_retries=1,
            settings=AgentSettings(model=model, stream=opts.stream),
        )

    with unittest.mock.patch.object(run_module, "make_backend", make_backend):
        yield


def run_update(
    path: Path, base_url: str, args: tuple[str, ...], *, key: str, timeout_s: float = 30.0, yes: bool = True,
    patch_backend: bool = True,
) -> dict[str, Any]:
    """``oo update PATH --force [--yes]`` as the CLI runs it; returns the text the user sees,
    the exit code, the cost and the exception (for the secrets check). ``patch_backend`` gives
    the backend a short HTTP timeout (the only change to the CLI path)."""
    from ..commands import build_parser, load

    argv = ["update", str(path), "--force", "--agent", "anthropic", "--base-url", base_url, *args]
    argv += ["--yes"] if yes else []
    if "--budget" not in args:
        argv += ["--budget", f"{BUDGET_USD}"]
    ns = build_parser().parse_args(argv)
    backend = _short_timeout(timeout_s, key) if patch_backend else contextlib.nullcontext()
    with backend, unittest.mock.patch.dict("os.environ", {"ANTHROPIC_API_KEY": key}):
        try:
            outcome = load("update").run(ns)
        except OOError as exc:
            return {"text": f"oo update: error: {exc}", "exit": 2, "cost": float(getattr(exc, "cost_usd", 0.0)), "exc": exc}
    return {"text": outcome.to_text(), "exit": outcome.exit_code, "cost": outcome.result.cost_usd, "exc": None}


def api_faults(workdir: Path) -> list[Figure]:
    from .mock_api import MockAPI

    rows: list[Figure] = []
    writes_on_failure = over_budget = 0
    cases = fault_cases()
    for i, case in enumerate(cases):
        folder = workdir / f"case{i}"
        folder.mkdir(parents=True)
        path = folder / DOC
        shutil.copy(corpus_dir() / DOC, path)
        before = path.read_bytes()
        mock = MockAPI(api_key=TEST_KEY).start()
        try:
            mock.responder = case.responder(mock)
            started = time.perf_counter()
            out = run_update(path, mock.base_url, case.args, key=TEST_KEY, timeout_s=case.timeout_s)
            elapsed = time.perf_counter() - started
            requests = len(mock.message_requests)
        finally:
            mock.stop()
        changed = path.read_bytes() != before
        pending = (history_dir(path) / "pending.json").exists()
        wrote = changed or (pending and not case.over_reported)
        bad_write = wrote and not case.should_write
        budget = 0.02 if "--budget" in case.args else BUDGET_USD
        overspent = out["cost"] > budget + 1e-9 and not case.over_reported
        writes_on_failure += bad_write
        over_budget += overspent
        verdict = not bad_write and not overspent and (not case.over_reported or not changed)
        state = "written" if changed else "kept for review" if pending else "nothing written"
        message = out["text"].replace(str(path), DOC).replace(str(folder), ".")
        rows.append(
            Figure(
                "5 api", case.name, f"{requests} req",
                f"[{state}, ${out['cost']:.4f}, {elapsed:.1f}s] {message}",
                "written" if case.should_write else "kept, not written" if case.over_reported else "no write, ≤ budget",
                verdict,
            )
        )
    rows.append(Figure("5 api", "writes on failure", len(cases), writes_on_failure, "0", writes_on_failure == 0))
    rows.append(Figure("5 api", "spend above budget", len(cases), over_budget, "0", over_budget == 0))
    return rows
