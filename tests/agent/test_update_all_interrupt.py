"""SIGTERM or SIGINT to `oo update-all` (a supervisor, `timeout`, `kill`, Ctrl-C): its Claude
Code children are ended with it (they ran on, paid and recorded nowhere), their scratch folders
go, nothing is written after it, and the report says "interrupted" with the cost so far, as
`oo update` does for its one run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.backends.claude_code import SCRATCH_PREFIX
from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
from oo_nb.errors import AgentError
from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.store.history import history_dir
from tests.support.agent_helpers import DOCS, MARKER, copy_doc, start_mock
from tests.support.fake_claude import fake_claude_env, gone, wait_for_runs
from tests.support.mock_scenarios import research_scenario


def _sleeping_claude(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The environment of a run whose Claude Code stand-in sleeps 20 s (it would then end,
    having changed nothing, and report $0.05), and its scratch folder's parent."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {
        **os.environ,
        **fake_claude_env(tmp_path),
        "FAKE_CLAUDE_MODE": "sleep",
        "FAKE_CLAUDE_SLEEP": "20",
        "TMPDIR": str(scratch),
    }
    env.pop("ANTHROPIC_API_KEY", None)
    return env, scratch


def _update_all(lib: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    args = ["update-all", str(lib), "--agent", "claude-code", "--force", "--auto"]
    return subprocess.Popen(
        [sys.executable, "-m", "oo_nb", *args, "--concurrency", "2", "--no-progress"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _interrupted(
    child: subprocess.Popen[str], env: dict[str, str], *signals: signal.Signals
) -> tuple[list[dict[str, Any]], str, str]:
    """Once two Claude Code runs have started: ``signals`` to ``child``, 0.1 s apart; the
    runs, and what the child printed when it ended."""
    try:
        runs = wait_for_runs(env, 2)
        for i, sig in enumerate(signals):
            if i:
                time.sleep(0.1)
            child.send_signal(sig)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    return runs, out, err


@pytest.mark.parametrize(
    "sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["SIGTERM", "SIGHUP", "SIGINT"]
)
def test_an_interrupted_update_all_ends_its_claude_code_runs_and_writes_nothing(
    sig: signal.Signals, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    docs = [copy_doc(lib, name) for name in DOCS[:3]]
    before = {doc: doc.read_bytes() for doc in docs}
    env, scratch = _sleeping_claude(tmp_path)
    child = _update_all(lib, env)
    runs, out, err = _interrupted(child, env, sig)
    assert child.returncode == 128 + sig, (out, err)
    name = signal.Signals(sig).name
    assert f"interrupted by {name}: research runs ended, nothing written after it" in out, out
    assert out.count(f"interrupted by {name} during its research: nothing written") == 2, out
    assert "cost so far $0.0000 (Claude Code was ended before it reported its cost" in out
    assert all(gone(run["pid"]) for run in runs)  # no Claude Code runs on, out of sight
    assert [p for p in scratch.iterdir() if p.name.startswith(SCRATCH_PREFIX)] == []
    assert {doc: doc.read_bytes() for doc in docs} == before
    assert not any((history_dir(doc) / PENDING_PROPOSAL).exists() for doc in docs)


def test_a_proposal_finished_after_the_interrupt_is_neither_written_nor_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A research run that ends just after update-all was interrupted: its worker thread goes on
    to write; it must not (it wrote under --auto seconds after a SIGINT)."""
    doc = copy_doc(tmp_path)
    base = doc.read_bytes()
    mock = start_mock(research_scenario(with_image=False))
    try:
        result = prepare_update(
            doc,
            UpdateOptions(force=True, agent="anthropic", base_url=mock.base_url, api_key=MARKER),
        )
    finally:
        mock.stop()
    assert result.status == "proposed" and result.cost_usd > 0
    monkeypatch.setattr("oo_nb.agent.interrupt.requested", lambda: True)
    with pytest.raises(AgentError, match="interrupted before it was written or saved") as caught:
        write_result(result, yes=True)
    assert caught.value.cost_usd == result.cost_usd
    assert doc.read_bytes() == base and not (history_dir(doc) / PENDING_PROPOSAL).exists()


def test_an_interrupted_update_all_on_the_api_writes_nothing_and_says_so(tmp_path: Path) -> None:
    """The API backend's requests are cancelled with the run: nothing is written after it."""
    lib = tmp_path / "lib"
    docs = [copy_doc(lib, name) for name in DOCS[:2]]
    before = {doc: doc.read_bytes() for doc in docs}
    mock = start_mock(research_scenario(with_image=False), latency=20.0)
    env = {**os.environ, "ANTHROPIC_API_KEY": MARKER}
    args = ["update-all", str(lib), "--force", "--auto", "--base-url", mock.base_url]
    child = subprocess.Popen(
        [sys.executable, "-m", "oo_nb", *args, "--no-progress"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(mock.message_requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
        mock.stop()
    assert child.returncode == 128 + signal.SIGTERM, (out, err)
    assert out.count("interrupted by SIGTERM during its research: nothing written") == 2, out
    assert "interrupted by SIGTERM: research runs ended, nothing written after it" in out
    assert {doc: doc.read_bytes() for doc in docs} == before
    assert not any((history_dir(doc) / PENDING_PROPOSAL).exists() for doc in docs)


def test_update_all_runs_when_called_from_a_running_loop(tmp_path: Path) -> None:
    # a notebook kernel's cell, an async program: the run goes to a worker thread's loop, which
    # cannot take signals (set_wakeup_fd is the main thread's); the caller keeps its own
    code = (
        "import asyncio, signal, sys, oo_nb\n"
        "async def main():\n"
        "    return oo_nb.Library(sys.argv[1]).update_all(force=True, progress=False)\n"
        "print(asyncio.run(main()))\n"
        "assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL\n"
    )
    lib = tmp_path / "lib"
    copy_doc(lib, DOCS[0])
    env = {**os.environ, "OO_DATA_DIR": str(tmp_path / "data")}
    env.pop("ANTHROPIC_API_KEY", None)
    run = subprocess.run(
        [sys.executable, "-c", code, str(lib)], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "set_wakeup_fd" not in run.stderr


def test_an_interrupt_of_update_all_called_from_a_running_loop_ends_its_runs(
    tmp_path: Path,
) -> None:
    # a notebook kernel's Interrupt: the cell (a running loop, Python's SIGINT handler) gets a
    # KeyboardInterrupt while the run goes on in a worker thread; the runs must end with it and
    # nothing be written or saved (they were waited out, paid, then dropped)
    code = (
        "import asyncio, signal, sys, oo_nb\n"
        "from oo_nb.agent.types import UpdateInterrupted\n"
        "async def main():\n"
        "    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a kernel's cell has\n"
        "    try:\n"
        "        oo_nb.Library(sys.argv[1]).update_all(\n"
        "            agent='claude-code', auto=True, force=True, concurrency=2, progress=False)\n"
        "    except UpdateInterrupted as stop:\n"
        "        print('UpdateInterrupted', stop.outcome.interrupted, flush=True)\n"
        "asyncio.run(main())\n"
    )
    lib = tmp_path / "lib"
    docs = [copy_doc(lib, name) for name in DOCS[:2]]
    before = {doc: doc.read_bytes() for doc in docs}
    env, scratch = _sleeping_claude(tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(lib)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    runs, out, err = _interrupted(child, env, signal.SIGINT)
    assert "UpdateInterrupted SIGINT" in out, (out, err)
    assert all(gone(run["pid"]) for run in runs)  # ended, not waited out (they sleep 20 s)
    assert [p for p in scratch.iterdir() if p.name.startswith(SCRATCH_PREFIX)] == []
    assert {doc: doc.read_bytes() for doc in docs} == before
    assert not any((history_dir(doc) / PENDING_PROPOSAL).exists() for doc in docs)


@pytest.mark.parametrize(
    "first, second",
    [(signal.SIGINT, signal.SIGTERM), (signal.SIGTERM, signal.SIGINT)],
    ids=["SIGINT-then-SIGTERM", "SIGTERM-then-SIGINT"],
)
def test_a_second_signal_during_the_interrupt_does_not_cut_its_cleanup_short(
    first: signal.Signals, second: signal.Signals, tmp_path: Path
) -> None:
    # Ctrl-C, then a supervisor's SIGTERM a moment later: the first one's cleanup goes on (the
    # process died by SIGTERM's default with its Claude Code children left running)
    lib = tmp_path / "lib"
    docs = [copy_doc(lib, name) for name in DOCS[:2]]
    before = {doc: doc.read_bytes() for doc in docs}
    env, scratch = _sleeping_claude(tmp_path)
    child = _update_all(lib, env)
    runs, out, err = _interrupted(child, env, first, second)
    assert child.returncode == 128 + first, (out, err)
    name = signal.Signals(first).name
    assert out.count(f"interrupted by {name} during its research: nothing written") == 2, out
    assert all(gone(run["pid"]) for run in runs)
    assert [p for p in scratch.iterdir() if p.name.startswith(SCRATCH_PREFIX)] == []
    assert {doc: doc.read_bytes() for doc in docs} == before
