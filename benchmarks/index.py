"""``oo index`` on a synthetic library of 1,000 documents (target ≤ 1 s) against a bash loop that
does what the original index did per file: one grep pipeline per field (title, version, as-of,
size, excerpt), each a handful of processes.

    python benchmarks/index.py [N]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import make_library

from oo_nb.library.index_data import scan
from oo_nb.library.index_page import write_index

TARGET_S = 1.0

# The original's way, written again for comparison: a find loop, and per file one pipeline per
# field (grep | head | sed, ls | awk, awk | grep | head | sed | cut) whose results are pasted
# into table rows.
ORIGINAL_STYLE = r"""
set -u
root=$1
out=$(mktemp)
count=0
while IFS= read -r file; do
  case ${file##*/} in index*) continue ;; esac
  title=$(grep -o '"title"[[:space:]]*:[[:space:]]*"[^"]*"' "$file" | head -1 | sed 's/.*:[[:space:]]*"//; s/"$//')
  version=$(grep -o '"version"[[:space:]]*:[[:space:]]*[0-9]*' "$file" | head -1 | grep -o '[0-9]*$')
  as_of=$(grep -o '"as_of"[[:space:]]*:[[:space:]]*"[^"]*"' "$file" | head -1 | sed 's/.*:[[:space:]]*"//; s/"$//')
  size=$(ls -lh "$file" | awk '{print $5}')
  excerpt=$(awk '/<article/,/<\/article/' "$file" | grep -o '<p>[^<]*<' | head -1 | sed 's/<p>//; s/<$//' | cut -c1-120)
  printf '<tr><td><a href="%s">%s</a></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n' \
    "${file##*/}" "$title" "$size" "$as_of" "$version" "$excerpt" >> "$out"
  count=$((count + 1))
done < <(find "$root" -name '*.o-o.html' -type f -not -path '*/.oo-history/*')
rm -f "$out"
echo "$count"
"""


def _timed(fn: object) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()  # type: ignore[operator]
    return time.perf_counter() - start, value


def main(n: int = 1000) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "library"
        t_make, paths = _timed(lambda: make_library(root, n, seed=1, subdirs=10, with_index=False))
        size = sum(p.stat().st_size for p in paths)  # type: ignore[attr-defined]
        print(
            f"library: {n} documents in 10 sub-folders, {size / 1e6:.1f} MB (made in {t_make:.1f} s)"
        )

        t_scan, found = _timed(lambda: scan(root, workers=1))
        t_scan_pool, _ = _timed(lambda: scan(root, workers=2))
        t_new, result = _timed(lambda: write_index(root, now=datetime(2026, 2, 17, 12, 0)))
        t_same, same = _timed(lambda: write_index(root, now=datetime(2026, 2, 17, 12, 5)))
        assert not same.changed  # type: ignore[attr-defined]
        first = paths[0]  # type: ignore[index]
        first.write_text(
            first.read_text().replace('"version": ', '"version": 1', 1)
        )  # one document changed
        t_update, updated = _timed(lambda: write_index(root, now=datetime(2026, 2, 17, 12, 10)))
        assert updated.changed  # type: ignore[attr-defined]
        listed = len(result.scan.entries)  # type: ignore[attr-defined]
        errors = len(result.scan.errors)  # type: ignore[attr-defined]
        assert listed + errors == n, (listed, errors)

        script = Path(tmp) / "original_style.sh"
        script.write_text(ORIGINAL_STYLE)
        t_bash, proc = _timed(
            lambda: subprocess.run(
                ["bash", str(script), str(root)], capture_output=True, text=True, check=True
            )
        )
        bash_count = int(proc.stdout.strip())  # type: ignore[attr-defined]

    per_doc_ms = t_new / n * 1000
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.1f}")
    print(f"{'step':<46} {'seconds':>8}")
    print(f"{'scan only, one process (' + str(len(found.entries)) + ' docs)':<46} {t_scan:>8.3f}")  # type: ignore[attr-defined]
    print(f"{'scan only, two processes':<46} {t_scan_pool:>8.3f}")
    print(
        f"{'oo index, new page':<46} {t_new:>8.3f}   ({per_doc_ms:.2f} ms per document; target <= {TARGET_S:.1f} s: "
        f"{'met' if t_new <= TARGET_S else 'MISSED'})"
    )
    print(f"{'oo index, existing page, nothing new (no write)':<46} {t_same:>8.3f}")
    print(f"{'oo index, existing page, one document changed':<46} {t_update:>8.3f}")
    print(
        f"{'original style (bash, grep per field, ' + str(bash_count) + ' docs)':<46} {t_bash:>8.3f}"
    )
    print(f"ratio original style / oo index: {t_bash / t_new:.1f}x")
    print(f"listed {listed}, unreadable {errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000))
