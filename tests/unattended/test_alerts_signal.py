"""A signal to `oo alerts DIR` (by hand, or cron's SIGTERM) while it sends: as update-all does, the
sending stops at once, what a channel took is recorded and said, the exit status is the signal's,
and the next run sends only what was not taken (s36 attack A1: "nothing was written", no record,
the same event sent again to the channel that had taken it; SIGTERM died without a word).

The slow channel's receiver signals the process once the fast one has been sent its answer (half a
second after its body came: the one wait in the test), and holds its own request until the
process has ended."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from tests.support.alert_receivers import webhook_receiver
from tests.support.alert_settings import write_alerts
from tests.support.watched import watched_library


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_oo_alerts_sends_records_what_went(
    sig: signal.Signals, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = tmp_path / "lib"
    watched_library(lib)
    monkeypatch.setenv("OO_DATA_DIR", str(tmp_path / "data"))  # the child's too (trust's key)
    child: list[subprocess.Popen[str]] = []
    ended = threading.Event()
    with webhook_receiver() as fast:

        def fast_took_it(n: int) -> None:
            if n == 1 and child:
                for _ in range(200):  # until the fast channel has been answered
                    if fast.bodies:
                        break
                    time.sleep(0.05)
                time.sleep(0.5)
                child[0].send_signal(sig)
                ended.wait(60)  # answered only once the process is gone

        with webhook_receiver(on_post=fast_took_it) as slow:
            write_alerts(
                lib,
                {"type": "webhook", "name": "fast", "url": fast.url},
                {"type": "webhook", "name": "slow", "url": slow.url},
            )
            child.append(
                subprocess.Popen(
                    [sys.executable, "-m", "oo_nb", "alerts", str(lib)],
                    env=dict(os.environ),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            try:
                out, err = child[0].communicate(timeout=120)
            finally:
                ended.set()
                if child[0].poll() is None:
                    child[0].kill()
            assert len(fast.bodies) == 1 and len(slow.bodies) == 1
            assert "Traceback" not in err and "nothing was written" not in err, err
            assert child[0].returncode == 128 + sig, (out, err)
            assert f"alerts interrupted by {signal.Signals(sig).name}: 1 of 2 sent" in out, out
            assert main(["alerts", str(lib)]) == 0  # the next run: slow only
            assert len(fast.bodies) == 1 and len(slow.bodies) == 2
