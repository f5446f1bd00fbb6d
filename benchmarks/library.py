"""Library benchmark: the scan, cold and warm, against the floor, on synthetic libraries.

    .venv/bin/python benchmarks/library.py                  # 1,000 and 10,000 documents
    .venv/bin/python benchmarks/library.py --sizes 1000 --repeat 5

Libraries are generated once (benchmarks/synth.py) into ``--dir`` and reused; the package's
bytecode is compiled first, as an installed package's is. Each round runs, in
this order and each in a fresh interpreter that imports pandas/lxml first (in a notebook they are
already loaded):

- floor: walk the folder, read every file, find the four JSON blocks with one regex and
  ``json.loads`` them: what any reader of the format must at least do;
- cold: ``Library(DIR)`` with no cache (``DIR/.oo-cache`` removed first): parse every document
  and write the cache; then all frames and the audit, timed apart;
- warm: ``Library(DIR)`` again, nothing changed: stat every file, read the cache.

Figures are the median over ``--repeat`` rounds of each, and ratios to the floor of the same
round (the machine is shared: a ratio measured side by side is what can be compared; the CPU
seconds of the scan and its worker processes are reported too, steadier under load). Memory is
the peak resident set of the measuring process plus its largest worker child, after the scan and
at the end.
Targets (issue 15): cold <= 3x the floor at 1,000 and 10,000; warm <= 0.25x the floor at 10,000;
peak memory of the cold scan <= 300 MB at 10,000."""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

COLD_RATIO, WARM_RATIO, TARGET_MB = 3.0, 0.25, 300


def ensure_library(root: Path, n: int, seed: int) -> Path:
    from synth import make_library

    folder = root / f"library-{n}-seed{seed}"
    done = folder / ".complete"
    if not done.exists():
        t = time.perf_counter()
        make_library(folder, n, seed=seed, corrupt_rate=0.005)
        done.write_text("ok")
        print(
            f"  generated {n} documents in {time.perf_counter() - t:.1f} s -> {folder}", flush=True
        )
    return folder


def _cpu_s() -> float:
    """CPU seconds so far of this process and its finished children (the scan's workers): on a
    shared machine the wall-clock figures swing with the load, the CPU spent much less."""
    return sum(
        u.ru_utime + u.ru_stime
        for u in (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
    )


def _rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux reports KiB


def _imports() -> float:
    t = time.perf_counter()
    import lxml.html  # noqa: F401
    import pandas  # noqa: F401

    from oo_nb.library import audit, digest, frames, library  # noqa: F401

    return time.perf_counter() - t


def measure_floor(folder: Path) -> dict[str, float]:
    import re

    _imports()
    block = re.compile(
        r'<script id="(oo-manifest|oo-contract|oo-source-cache|oo-changelog)"'
        r' type="application/json">(.*?)</script>',
        re.DOTALL,
    )
    t, cpu = time.perf_counter(), _cpu_s()
    n = blocks = 0
    for here, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".o-o.html"):
                text = (Path(here) / name).read_bytes().decode("utf-8", "replace")
                n += 1
                for m in block.finditer(text):
                    try:
                        json.loads(m.group(2))
                        blocks += 1
                    except ValueError:
                        pass
    wall, cpu = time.perf_counter() - t, _cpu_s() - cpu
    return {"scan_s": wall, "cpu_s": cpu, "files": n, "blocks": blocks, **_memory()}


def measure_library(folder: Path, workers: int | None, frames: bool) -> dict[str, float]:
    imports = _imports()
    from synth import TODAY

    from oo_nb.library.library import FRAMES, Library

    t0, cpu = time.perf_counter(), _cpu_s()
    lib = Library(folder, today=TODAY, workers=workers)
    t1 = time.perf_counter()
    out = {"scan_s": t1 - t0, "cpu_s": _cpu_s() - cpu, "imports_s": imports, **_memory("scan_mb")}
    out["docs"] = len(lib)  # decodes cached digests: after the scan's figures
    lib.documents  # noqa: B018  (warm: decodes the cached digests)
    out["documents_s"] = time.perf_counter() - t0  # the scan and the documents frame
    if frames:
        t1 = time.perf_counter()
        out["rows"] = sum(len(lib.frame(name)) for name in FRAMES)
        t2 = time.perf_counter()
        out["findings"] = len(lib.audit(all=True))
        out["frames_s"], out["audit_s"] = t2 - t1, time.perf_counter() - t2
    return {**out, **_memory()}


def _memory(name: str = "peak_mb") -> dict[str, float]:
    """The peak so far: this process's resident set plus its largest worker child's."""
    return {name: _rss_mb(resource.RUSAGE_SELF) + _rss_mb(resource.RUSAGE_CHILDREN)}


def run(folder: Path, what: str, workers: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--measure", what, str(folder), "--workers", workers],
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(HERE.parent)),
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def compile_bytecode() -> None:
    """Write the package's bytecode, as pip does for an installed package: a scan's worker
    process then starts as on a user's machine (0.16 s here), not compiling every module from
    source each time (0.22 s; what happens where PYTHONDONTWRITEBYTECODE is set and the source
    tree has no __pycache__, as on the machines these figures come from)."""
    import compileall

    compileall.compile_dir(HERE.parent / "oo_nb", quiet=1)
    print(
        "  bytecode compiled"
        + (
            " (PYTHONDONTWRITEBYTECODE is set here)"
            if os.environ.get("PYTHONDONTWRITEBYTECODE")
            else ""
        ),
        flush=True,
    )


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--workers", default="auto", help="auto, or a number of processes")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "oo-bench-library")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the median is reported")
    ap.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.measure:
        what, folder = ns.measure[0], Path(ns.measure[1])
        workers = None if ns.workers == "auto" else int(ns.workers)
        if what == "floor":
            print(json.dumps(measure_floor(folder)))
        else:
            print(json.dumps(measure_library(folder, workers, frames=what == "cold")))
        return
    print(f"oo library benchmark ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})")
    compile_bytecode()
    for n in ns.sizes:
        folder = ensure_library(ns.dir, n, ns.seed)
        floors, colds, warms = [], [], []
        for _ in range(ns.repeat):
            floors.append(run(folder, "floor", ns.workers))
            shutil.rmtree(folder / ".oo-cache", ignore_errors=True)
            colds.append(run(folder, "cold", ns.workers))
            warms.append(run(folder, "warm", ns.workers))
        cold_r = statistics.median(
            c["scan_s"] / f["scan_s"] for c, f in zip(colds, floors, strict=True)
        )
        warm_r = statistics.median(
            w["scan_s"] / f["scan_s"] for w, f in zip(warms, floors, strict=True)
        )
        cold_cpu = statistics.median(
            c["cpu_s"] / f["cpu_s"] for c, f in zip(colds, floors, strict=True)
        )
        warm_cpu = statistics.median(
            w["cpu_s"] / f["cpu_s"] for w, f in zip(warms, floors, strict=True)
        )
        cache_mb = (folder / ".oo-cache" / "library.sqlite").stat().st_size / 1e6
        print(
            f"{n:>6} docs ({median(colds, 'docs'):.0f} readable), median of {ns.repeat}, "
            f"load {os.getloadavg()[0]:.1f}:\n"
            f"  floor {median(floors, 'scan_s'):.2f} s | cold scan {median(colds, 'scan_s'):.2f} s "
            f"= {cold_r:.2f}x floor | warm scan {median(warms, 'scan_s'):.3f} s = {warm_r:.3f}x floor "
            f"(+ documents frame: {median(warms, 'documents_s'):.2f} s)\n"
            f"  CPU seconds (this process and its workers): floor {median(floors, 'cpu_s'):.2f} | "
            f"cold scan {median(colds, 'cpu_s'):.2f} = {cold_cpu:.2f}x | warm scan "
            f"{median(warms, 'cpu_s'):.3f} = {warm_cpu:.3f}x; cold scan + documents frame "
            f"{median(colds, 'documents_s'):.2f} s wall\n"
            f"  cold: frames {median(colds, 'frames_s'):.2f} s ({median(colds, 'rows'):.0f} rows), "
            f"audit {median(colds, 'audit_s'):.2f} s\n"
            f"  peak memory: cold scan {median(colds, 'scan_mb'):.0f} MB (then all frames and the "
            f"audit {median(colds, 'peak_mb'):.0f} MB), warm scan {median(warms, 'scan_mb'):.0f} MB "
            f"(+ documents frame {median(warms, 'peak_mb'):.0f} MB), floor "
            f"{median(floors, 'peak_mb'):.0f} MB; "
            f"cache {cache_mb:.0f} MB; imports {median(colds, 'imports_s'):.2f} s",
            flush=True,
        )
        print(
            f"  target cold <= {COLD_RATIO:.0f}x floor: {'met' if cold_r <= COLD_RATIO else 'MISSED'}"
            + (
                f"; warm <= {WARM_RATIO}x floor: {'met' if warm_r <= WARM_RATIO else 'MISSED'}"
                f"; peak <= {TARGET_MB} MB: "
                f"{'met' if median(colds, 'scan_mb') <= TARGET_MB else 'MISSED'}"
                if n >= 10000
                else ""
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
