"""A signal in the last moments of an `oo update-all` that had finished its work: while its
cleanup closes the clients, while asyncio closes the loop, or after the loop, before the report.
The user gets the report of what was done, marked interrupted with the cost, and the signal's
exit status; never a traceback (a CancelledError came out of the cleanup's last await) and never
"nothing was written" (it was).

The signal is sent by the process to itself from a hook at each of those points, not by timing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from oo_nb.agent.interrupt import Stop, held, requested
from oo_nb.format.document import Document
from tests.support.agent_helpers import DOCS, MARKER, copy_doc, start_mock
from tests.support.mock_scenarios import research_scenario

# each hook runs the original, sending the signal from inside it (``SIG``: the signal's number)
_HOOKS = {
    # the last await of update-all's own cleanup, still inside its signal handling
    "clients-close": (
        "import anthropic, asyncio\n"
        "original = anthropic.AsyncAnthropic.close\n"
        "async def hooked(self):\n"
        "    await original(self)\n"
        "    os.kill(os.getpid(), SIG)\n"
        "    await asyncio.sleep(0.05)\n"
        "anthropic.AsyncAnthropic.close = hooked\n"
    ),
    # asyncio.run's own cleanup (pending tasks, async generators, its executor)
    "loop-close": (
        "import asyncio.runners\n"
        "original = asyncio.runners.Runner.close\n"
        "def hooked(self):\n"
        "    os.kill(os.getpid(), SIG)\n"
        "    original(self)\n"
        "asyncio.runners.Runner.close = hooked\n"
    ),
    # the loop has ended; update-all has not yet returned its outcome
    "after-loop": (
        "import oo_nb.agent.many as many\n"
        "original = many._run_coroutine\n"
        "def hooked(*args, **kw):\n"
        "    value = original(*args, **kw)\n"
        "    os.kill(os.getpid(), SIG)\n"
        "    return value\n"
        "many._run_coroutine = hooked\n"
    ),
}


@pytest.mark.parametrize("hook", list(_HOOKS))
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_the_last_cleanup_gives_the_report_and_the_signals_status(
    hook: str, sig: signal.Signals, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    docs = [copy_doc(lib, name) for name in DOCS[:2]]
    versions = [Document.read(doc).manifest.version for doc in docs]
    mock = start_mock(research_scenario(with_image=False))
    code = (
        f"import os, sys\nSIG = {int(sig)}\n{_HOOKS[hook]}"
        "from oo_nb.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    )
    args = ["update-all", str(lib), "--force", "--yes", "--base-url", mock.base_url]
    env = {**os.environ, "ANTHROPIC_API_KEY": MARKER, "OO_DATA_DIR": str(tmp_path / "data")}
    try:
        run = subprocess.run(
            [sys.executable, "-c", code, *args, "--no-progress"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        mock.stop()
    name = signal.Signals(sig).name
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 128 + sig, (run.stdout, run.stderr)
    # the documents were written before the signal: the report says so, then the interrupt
    assert "2 written, 0 proposed, 0 awaiting review, 0 fresh, 0 failed" in run.stdout, run.stdout
    assert f"interrupted by {name}: research runs ended, nothing written after it" in run.stdout
    assert "nothing was written" not in run.stderr
    assert [Document.read(doc).manifest.version for doc in docs] == [v + 1 for v in versions]


def test_a_signal_pending_while_the_handlers_are_put_back_is_the_runs() -> None:
    """One that arrives as ``held`` puts the handlers from before back (blocked meanwhile) is
    taken as the run's, not left to the default action (SIGHUP's would end the process)."""
    stop = Stop((signal.SIGHUP,))
    before = signal.getsignal(signal.SIGHUP)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        with held(stop):
            # to this thread, which blocks it: pending when ``held`` puts the default back
            signal.pthread_kill(threading.get_ident(), signal.SIGHUP)
        left = signal.SIGHUP in signal.sigpending()
        after = signal.getsignal(signal.SIGHUP)
    finally:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # (one left pending must not end pytest)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGHUP, before)
    assert stop.signum == signal.SIGHUP and not left
    assert after is before and not requested()  # the flag is not left set for a later run
