"""Cold ``%load_ext oo_nb`` in a fresh process (target ≤ 1 s), what it imports, and the first
``%oo show`` after it.

A kernel has IPython loaded before the user types anything, so the figure that matters is the
load itself, measured after ``InteractiveShell`` exists; the process wall time is printed too.
Heavy libraries must not be imported by the load: they are paid by the verb that needs them.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

from tests.support.corpus import corpus_dir

CORPUS = corpus_dir()  # OO_CORPUS, else tests/fixtures/corpus
HEAVY = (
    "pandas",
    "lxml",
    "anthropic",
    "matplotlib",
    "ipywidgets",
    "nh3",
    "PIL",
    "httpx2",
    "numpy",
)
TARGET_S = 1.0

PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
t1 = time.perf_counter()
ip.extension_manager.load_extension("oo_nb")
t2 = time.perf_counter()
heavy = [m for m in HEAVY if m in sys.modules]
show = None
if DOC:
    t3 = time.perf_counter()
    ip.run_line_magic("oo", "show " + DOC)._repr_mimebundle_()
    show = time.perf_counter() - t3
print(json.dumps({"shell": t1 - t0, "load": t2 - t1, "heavy": heavy, "show": show}))
"""


def probe(doc: str = "") -> dict[str, object]:
    code = f"HEAVY = {HEAVY!r}\nDOC = {doc!r}\n" + PROBE
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def importtime_top(n: int = 8) -> list[tuple[int, str]]:
    """The slowest imports (cumulative µs) triggered by the load alone (``python -X importtime``)."""
    code = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "ip = InteractiveShell.instance()\n"
        "import sys; sys.stderr.write('--- load ---\\n')\n"
        "ip.extension_manager.load_extension('oo_nb')\n"
    )
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    ).stderr
    after = err.split("--- load ---", 1)[1]
    rows = []
    for line in after.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (part.strip() for part in line[len("import time:") :].split("|"))
            rows.append((int(cumulative), name))
    return sorted(rows, reverse=True)[:n]


def main() -> None:
    runs = [probe() for _ in range(5)]
    load = statistics.median(float(r["load"]) for r in runs)  # type: ignore[arg-type]
    shell = statistics.median(float(r["shell"]) for r in runs)  # type: ignore[arg-type]
    heavy = sorted({m for r in runs for m in r["heavy"]})  # type: ignore[attr-defined]
    doc = CORPUS / "ai-model-landscape.o-o.html"
    show = (
        statistics.median(float(probe(str(doc))["show"]) for _ in range(3))
        if doc.exists()
        else float("nan")
    )  # type: ignore[arg-type]
    print(f"IPython InteractiveShell start (not ours)   {shell * 1e3:8.1f} ms")
    print(
        f"%load_ext oo_nb, cold (median of 5)          {load * 1e3:8.1f} ms   target ≤ {TARGET_S * 1e3:.0f} ms"
        f"   ratio {load / TARGET_S:.3f}"
    )
    print(f"heavy modules imported by the load           {', '.join(heavy) or 'none'}")
    print(f"first `%oo show` after the load (preview)    {show * 1e3:8.1f} ms")
    print("slowest imports during the load (cumulative µs):")
    for micros, name in importtime_top():
        print(f"  {micros:8d}  {name}")


if __name__ == "__main__":
    main()
