"""Hardening, measured: crash safety, concurrency, fuzzing, hostile agent output, API faults,
secrets and size limits, printed as one table (measure, count, result, target, pass/fail).

    PYTHONPATH=. python benchmarks/reliability.py            # full sizes (a few minutes on 2 cores)
    PYTHONPATH=. python benchmarks/reliability.py --quick    # the reduced sizes the test suite runs
    PYTHONPATH=. python benchmarks/reliability.py --only 1,3 --scale 0.5

Exit status 1 when any figure misses its target."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tests.support.figures import failures, render_table
from tests.support.reliability import FULL, PARTS, QUICK, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="reduced sizes (as in the tests)")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply kills, races and fuzz inputs"
    )
    parser.add_argument("--only", default="", help="comma-separated part numbers, e.g. 1,2,3")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, help="keep the files here (default: a temp dir)")
    parser.add_argument("--width", type=int, default=160, help="cut long results to this width")
    ns = parser.parse_args(argv)
    sizes = (QUICK if ns.quick else FULL).scaled(ns.scale)
    parts = [int(p) for p in ns.only.split(",") if p.strip()] or sorted(PARTS)
    started = time.perf_counter()
    rows = run(
        parts, sizes, workdir=ns.workdir, seed=ns.seed, progress=lambda s: print(s, file=sys.stderr)
    )
    print(render_table(rows, width=ns.width))
    failed = failures(rows)
    print(
        f"\n{len(rows)} figures, {len(failed)} missing their target, {time.perf_counter() - started:.0f} s "
        f"({'quick' if ns.quick else 'full'} sizes{f', scale {ns.scale:g}' if ns.scale != 1 else ''})."
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
