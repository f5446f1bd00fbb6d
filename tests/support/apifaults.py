"""The API fault matrix: ``oo update DOC --force --yes`` (the command's own ``run``, formatted as
the CLI prints it) against the loopback mock serving one fault each. For every fault: was the
document (or a pending proposal) written, did the run spend more than its budget, and what does
the user read.

Spend is counted on the wire, not taken from the tool: every reply the mock actually delivered
is recorded and its ``usage`` priced (``pricing.cost_usd`` at the requested model's rates). A
reply that never arrived (connection reset, hang) costs nothing; a stream cut by an error event
costs the usage in the events that were sent. The case where the mock reports more usage than
the request could hold is an expected overspend: its own row checks that it was detected and
that the document was not written."""

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

from oo_nb.errors import OOError
from oo_nb.store.store import history_dir
from tests.support.corpus import corpus_dir
from tests.support.figures import Figure

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
    budget_stop: bool = False  # must stop on the budget after at least one request (mid-run)


def fault_cases() -> list[FaultCase]:
    from tests.support.mock_api import Reply, Script, error_reply, message
    from tests.support.mock_scenarios import (
        endless_pause,
        research_scenario,
        search_result,
        server_tool_use,
        text,
        tool_use,
    )

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

    def costly_pause(req: Any) -> Reply:
        """Searches on and on, each answer billing what its request really held (a third of its
        bytes, as tokens) and 4,000 output tokens: the budget runs out after a few requests."""
        block = f"srvtoolu_mock_{len(req.messages)}"
        content = [
            server_tool_use("web_search", {"query": "more"}, block),
            search_result(block, [("https://example.org/x", "X")]),
        ]
        return Reply(
            message=message(
                content,
                "pause_turn",
                input_tokens=len(req.raw) // 3,
                output_tokens=4000,
                searches=1,
            )
        )

    submit_bad = message(
        [tool_use("submit_proposal", {"summary": 1, "sections": "none"})], "tool_use"
    )
    return [
        FaultCase(
            "429 rate limit (every try)",
            script(
                error_reply(429, "rate_limit_error", "slow down", retry_after_ms=5), repeat=True
            ),
        ),
        FaultCase(
            "429 once, then a good answer",
            first_then_research(
                error_reply(429, "rate_limit_error", "slow down", retry_after_ms=5)
            ),
            should_write=True,
        ),
        FaultCase(
            "529 overloaded",
            script(
                error_reply(529, "overloaded_error", "Overloaded", retry_after_ms=5), repeat=True
            ),
        ),
        FaultCase(
            "500 server error",
            script(
                error_reply(500, "api_error", "Internal server error", retry_after_ms=5),
                repeat=True,
            ),
        ),
        FaultCase(
            "400 bad request",
            script(error_reply(400, "invalid_request_error", "temperature: not supported")),
        ),
        FaultCase(
            "401 bad key", script(error_reply(401, "authentication_error", "invalid x-api-key"))
        ),
        FaultCase(
            "timeout (no answer)",
            script(Reply(message=message([text("x")]), fault="hang"), repeat=True),
            timeout_s=0.5,
        ),
        FaultCase(
            "connection reset",
            script(Reply(message=message([text("x")]), fault="reset"), repeat=True),
        ),
        FaultCase(
            "error event mid-stream",
            script(Reply(message=message([text("x")]), fault="stream_error")),
            args=("--stream",),
        ),
        FaultCase("malformed submit_proposal", script(submit_bad, submit_bad)),
        FaultCase(
            "missing submit_proposal",
            script(message([text("Done.")], "end_turn"), message([text("Done.")], "end_turn")),
        ),
        FaultCase("endless pause_turn", lambda mock: endless_pause()),
        FaultCase("refusal", script(message([text("I can't help with that.")], "refusal"))),
        FaultCase("max_tokens", script(message([text("...")], "max_tokens"))),
        FaultCase("budget too small to start", research, args=("--budget", "0.02")),
        FaultCase("budget runs out mid-run", lambda mock: costly_pause, budget_stop=True),
        FaultCase("API reports more usage than sent", over_reporting, over_reported=True),
    ]


@contextmanager
def _short_timeout(seconds: float, key: str) -> Iterator[None]:
    """The CLI path with a backend whose HTTP timeout is ``seconds`` (the default is minutes)."""
    from oo_nb.agent import run as run_module
    from oo_nb.agent.backends.anthropic import AnthropicBackend
    from oo_nb.agent.backends.conversation import AgentSettings

    def make_backend(agent: str, opts: Any, model: str, doc_path: Path) -> Any:
        return AnthropicBackend(
            model=model,
            api_key=key,
            base_url=opts.base_url,
            timeout=seconds,
            max_retries=1,
            settings=AgentSettings(model=model, stream=opts.stream),
        )

    with unittest.mock.patch.object(run_module, "make_backend", make_backend):
        yield


def run_update(
    path: Path,
    base_url: str,
    args: tuple[str, ...],
    *,
    key: str,
    timeout_s: float = 30.0,
    yes: bool = True,
    patch_backend: bool = True,
) -> dict[str, Any]:
    """``oo update PATH --force [--yes]`` as the CLI runs it; returns the text the user sees,
    the exit code, the cost and the exception (for the secrets check). ``patch_backend`` gives
    the backend a short HTTP timeout (the only change to the CLI path)."""
    from oo_nb.cli.verbs import build_parser, load

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
            return {
                "text": f"oo update: error: {exc}",
                "exit": 2,
                "cost": float(getattr(exc, "cost_usd", 0.0)),
                "exc": exc,
            }
    return {
        "text": outcome.to_text(),
        "exit": outcome.exit_code,
        "cost": outcome.proposal.cost_usd or 0.0,
        "exc": None,
    }


class _Wire:
    """Wraps a responder: records each reply with the model the request asked for."""

    def __init__(self, inner: Responder) -> None:
        self.inner = inner
        self.sent: list[tuple[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        reply = self.inner(request)
        model = request.body.get("model", "") if isinstance(request.body, dict) else ""
        self.sent.append((str(model), reply))
        return reply

    def spend_usd(self) -> float:
        from oo_nb.agent.pricing import cost_usd, price_for, usage_figures
        from tests.support.mock_messages import sse_events

        total = 0.0
        for model, reply in self.sent:
            if (
                reply.fault in ("reset", "hang", "truncate")
                or reply.status != 200
                or not reply.message
            ):
                continue  # nothing (complete) reached the client
            usage = reply.message.get("usage")
            if reply.fault == "stream_error":  # only the events before the error were sent
                events = sse_events(reply.message)
                for kind, event in events[: max(2, len(events) // 2)]:
                    usage = (
                        event["message"]["usage"]
                        if kind == "message_start"
                        else event.get("usage", usage)
                    )
            total += cost_usd(
                usage_figures(usage), price_for(model or str(reply.message.get("model", "")))
            )
        return total


def _budget(args: tuple[str, ...]) -> float:
    return float(args[args.index("--budget") + 1]) if "--budget" in args else BUDGET_USD


def api_faults(workdir: Path) -> list[Figure]:
    from tests.support.mock_api import MockAPI

    rows: list[Figure] = []
    writes_on_failure = 0
    over_budget: list[str] = []
    cost_differs: list[str] = []
    over_report: Figure | None = None
    cases = fault_cases()
    for i, case in enumerate(cases):
        folder = workdir / f"case{i}"
        folder.mkdir(parents=True)
        path = folder / DOC
        shutil.copy(corpus_dir() / DOC, path)
        before = path.read_bytes()
        mock = MockAPI(api_key=TEST_KEY).start()
        try:
            wire = _Wire(case.responder(mock))
            mock.responder = wire
            started = time.perf_counter()
            out = run_update(path, mock.base_url, case.args, key=TEST_KEY, timeout_s=case.timeout_s)
            elapsed = time.perf_counter() - started
            requests = len(mock.message_requests)
        finally:
            mock.stop()
        spent = wire.spend_usd()
        budget = _budget(case.args)
        changed = path.read_bytes() != before
        pending = (history_dir(path) / "pending.json").exists()
        wrote = changed or (pending and not case.over_reported)
        bad_write = wrote and not case.should_write
        overspent = spent > budget + 1e-9
        writes_on_failure += bad_write
        if abs(spent - out["cost"]) > 1e-6:
            cost_differs.append(
                f"{case.name}: tool says ${out['cost']:.4f}, usage sent ${spent:.4f}"
            )
        state = "written" if changed else "kept for review" if pending else "nothing written"
        message = out["text"].replace(str(path), DOC).replace(str(folder), ".")
        if case.over_reported:
            # Expected overspend: the API billed more than any bound. It must be seen (the tool's
            # own cost shows it, the user is told) and the document must not be written.
            detected = out["cost"] > budget + 1e-9 and "over its" in message
            over_report = Figure(
                "5 api",
                "spend above budget: API reported more usage than sent",
                f"{requests} req",
                f"${spent:.4f} > ${budget:.2f} (expected); {'detected' if detected else 'NOT detected'}; "
                f"document {'WRITTEN' if changed else 'unchanged'}{', proposal kept for review' if pending else ''}",
                "overspend detected, document not written",
                overspent and detected and not changed,
            )
            verdict = overspent and detected and not changed
        else:
            if overspent:
                over_budget.append(f"{case.name}: ${spent:.4f} of ${budget:.2f}")
            stopped = not case.budget_stop or (
                requests >= 1 and spent > 0 and "budget reached" in message
            )
            verdict = not bad_write and not overspent and stopped
        rows.append(
            Figure(
                "5 api",
                case.name,
                f"{requests} req",
                f"[{state}, ${spent:.4f} sent / ${out['cost']:.4f} reported, {elapsed:.1f}s] {message}",
                "written"
                if case.should_write
                else "overspend seen, not written"
                if case.over_reported
                else "stops on budget mid-run"
                if case.budget_stop
                else "no write, ≤ budget",
                verdict,
            )
        )
    ordinary = len(cases) - sum(c.over_reported for c in cases)
    rows.append(
        Figure(
            "5 api", "writes on failure", len(cases), writes_on_failure, "0", writes_on_failure == 0
        )
    )
    rows.append(
        Figure(
            "5 api",
            "spend above budget (usage sent)",
            ordinary,
            "; ".join(over_budget) or 0,
            "0",
            not over_budget,
        )
    )
    if over_report is not None:
        rows.append(over_report)
    rows.append(
        Figure(
            "5 api",
            "tool's cost differs from usage sent",
            len(cases),
            "; ".join(cost_differs) or 0,
            "info",
            None,
        )
    )
    return rows
