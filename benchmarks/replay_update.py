"""An offline replay update as a whole fresh process: what a newcomer without an API key waits
for (the demo library, notebooks, Binder), the tree under test against another one (before/after).

    PYTHONPATH=. python benchmarks/replay_update.py [--repeat 7] [--baseline DIR]

    # before/after a change: the old tree's oo_nb/ beside it
    mkdir /tmp/base && git archive main oo_nb | tar -x -C /tmp/base
    PYTHONPATH=. python benchmarks/replay_update.py --baseline /tmp/base

Each run is a fresh interpreter on a fresh copy of the demo library (no API key, the document's
recorded run in ``.oo-cassettes``), written without review (``--yes``), in two forms:

- ``cli``: ``python -m oo_nb update DOC --force --yes``;
- ``api``: ``python -c "import oo_nb; oo_nb.open(DOC).update(force=True, yes=True)"``.

For each: wall seconds (start to exit) and CPU seconds (the process, by ``wait4``), medians of
interleaved rounds (every tree and form once per round, so the machine's load falls on each
alike), and whether the run imported the ``anthropic`` SDK. The floor: ``import anthropic``
alone in a fresh process, what a replay no longer waits on. Bytecode is compiled first, as an
installed package's is.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOC = "heat-pumps-in-europe.o-o.html"
PROBE = "import sys; print('SDK' if 'anthropic' in sys.modules else 'no SDK', file=sys.stderr)"
FORMS = {
    "cli": "import sys; from oo_nb.cli.main import main; code = main(sys.argv[1:]); {probe}; "
    "sys.exit(code)",
    "api": "import sys, oo_nb; oo_nb.open(sys.argv[1]).update(force=True, yes=True); {probe}",
}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _demo(tree: Path, folder: Path) -> Path:
    env = {**_env(tree)}
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"from oo_nb.demo import install_demo; install_demo({str(folder)!r}, quiet=True)",
        ],
        check=True,
        env=env,
        capture_output=True,
        cwd=folder.parent,  # not the repository: `-c` puts the working folder first on the path
    )
    return folder / DOC


def _env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(PYTHONPATH=str(tree), OO_AGENT="", OO_TODAY="2026-12-01", OO_NB_PREWARM="0")
    return env


def one(tree: Path, form: str, scratch: Path) -> tuple[float, float, bool]:
    """(wall s, CPU s, SDK imported) of one replayed update in a fresh process."""
    folder = scratch / f"demo-{time.monotonic_ns()}"
    doc = _demo(tree, folder)
    code = FORMS[form].format(probe=PROBE)
    args = [sys.executable, "-c", code]
    args += ["update", "--force", "--yes", str(doc)] if form == "cli" else [str(doc)]
    before = _cpu()
    start = time.perf_counter()
    done = subprocess.run(args, env=_env(tree), capture_output=True, text=True, cwd=scratch)
    wall = time.perf_counter() - start
    cpu = _cpu() - before
    if done.returncode != 0 or "replay (recorded)" not in doc.read_text("utf-8"):
        raise SystemExit(f"{form} on {tree} failed: {done.stderr[-800:]}")
    shutil.rmtree(folder)
    return wall, cpu, done.stderr.strip().splitlines()[-1] == "SDK"


def sdk_floor(tree: Path) -> tuple[float, float]:
    before = _cpu()
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import anthropic"], check=True, env=_env(tree), cwd=tree.parent
    )
    return time.perf_counter() - start, _cpu() - before


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--baseline", type=Path, help="a tree holding another oo_nb/ (before)")
    ns = ap.parse_args()
    trees = {"after": HERE.parent}
    if ns.baseline is not None:
        trees = {"before": ns.baseline.resolve(), **trees}
    for tree in trees.values():
        compileall.compile_dir(tree / "oo_nb", quiet=1)
    compileall.compile_dir(sysconfig.get_paths()["purelib"], quiet=1)
    rows: dict[tuple[str, str], list[tuple[float, float, bool]]] = {
        (t, f): [] for t in trees for f in FORMS
    }
    floor: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory(prefix="oo-bench-replay-") as tmp:
        scratch = Path(tmp)
        one(HERE.parent, "cli", scratch)  # unmeasured: the page cache holds the files
        for _ in range(ns.repeat):
            for form in FORMS:
                for name, tree in trees.items():
                    rows[name, form].append(one(tree, form, scratch))
            floor.append(sdk_floor(HERE.parent))
    med = statistics.median
    print(
        f"offline replay update of {DOC}, fresh process, median of {ns.repeat} interleaved "
        f"rounds ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})"
    )
    print(
        f"  floor: import anthropic alone          wall {med(w for w, _ in floor):5.2f} s"
        f"   CPU {med(c for _, c in floor):5.2f} s"
    )
    for form, label in (
        ("cli", "oo update DOC --force --yes"),
        ("api", "oo_nb.open(DOC).update()"),
    ):
        for name in trees:
            runs = rows[name, form]
            sdk = sum(s for _, _, s in runs)
            print(
                f"  {label:<30} {name:<6}  wall {med(w for w, _, _ in runs):5.2f} s"
                f"   CPU {med(c for _, c, _ in runs):5.2f} s   SDK imported in {sdk}/{len(runs)}"
            )


if __name__ == "__main__":
    main()
