"""The first ``%oo library`` in a real Jupyter kernel (jupyter_client over loopback), with the
background imports of ``%load_ext oo_nb`` off (``OO_NB_PREWARM=0``) and on
(``oo_nb.notebook.warm``), or this checkout against an older one (``--baseline DIR``, both with
the background imports on, as a user has them). Fresh kernel per run, the demo library, no API
key; the two sides interleaved so that the machine's load falls on both alike.

    PYTHONPATH=. python benchmarks/first_library_kernel.py [N] [GAP_S ...] [--baseline DIR]

GAP_S: seconds between the ``%load_ext`` cell and the ``%oo library`` cell (a person typing
the next cell: 3 s by default; 0 s is Run All, where nothing may start and nothing may slow).
The figures are the cell's wall time, from the execute request to the kernel going idle, and
the kernel's CPU time from the end of the ``%load_ext`` cell to the end of the library cell
(``time.process_time`` in the kernel: every thread, a background import during the gap too).
DIR: a checkout of the package before (``git worktree add /tmp/before main``); its kernels run
with ``PYTHONPATH=DIR``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CPU = {"cpu": "__import__('time').process_time()"}


def _cpu(reply: dict[str, Any]) -> float:
    return float(reply["content"]["user_expressions"]["cpu"]["data"]["text/plain"])


def one_run(lib: Path, gap: float, prewarm: str, package: Path = ROOT) -> tuple[float, float]:
    """(wall s, kernel CPU s) of the first ``%oo library`` in a new kernel."""
    from jupyter_client.manager import start_new_kernel

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OO_AGENT"))}
    env.update(OO_NB_PREWARM=prewarm, OO_TODAY="2026-12-01", PYTHONPATH=str(package))
    km, kc = start_new_kernel(kernel_name="python3", env=env, cwd=str(lib.parent))
    quiet = {"timeout": 300, "output_hook": lambda msg: None, "user_expressions": CPU}
    try:
        loaded = kc.execute_interactive("%load_ext oo_nb", **quiet)
        time.sleep(gap)
        start = time.perf_counter()
        reply = kc.execute_interactive(f"lib = %oo library {lib.name}\nlib", **quiet)
        took = time.perf_counter() - start
        assert reply["content"]["status"] == "ok", reply["content"]
        return took, _cpu(reply) - _cpu(loaded)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _sides(baseline: Path | None) -> list[tuple[str, str, Path]]:
    if baseline is None:
        return [("off", "0", ROOT), ("on", "1", ROOT)]
    return [("before", "1", baseline), ("after", "1", ROOT)]


def main(n: int = 3, gaps: tuple[float, ...] = (3.0,), baseline: Path | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from oo_nb.demo import install_demo
    from tests.support.isolation import isolate

    isolate()  # the suite's settings folders: no profile or theme of yours in the kernel
    sides = _sides(baseline)
    print(f"first %oo library in a fresh kernel, median of {n} (cores: {os.cpu_count()})")
    with tempfile.TemporaryDirectory(prefix="oo-bench-kernel-") as tmp:
        for gap in gaps:
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in sides}
            for i in range(n):
                for name, prewarm, package in sides:
                    lib = Path(tmp) / f"lib-{gap}-{name}-{i}"
                    install_demo(lib, index=False)
                    runs[name].append(one_run(lib, gap, prewarm, package))
            first, second = (name for name, _, _ in sides)
            (w1, c1), (w2, c2) = (
                tuple(statistics.median(r[k] for r in runs[name]) for k in (0, 1))
                for name in (first, second)
            )
            print(
                f"  gap {gap:4.1f} s: {first} {w1:6.2f} s wall {c1:6.2f} s CPU, {second} "
                f"{w2:6.2f} s wall ({w2 / w1:.2f}x) {c2:6.2f} s CPU ({c2 / c1:.2f}x)"
            )
            for name in (first, second):
                print(f"    {name}: {[(round(w, 2), round(c, 2)) for w, c in runs[name]]}")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    base = None
    if "--baseline" in args:
        at = args.index("--baseline")
        base = Path(args[at + 1]).resolve()
        del args[at : at + 2]
    raise SystemExit(
        main(int(args[0]) if args else 3, tuple(float(a) for a in args[1:]) or (3.0,), base)
    )
