"""N concurrent ``oo update DOC --force`` (no ``--yes``) of one document, through the CLI against
the loopback mock, and what they left: every run was told its proposal was saved (or that it
was not, or that another run is researching the document and it sent nothing), so the saved
proposals on disk must number the runs told "saved".

The mock holds every answer until all N requests have arrived (or a few seconds have passed:
runs that found the research claimed send none), then answers them at once: runs that research
build their candidates side by side and reach the save together, as paid runs started
together do. ``processes=True`` runs each update in its own Python process (``python -m
oo_nb.cli``), else each in a thread of this one (the update command's ``run``; the lock is per open file,
so threads exclude each other as processes do; each run's text is the command's own, as
``oo update`` prints it)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.store.store import history_dir
from tests.support.mock_api import MockAPI, MockRequest, Reply
from tests.support.mock_scenarios import research_scenario

__all__ = ["Outcome", "concurrent_updates"]

_KEPT = re.compile(r"kept as (pending-[\d-]+\.json)")


@dataclass(frozen=True)
class Outcome:
    runs: int
    saved_said: int  # runs that said "proposal saved for review"
    not_saved_said: int  # runs that said plainly their proposal was NOT saved
    busy_said: int  # runs that sent nothing: another run was researching the document
    files: int  # pending.json + pending-*.json on disk
    kept_names: list[str]  # the set-aside names the runs reported
    outputs: list[str]

    @property
    def lost(self) -> int:
        """Proposals a run said were saved that are not on disk."""
        return max(0, self.saved_said - self.files)

    @property
    def unaccounted(self) -> int:
        """Runs that said neither saved nor not saved (a crash, a silent end)."""
        return self.runs - self.saved_said - self.not_saved_said - self.busy_said


def _gathering(n: int, responder: Any) -> Any:
    # short: a run that found the research claimed never asks, and must not hold the others
    barrier = threading.Barrier(n, timeout=3)

    def respond(request: MockRequest) -> Reply:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait()
        reply: Reply = responder(request)
        return reply

    return respond


def _in_process(args: list[str]) -> str:
    """The update command's own ``run`` (what ``oo update`` prints, without a shared stdout)."""
    from oo_nb.cli.verbs import build_parser, load
    from oo_nb.errors import OOError

    try:
        outcome = load("update").run(build_parser().parse_args(args))
    except OOError as exc:
        return f"oo update: error: {exc}\nexit 2"
    return f"{outcome.to_text()}\nexit {outcome.exit_code}"


def concurrent_updates(
    path: Path, n: int, *, key: str, processes: bool, budget: str = "1"
) -> Outcome:
    mock = MockAPI(api_key=key).start()
    mock.responder = _gathering(n, research_scenario(base_url=lambda: mock.base_url))
    args = ["update", str(path), "--force", "--agent", "anthropic", "--budget", budget]
    args += ["--base-url", mock.base_url]
    env = {**os.environ, "ANTHROPIC_API_KEY": key, "PYTHONPATH": str(Path.cwd())}
    outputs: list[str] = []
    try:
        if processes:
            procs = [
                subprocess.Popen(
                    [sys.executable, "-m", "oo_nb.cli", *args],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
                for _ in range(n)
            ]
            for proc in procs:
                text, _ = proc.communicate(timeout=300)
                outputs.append(f"{text}\nexit {proc.returncode}")
        else:
            lock = threading.Lock()

            def one() -> None:
                text = _in_process(args)
                with lock:
                    outputs.append(text)

            old = os.environ.get("ANTHROPIC_API_KEY")
            os.environ["ANTHROPIC_API_KEY"] = key
            try:
                threads = [threading.Thread(target=one) for _ in range(n)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join(300)
            finally:
                if old is None:
                    os.environ.pop("ANTHROPIC_API_KEY", None)
                else:
                    os.environ["ANTHROPIC_API_KEY"] = old
    finally:
        mock.stop()
    folder = history_dir(path)
    files = [p for p in folder.glob("pending*.json")] if folder.is_dir() else []
    kept = [name for text in outputs for name in _KEPT.findall(text)]
    return Outcome(
        runs=n,
        saved_said=sum("proposal saved for review" in text for text in outputs),
        not_saved_said=sum("proposal NOT saved" in text for text in outputs),
        busy_said=sum("being researched by another run" in text for text in outputs),
        files=len(
            [p for p in files if p.name == PENDING_PROPOSAL or p.name.startswith("pending-")]
        ),
        kept_names=kept,
        outputs=outputs,
    )
