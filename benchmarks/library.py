"""Library benchmark: what a user waits for, as whole processes, against the floor.

    .venv/bin/python benchmarks/library.py                        # 1,000 and 10,000 documents
    .venv/bin/python benchmarks/library.py --sizes 1000 --repeat 5
    .venv/bin/python benchmarks/library.py --cases cli-cold floor  # some cases only
    .venv/bin/python benchmarks/library.py --baseline /tmp/old    # A/B: /tmp/old/oo_nb as well

Libraries are generated once (benchmarks/synth.py) into ``--dir`` and reused; the package's
bytecode is compiled first, as an installed package's is. Every case is one fresh process,
imports included, measured from here with ``wait4``: CPU seconds (user + system, its worker
processes included, even a pool's forkserver that outlives it: this process is their
subreaper) are the primary figure, steady under the load of a shared machine; wall
seconds are secondary; memory is the peak resident set of the largest process. Cases:

- ``floor``: one process reads every file, finds the four JSON blocks by one regex and
  ``json.loads`` them (benchmarks/library_floor.py);
- ``floor-frames``: the same, then four comparable pandas frames (documents, sources, facts,
  changelog);
- ``cli-cold``: ``oo library DIR`` with no ``DIR/.oo-cache``; ``cli-warm``: again, nothing
  changed; ``audit-warm``: ``oo audit DIR`` (each warm case runs once unmeasured first: it
  follows the same command, whatever case ran before it);
- ``frames-warm``: ``Library(DIR)`` and its four frames, in Python, run once unmeasured first
  (warm: the same command ran and nothing changed since); ``frames-touched``: the same after 1%
  of the files were touched (read again).

The cases run interleaved (one of each per round, ``--repeat`` rounds) and each figure is the
median; a ratio is taken within its round (the CLI cases to ``floor``, the Python ones to
``floor-frames``) and its median reported. Targets (issue 29): cold CLI <= 5x the floor in CPU;
warm frames <= 0.5x the floor with frames at 10,000; peak memory there <= 250 MB."""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

COLD_CPU, FRAMES_CPU, FRAMES_MB = 5.0, 0.5, 250
CASES: tuple[str, ...] = ("floor", "floor-frames", "cli-cold", "cli-warm", "audit-warm")
CASES += ("frames-warm", "frames-touched")
FLOOR_OF = {"cli-cold": "floor", "cli-warm": "floor", "audit-warm": "floor"}
FLOOR_OF |= {"frames-warm": "floor-frames", "frames-touched": "floor-frames"}
BASE = " (base)"  # a case run with --baseline's package
FRAMES_CODE = (
    "import sys; from oo_nb.library import Library; from datetime import date; "
    "lib = Library(sys.argv[1], today=date(2026, 2, 17)); "
    "print(sum(len(f) for f in (lib.documents, lib.sources, lib.facts, lib.changelog)))"
)


@dataclass
class Run:
    cpu_s: float
    wall_s: float
    peak_mb: float


def ensure_library(root: Path, n: int, seed: int) -> Path:
    from synth import make_library

    folder = root / f"library-{n}-seed{seed}"
    if not (folder / ".complete").exists():
        t = time.perf_counter()
        make_library(folder, n, seed=seed, corrupt_rate=0.005)
        (folder / ".complete").write_text("ok")
        print(f"  generated {n} documents in {time.perf_counter() - t:.1f} s", flush=True)
    return folder


def default_dir() -> Path:
    """Libraries of this tree: another tree's code, run on the same folder, would replace its
    cache (another code version) between two rounds here."""
    tree = hashlib.blake2b(str(HERE.parent).encode(), digest_size=4).hexdigest()
    return Path(tempfile.gettempdir()) / f"oo-bench-library-{tree}"


def command(case: str, folder: Path) -> list[str]:
    python = sys.executable
    if case.startswith("floor"):
        return [
            python,
            str(HERE / "library_floor.py"),
            "--" + case.removeprefix("floor-"),
            str(folder),
        ]
    if case.startswith("frames"):
        return [python, "-c", FRAMES_CODE, str(folder)]
    verb = "audit" if case.startswith("audit") else "library"
    return [python, "-m", "oo_nb.cli", verb, str(folder), "--today", "2026-02-17"]


def prepare(case: str, folder: Path, round_no: int) -> None:
    if case == "cli-cold":
        shutil.rmtree(folder / ".oo-cache", ignore_errors=True)
    if case == "frames-touched":  # 1% of the files get a new mtime: read again, cache updated
        docs = sorted(folder.glob("*.o-o.html"))
        stamp = time.time() - 3600 + round_no  # old enough not to need hashing
        for p in docs[round_no % 100 :: 100]:
            os.utime(p, (stamp, stamp))


def become_subreaper() -> None:
    """Orphaned descendants come back to this process (Linux), so that their CPU is counted: a
    process pool's forkserver outlives the command it served and is not waited for by it."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        raise SystemExit("cannot count the CPU of orphaned workers here (not Linux?)")


def measure(case: str, folder: Path, code: Path) -> Run:
    """One run of ``case`` with the package from ``code``: CPU of it and every descendant (each
    reaped here or by a process reaped here), wall until it and they have exited."""
    env = dict(os.environ, PYTHONPATH=str(code), COLUMNS="120")
    start = time.perf_counter()
    proc = subprocess.Popen(
        command(case, folder),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=folder,  # not a tree holding an oo_nb/: `python -m`/`-c` put the cwd first on the path
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    cpu = peak = 0.0
    while True:
        try:
            pid, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break
        cpu += usage.ru_utime + usage.ru_stime  # includes what it reaped itself
        peak = max(peak, usage.ru_maxrss / 1024)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # oo audit exits 1 when it finds errors
        raise SystemExit(f"{case} failed ({proc.returncode}): {err.decode()[-2000:]}")
    return Run(cpu, wall, peak)


def compile_bytecode(baseline: Path | None) -> None:
    """Write the bytecode of the package and of its dependencies, as pip does when it installs
    them (uv does not, and PYTHONDONTWRITEBYTECODE may keep Python from writing it: every run
    then compiled pandas and pyarrow again, a second of CPU)."""
    import compileall
    import sysconfig

    compileall.compile_dir(HERE.parent / "oo_nb", quiet=1)
    compileall.compile_dir(sysconfig.get_paths()["purelib"], quiet=1)
    if baseline is not None:
        compileall.compile_dir(baseline / "oo_nb", quiet=1)


def ratio(runs: list[Run], floors: list[Run], key: str) -> float:
    """The median of each round's ratio to the floor measured in the same round."""
    pairs = zip(runs, floors, strict=True)
    return float(statistics.median(getattr(r, key) / getattr(f, key) for r, f in pairs))


def report(n: int, cases: list[str], runs: dict[str, list[Run]]) -> None:
    print(f"\n{n} documents, median of {len(runs[cases[0]])} interleaved rounds:")
    print(f"  {'case':<22}{'CPU s':>8}{'x floor':>9}{'wall s':>8}{'x floor':>9}{'peak MB':>9}")
    for case in cases:
        rs = runs[case]
        line = f"  {case:<22}{statistics.median(r.cpu_s for r in rs):>8.2f}"
        floor = runs.get(FLOOR_OF.get(case.removesuffix(BASE), ""))
        cpu_x = wall_x = ""
        if floor:
            cpu_x = f"{ratio(rs, floor, 'cpu_s'):.2f}"
            wall_x = f"{ratio(rs, floor, 'wall_s'):.2f}"
        line += f"{cpu_x:>9}{statistics.median(r.wall_s for r in rs):>8.2f}{wall_x:>9}"
        print(line + f"{statistics.median(r.peak_mb for r in rs):>9.0f}", flush=True)
    targets = {"cli-cold": COLD_CPU, "frames-warm": FRAMES_CPU}
    for case, limit in targets.items():
        if case in runs and FLOOR_OF[case] in runs:
            times = ratio(runs[case], runs[FLOOR_OF[case]], "cpu_s")
            verdict = "met" if times <= limit else "MISSED"
            print(f"  target {case} <= {limit}x floor in CPU: {verdict} ({times:.2f}x)")
    if "frames-warm" in runs and n >= 10000:
        peak = statistics.median(r.peak_mb for r in runs["frames-warm"])
        print(
            f"  target frames-warm peak <= {FRAMES_MB} MB: {'met' if peak <= FRAMES_MB else 'MISSED'}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    ap.add_argument("--dir", type=Path, default=default_dir())
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="rounds; medians are reported")
    ap.add_argument(
        "--baseline", type=Path, help="a tree holding another oo_nb/ to run the cases with too"
    )
    ns = ap.parse_args()
    become_subreaper()
    load = os.getloadavg()[0]
    print(f"oo library benchmark: {os.cpu_count()} cores, load {load:.1f} at the start")
    compile_bytecode(ns.baseline)
    for n in ns.sizes:
        folder = ensure_library(ns.dir, n, ns.seed)
        cases = [*ns.cases]
        if ns.baseline is not None:  # the same cases with another tree's package, interleaved
            cases += [f"{c}{BASE}" for c in ns.cases if not c.startswith("floor")]
        runs: dict[str, list[Run]] = {case: [] for case in cases}
        for round_no in range(ns.repeat):
            for case in cases:
                plain = case.removesuffix(BASE)
                prepare(plain, folder, round_no)
                code = ns.baseline if case.endswith(BASE) else HERE.parent
                if plain.endswith("-warm"):  # warm: the same command ran, nothing changed since
                    measure(plain, folder, code)
                runs[case].append(measure(plain, folder, code))
        report(n, cases, runs)
        print(f"  load {os.getloadavg()[0]:.1f} at the end", flush=True)


if __name__ == "__main__":
    main()
