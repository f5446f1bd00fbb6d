"""update-all of a large library where little is due: how long it takes to find out, reading
every document (``update_library`` alone) against asking the library's cache first (``oo
update-all``: ``cli.update_all.known_freshness``, the rows ``oo index`` keeps), cold (no cache
yet) and warm. Each run in a fresh interpreter, repeated, median; ratios to reading every
document, measured side by side.

The synthetic library (benchmarks/synth.py, shared with benchmarks/library.py) is read with
``OO_TODAY`` before every document's as-of date, so every readable document is fresh and nothing
is sent anywhere (no key, no agent needed: a fresh document never reaches one).

    PYTHONPATH=. python benchmarks/update_all_fresh.py [--sizes 1000 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BEFORE_EVERY_AS_OF = "2020-01-01"


def measure(folder: Path, how: str) -> dict[str, float]:
    os.environ["OO_TODAY"] = BEFORE_EVERY_AS_OF
    from oo_nb.agent.many import update_library
    from oo_nb.agent.run import UpdateOptions
    from oo_nb.cli.update_all import known_freshness

    t = time.perf_counter()
    known = known_freshness(folder) if how != "read-every" else None
    out = update_library(folder, UpdateOptions(agent="replay"), progress=False, known_fresh=known)
    wall = time.perf_counter() - t
    fresh = sum(r.status == "skipped" for r in out.results)
    return {"s": wall, "fresh": fresh, "others": len(out.results) - fresh + len(out.failures)}


def run(folder: Path, how: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--measure", how, str(folder)],
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(HERE.parent), ANTHROPIC_API_KEY=""),
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "oo-bench-library")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.measure:
        print(json.dumps(measure(Path(ns.measure[1]), ns.measure[0])))
        return
    from library import ensure_library

    print(f"update-all, nothing due ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})")
    for n in ns.sizes:
        folder = ensure_library(ns.dir, n, 0)
        runs: dict[str, list[dict[str, float]]] = {"read-every": [], "cold": [], "warm": []}
        for _ in range(ns.repeat):
            runs["read-every"].append(run(folder, "read-every"))
            shutil.rmtree(folder / ".oo-cache", ignore_errors=True)
            runs["cold"].append(run(folder, "cold"))
            runs["warm"].append(run(folder, "warm"))
        med = {how: statistics.median(r["s"] for r in rs) for how, rs in runs.items()}
        ratio = {
            how: statistics.median(
                r["s"] / e["s"] for r, e in zip(rs, runs["read-every"], strict=True)
            )
            for how, rs in runs.items()
        }
        first = runs["warm"][0]
        print(
            f"{n:>6} docs ({first['fresh']:.0f} fresh, {first['others']:.0f} other), median of "
            f"{ns.repeat}: reading every document {med['read-every']:.2f} s | cache cold "
            f"{med['cold']:.2f} s = {ratio['cold']:.2f}x | cache warm {med['warm']:.2f} s = "
            f"{ratio['warm']:.3f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
