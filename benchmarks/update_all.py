"""update-all of 20 documents against the loopback mock with 1 s latency per request: the
default concurrency against one at a time, as a ratio to its ideal speed-up (target >= 0.85),
repeated, median; then the context-size figures.

Every document goes through the whole path (context, token count, AsyncAnthropic request,
validation, candidate building, pending proposal written); only the API is the mock. A warm-up
run first imports the SDK, so that both sides measure the steady state (the SDK import is start-up:
benchmarks/startup.py); "first request" is when the first request reached the mock.

    PYTHONPATH=. python benchmarks/update_all.py [--docs 20] [--latency 1.0] [--repeat 3]
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from oo_nb.agent.many import update_library
from oo_nb.agent.run import UpdateOptions
from tests.support.corpus import corpus_dir
from tests.support.mock_api import MockAPI, MockRequest, Reply, error_reply
from tests.support.mock_scenarios import research_scenario

CORPUS = corpus_dir()  # OO_CORPUS, else tests/fixtures/corpus
DOCS = [
    "agi-declared.o-o.html",
    "ai-model-landscape.o-o.html",
    "anthropic-leadership.o-o.html",
    "yc-w26-batch.o-o.html",
]
KEY = "sk-ant-test-MARKER"
DEFAULT = int(inspect.signature(update_library).parameters["concurrency"].default)
TARGET = 0.85


def make_library(folder: Path, count: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        name = DOCS[i % len(DOCS)]
        target = folder / f"{i:02d}-{name}"
        shutil.copyfile(CORPUS / name, target)
        target.chmod(0o644)


def timed_run(
    count: int, concurrency: int, latency: float, count_latency: float = 0.0
) -> tuple[float, int, int, float]:
    """(seconds, proposed, failed, seconds to the first request)."""
    scenario = research_scenario(with_image=False)
    first: list[float] = []

    def respond(request: MockRequest) -> Reply:
        first.append(time.perf_counter())
        return scenario(request)

    with (
        tempfile.TemporaryDirectory(prefix="oo-bench-") as tmp,
        MockAPI(respond, latency=latency, api_key=KEY) as mock,
    ):
        mock.count_latency = count_latency
        folder = Path(tmp)
        make_library(folder, count)
        opts = UpdateOptions(
            force=True,
            agent="anthropic",
            api_key=KEY,
            base_url=mock.base_url,
            download_images=False,
        )
        started = time.perf_counter()
        outcome = update_library(folder, opts, concurrency=concurrency, progress=False)
        elapsed = time.perf_counter() - started
        return (
            elapsed,
            len(outcome.by_status("proposed")),
            len(outcome.failures),
            min(first) - started,
        )


def first_request_after(count: int) -> tuple[float, float]:
    """(seconds to the first request, seconds in all) for a library of ``count`` documents whose
    every request is refused at once (400: no retry), so only the start-up is timed."""
    first: list[float] = []

    def refuse(request: MockRequest) -> Reply:
        first.append(time.perf_counter())
        return error_reply(400, "invalid_request_error", "benchmark: start-up only")

    with (
        tempfile.TemporaryDirectory(prefix="oo-bench-") as tmp,
        MockAPI(refuse, api_key=KEY) as mock,
    ):
        folder = Path(tmp)
        make_library(folder, count)
        opts = UpdateOptions(
            force=True,
            agent="anthropic",
            api_key=KEY,
            base_url=mock.base_url,
            download_images=False,
        )
        started = time.perf_counter()
        update_library(folder, opts, progress=False)
        return min(first) - started, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=20)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--count-latency", type=float, default=0.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=DEFAULT)
    parser.add_argument("--startup-docs", type=int, default=400)
    ns = parser.parse_args()
    os.environ.pop("ANTHROPIC_BASE_URL", None)
    c, n = ns.concurrency, ns.docs
    ideal = n / math.ceil(n / c)  # 20 documents, 4 at once: 5 rounds instead of 20
    timed_run(min(n, 4), c, 0.0)  # warm-up: the SDK import and first-use costs
    ones, many_, ratios, firsts = [], [], [], []
    for _ in range(ns.repeat):
        t1, d1, f1, _ = timed_run(n, 1, ns.latency, ns.count_latency)
        tc, dc, fc, first = timed_run(n, c, ns.latency, ns.count_latency)
        assert d1 == dc == n and f1 == fc == 0, (d1, dc, f1, fc)
        ones.append(t1)
        many_.append(tc)
        ratios.append(t1 / tc)
        firsts.append(first)
        print(
            f"  run: 1 at a time {t1:6.1f} s, {c} at once {tc:5.1f} s, speed-up {t1 / tc:.2f}x",
            file=sys.stderr,
        )
    speed = statistics.median(ratios)
    print(
        f"update-all, {n} documents, {ns.latency:g} s latency per request "
        f"(count_tokens {ns.count_latency:g} s), cores {os.cpu_count()}, "
        f"load {os.getloadavg()[0]:.1f}; median of {ns.repeat}"
    )
    print(f"  concurrency 1:        {statistics.median(ones):6.1f} s")
    print(
        f"  concurrency {c} (default {DEFAULT}): {statistics.median(many_):6.1f} s "
        f"(ideal {n / ideal * ns.latency:.1f} s of latency); first request after "
        f"{statistics.median(firsts) * 1e3:.0f} ms"
    )
    print(
        f"  speed-up: {speed:.2f}x of an ideal {ideal:.2f}x = {speed / ideal:.2f} "
        f"({'met' if speed / ideal >= TARGET else 'MISSED'}, target >= {TARGET}); "
        f"runs: {', '.join(f'{r:.2f}' for r in ratios)}"
    )
    if ns.startup_docs:
        firsts = [first_request_after(ns.startup_docs) for _ in range(ns.repeat)]
        print(
            f"  start-up in a library of {ns.startup_docs} documents (every request refused): "
            f"first request after {statistics.median(f for f, _ in firsts):.2f} s "
            f"(median of {ns.repeat}; all settled in {statistics.median(a for _, a in firsts):.1f} s)"
        )
    print()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from context import render, rows

    print("context size (bytes of the file vs bytes of the first request)")
    print(render(rows()))


if __name__ == "__main__":
    main()
