"""``oo update-all DIR`` as a whole command: a fresh process (imports, the SDK's included) against
the loopback mock with 1 s latency per request, at the default concurrency and one at a time.

    PYTHONPATH=. python benchmarks/update_all_cli.py [--docs 20] [--latency 1.0] [--repeat 3]
    PYTHONPATH=. python benchmarks/update_all_cli.py --baseline /tmp/old   # A/B: /tmp/old/oo_nb too

The two runs alternate (interleaved rounds); figures are medians. Printed for each: wall seconds
from the start of the process to its exit, CPU seconds (the process and its children, by
``wait4``) and when the first request reached the mock, counted from the start of the process,
with the CPU the command had spent by then (read from ``/proc`` as the request arrives: on a
loaded machine the wall time to the first request is mostly waiting for a core, its CPU is not).
The speed-up is the one-at-a-time wall over the concurrent wall, as a fraction of the ideal
(20 documents 4 at once: 5 rounds instead of 20, 4x; target >= 0.85 of it); "of the latency
bound" is the concurrent run's wall against the mock's latency alone (5 rounds of 1 s), the
stricter figure: all of start-up, reading, building and writing counts against it. The
library's bytecode (and its dependencies') is compiled first, as an installed package's is."""

from __future__ import annotations

import argparse
import compileall
import math
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from update_all import DEFAULT, KEY, TARGET, make_library  # noqa: E402

from tests.support.mock_api import MockAPI, MockRequest, Reply  # noqa: E402
from tests.support.mock_scenarios import research_scenario  # noqa: E402


@dataclass
class Run:
    wall_s: float
    cpu_s: float
    first_s: float
    requests: int
    first_cpu_s: float  # NaN where /proc cannot say


def _cpu_so_far(pid: int) -> float:
    """The CPU seconds process ``pid`` has spent (user + system), NaN without ``/proc``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return math.nan
    return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


def one_run(n: int, concurrency: int | None, latency: float, tree: Path = HERE.parent) -> Run:
    """``oo update-all`` of ``n`` documents, run with the package under ``tree``."""
    scenario = research_scenario(with_image=False)
    seen: list[float] = []
    first_cpu: list[float] = []
    procs: list[subprocess.Popen[bytes]] = []

    def respond(request: MockRequest) -> Reply:
        seen.append(time.perf_counter())
        if not first_cpu:
            first_cpu.append(_cpu_so_far(procs[0].pid))
        return scenario(request)

    with (
        tempfile.TemporaryDirectory(prefix="oo-bench-cli-") as tmp,
        MockAPI(respond, latency=latency, api_key=KEY) as mock,
    ):
        folder = Path(tmp) / "docs"
        make_library(folder, n)
        argv = [sys.executable, "-m", "oo_nb.cli", "update-all", str(folder), "--force"]
        argv += ["--agent", "anthropic", "--base-url", mock.base_url]
        argv += ["--no-progress", "--no-alerts"]
        if concurrency is not None:  # None: the command's default
            argv += ["--concurrency", str(concurrency)]
        env = dict(os.environ, PYTHONPATH=str(tree), ANTHROPIC_API_KEY=KEY)
        env.pop("ANTHROPIC_BASE_URL", None)
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        procs.append(proc)
        out, err = proc.communicate()
        wall = time.perf_counter() - start
        cpu = _children_cpu()
        if proc.returncode != 0 or not seen:
            raise SystemExit(f"update-all failed ({proc.returncode}): {err.decode()[-2000:]}")
        proposed = sum(line.startswith("proposed") for line in out.decode().splitlines())
        if proposed != n:
            raise SystemExit(f"{proposed} of {n} proposed:\n{out.decode()[-2000:]}")
        return Run(wall, cpu, min(seen) - start, len(seen), first_cpu[0])


_CPU_BEFORE = [0.0]


def _children_cpu() -> float:
    """CPU of the children reaped since the last call (the command and what it reaped)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    spent, _CPU_BEFORE[0] = total - _CPU_BEFORE[0], total
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=20)
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--baseline", type=Path, help="a tree holding another oo_nb/ to run interleaved too"
    )
    ns = ap.parse_args()
    trees = {"": HERE.parent}
    if ns.baseline is not None:
        trees[" (base)"] = ns.baseline.resolve()
    for tree in trees.values():
        compileall.compile_dir(tree / "oo_nb", quiet=1)
    compileall.compile_dir(sysconfig.get_paths()["purelib"], quiet=1)
    n, c = ns.docs, DEFAULT
    rounds = math.ceil(n / c)
    ideal = n / rounds
    print(f"oo update-all as a command: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    _children_cpu()
    one_run(min(n, c), None, 0.0)  # unmeasured: the page cache holds the interpreter's files
    _children_cpu()
    ones: dict[str, list[Run]] = {name: [] for name in trees}
    many: dict[str, list[Run]] = {name: [] for name in trees}
    for _ in range(ns.repeat):
        for name, tree in trees.items():
            ones[name].append(one_run(n, 1, ns.latency, tree))
            many[name].append(one_run(n, None, ns.latency, tree))
            print(
                f"  round{name}: 1 at a time {ones[name][-1].wall_s:.1f} s, "
                f"default {many[name][-1].wall_s:.1f} s",
                file=sys.stderr,
            )
    med = statistics.median
    print(f"{n} documents, {ns.latency:g} s per request, median of {ns.repeat} interleaved rounds")
    for name in trees:
        for label, runs in (
            (f"concurrency {c} (default)", many[name]),
            ("concurrency 1", ones[name]),
        ):
            print(
                f"  {label + name:<31} wall {med(r.wall_s for r in runs):5.1f} s, CPU "
                f"{med(r.cpu_s for r in runs):4.1f} s, first request after "
                f"{med(r.first_s for r in runs):.2f} s, {med(r.first_cpu_s for r in runs):.2f} "
                "CPU s (from the process start)"
            )
        pairs = zip(ones[name], many[name], strict=True)
        speed = med(o.wall_s / m.wall_s for o, m in pairs)
        bound = rounds * ns.latency / med(r.wall_s for r in many[name])
        verdict = "met" if speed / ideal >= TARGET else "MISSED"
        print(
            f"  speed-up{name} {speed:.2f}x of an ideal {ideal:.2f}x = {speed / ideal:.2f} "
            f"({verdict}, target >= {TARGET}); of the latency bound ({rounds} x "
            f"{ns.latency:g} s): {bound:.2f}; load {os.getloadavg()[0]:.1f}"
        )


if __name__ == "__main__":
    main()
