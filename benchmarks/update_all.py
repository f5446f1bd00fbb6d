"""update-all of 20 documents against the loopback mock with 1 s latency per request:
concurrency 8 versus 1 (target ≥ 5× faster), then the context-size figures.

Every document goes through the whole path (context, AsyncAnthropic request, validation,
candidate building, pending proposal written); only the API is the mock.

    PYTHONPATH=. python benchmarks/update_all.py [--docs 20] [--latency 1.0]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from oo_nb.agent.many import update_library
from oo_nb.agent.run import UpdateOptions
from tests.support.corpus import corpus_dir
from tests.support.mock_api import MockAPI
from tests.support.mock_scenarios import research_scenario

CORPUS = corpus_dir()  # OO_CORPUS, else tests/fixtures/corpus
DOCS = [
    "agi-declared.o-o.html",
    "ai-model-landscape.o-o.html",
    "anthropic-leadership.o-o.html",
    "yc-w26-batch.o-o.html",
]
KEY = "sk-ant-test-MARKER"


def make_library(folder: Path, count: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        name = DOCS[i % len(DOCS)]
        target = folder / f"{i:02d}-{name}"
        shutil.copyfile(CORPUS / name, target)
        target.chmod(0o644)


def timed_run(count: int, concurrency: int, latency: float) -> tuple[float, int, int]:
    with (
        tempfile.TemporaryDirectory(prefix="oo-bench-") as tmp,
        MockAPI(research_scenario(with_image=False), latency=latency, api_key=KEY) as mock,
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
        outcome = update_library(folder, opts, concurrency=concurrency, progress=True)
        elapsed = time.perf_counter() - started
        return elapsed, len(outcome.by_status("proposed")), len(outcome.failures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=20)
    parser.add_argument("--latency", type=float, default=1.0)
    ns = parser.parse_args()
    os.environ.pop("ANTHROPIC_BASE_URL", None)
    results = {}
    for concurrency in (1, 8):
        elapsed, done, failed = timed_run(ns.docs, concurrency, ns.latency)
        results[concurrency] = elapsed
        print(
            f"concurrency {concurrency}: {ns.docs} documents, {done} proposed, {failed} failed, {elapsed:.1f} s",
            file=sys.stderr,
        )
    ratio = results[1] / results[8]
    print(f"update-all, {ns.docs} documents, {ns.latency:g} s latency per request")
    print(f"  concurrency 1: {results[1]:6.1f} s")
    print(f"  concurrency 8: {results[8]:6.1f} s")
    print(f"  speed-up: {ratio:.1f}x ({'PASS' if ratio >= 5 else 'FAIL'}, target >= 5x)")
    print()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from context import render, rows

    print("context size (bytes of the file vs bytes of the first request)")
    print(render(rows()))


if __name__ == "__main__":
    main()
