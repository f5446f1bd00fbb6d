"""The first ``%oo library`` in a real Jupyter kernel (jupyter_client over loopback), with the
background imports of ``%load_ext oo_nb`` off (``OO_NB_PREWARM=0``) and on
(``oo_nb.notebook.warm``). Fresh kernel per run, the demo library, no API key; "before" and
"after" interleaved so that the machine's load falls on both alike.

    PYTHONPATH=. python benchmarks/first_library_kernel.py [N] [GAP_S ...]

GAP_S: seconds between the ``%load_ext`` cell and the ``%oo library`` cell (a person typing
the next cell: 3 s by default; 0.2 s is Run All, where nothing may start and nothing may slow).
The figure is the cell's wall time, from the execute request to the kernel going idle.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def one_run(lib: Path, gap: float, prewarm: str) -> float:
    from jupyter_client.manager import start_new_kernel

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OO_AGENT"))}
    env.update(OO_NB_PREWARM=prewarm, OO_TODAY="2026-12-01")
    km, kc = start_new_kernel(kernel_name="python3", env=env, cwd=str(lib.parent))
    try:
        kc.execute_interactive("%load_ext oo_nb", timeout=120, output_hook=lambda msg: None)
        time.sleep(gap)
        start = time.perf_counter()
        reply = kc.execute_interactive(
            f"lib = %oo library {lib.name}\nlib", timeout=300, output_hook=lambda msg: None
        )
        took = time.perf_counter() - start
        assert reply["content"]["status"] == "ok", reply["content"]
        return took
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main(n: int = 3, gaps: tuple[float, ...] = (3.0,)) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from oo_nb.demo import install_demo
    from tests.support.isolation import isolate

    isolate()  # the suite's settings folders: no profile or theme of yours in the kernel
    print(f"first %oo library in a fresh kernel, median of {n} (cores: {os.cpu_count()})")
    with tempfile.TemporaryDirectory(prefix="oo-bench-kernel-") as tmp:
        for gap in gaps:
            runs: dict[str, list[float]] = {"off": [], "on": []}
            for i in range(n):
                for mode, prewarm in (("off", "0"), ("on", "1")):
                    lib = Path(tmp) / f"lib-{gap}-{mode}-{i}"
                    install_demo(lib, index=False)
                    runs[mode].append(one_run(lib, gap, prewarm))
            off, on = (statistics.median(runs[m]) for m in ("off", "on"))
            print(
                f"  gap {gap:4.1f} s: prewarm off {off:6.2f} s, on {on:6.2f} s ({on / off:.2f}x)"
                f"   runs off {[round(x, 2) for x in runs['off']]} on {[round(x, 2) for x in runs['on']]}"
            )
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    raise SystemExit(main(int(args[0]) if args else 3, tuple(float(a) for a in args[1:]) or (3.0,)))
