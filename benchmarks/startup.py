"""What the read-only commands cost to start: `oo update --dry-run` and `oo show` (fresh
processes) against the import of the anthropic SDK alone, which neither may pay
(target: each ≤ 0.5x the SDK's import time). Median of N runs each, in one run.

    PYTHONPATH=. python benchmarks/startup.py [N]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.corpus import corpus_dir

TARGET = 0.5
SDK_IMPORT = (
    "import time; t = time.perf_counter(); import anthropic; print(time.perf_counter() - t)"
)


def wall(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def main(n: int = 5) -> int:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-test-MARKER"}
    env.pop("ANTHROPIC_BASE_URL", None)
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="oo-bench-") as tmp:
        doc = Path(tmp) / "agi-declared.o-o.html"
        shutil.copyfile(corpus_dir() / "agi-declared.o-o.html", doc)
        rows: dict[str, list[float]] = {"sdk": [], "python": [], "dry": [], "show": []}
        for _ in range(n):  # interleaved: the machine's load falls on every figure alike
            out = subprocess.run(
                [py, "-c", SDK_IMPORT], check=True, capture_output=True, text=True, env=env
            )
            rows["sdk"].append(float(out.stdout.strip()))
            rows["python"].append(wall([py, "-c", "pass"], env))
            rows["dry"].append(
                wall(
                    [
                        py,
                        "-m",
                        "oo_nb",
                        "update",
                        "--dry-run",
                        "--force",
                        "--agent",
                        "anthropic",
                        str(doc),
                    ],
                    env,
                )
            )
            rows["show"].append(wall([py, "-m", "oo_nb", "show", str(doc)], env))
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"startup, median of {n} fresh processes (cores: {os.cpu_count()})")
    print(f"  import anthropic (in-process)      {med['sdk'] * 1e3:8.0f} ms")
    print(f"  python -c pass (wall)              {med['python'] * 1e3:8.0f} ms")
    worst = 0.0
    for key, name in (("dry", "oo update --dry-run --agent anthropic"), ("show", "oo show")):
        ratio = med[key] / med["sdk"]
        worst = max(worst, ratio)
        print(f"  {name:<38}{med[key] * 1e3:6.0f} ms wall = {ratio:.2f}x the SDK import")
    print(f"  target <= {TARGET}x: {'met' if worst <= TARGET else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
