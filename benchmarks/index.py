"""``oo index`` on a synthetic library of 1,000 documents (target ≤ 1 s) against the ORIGINAL o-o
index script itself, run as it is and, where it cannot run at all, patched (saying how); plus a
bash loop that does what the original does per file (for when the original is not at hand).

The original is the shell part of o-o's ``index.o-o.html`` (github.com/jahala/o-o, example/);
the corpus copy (../shared/corpus) has its shell code replaced by a stand-in, so the original is
not in this repository: give it with ``--original FILE`` or ``OO_ORIGINAL_INDEX``. It is copied
into the library root and run as ``bash index.o-o.html`` (rebuild the index), as its users do.

It cannot finish in two ways, both reported with the sizes at which they struck:
- ``set -euo pipefail`` with ``… | head -1`` pipelines (the excerpt, the card sort): when ``head``
  exits first the writer dies of SIGPIPE, the pipeline fails (141) and ``set -e`` ends the
  script; a race, likelier the more documents and the longer their articles. Patch: ``set -eu``
  (pipefail off; no work changes).
- the whole table goes to ``perl -pe`` as one command-line argument: past the kernel's 128 KiB
  per-argument limit (MAX_ARG_STRLEN) exec fails, "Argument list too long". Patch: perl reads the
  same content from a file instead (no escaping needed then).

    python benchmarks/index.py [N] [--original FILE] [--repeat R] [--limit]

``--limit`` also finds the smallest library the original (pipefail patch only) cannot index,
by bisection over hard-linked subsets of the library.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
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
PERL_ARG_LIMIT = 131_072  # MAX_ARG_STRLEN: 32 pages of 4 KiB

_PERL_LINE = '  perl -i -pe "BEGIN{undef \\$/;} s|<!-- INDEX-CONTENT-START -->'
_PERL_BY_FILE = (
    '  printf "%s" "$new_content" > "$SELF.oo-bench-content"\n'
    '  OO_CONTENT="$SELF.oo-bench-content" perl -i -pe \'BEGIN{open(my $f, "<", '
    "$ENV{OO_CONTENT}) or die; {local $/; $c = <$f>;} undef $/;} "
    "s|<!-- INDEX-CONTENT-START -->.*?<!-- INDEX-CONTENT-END -->|<!-- INDEX-CONTENT-START -->\\n$c\\n"
    '  <!-- INDEX-CONTENT-END -->|sm\' "$SELF"\n'
    '  rm -f "$SELF.oo-bench-content"'
)

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


def patched(script: str, *, pipefail: bool, perl: bool) -> str:
    """The original with the named patches (each must apply: the script is the one we know)."""
    if pipefail:
        assert "set -euo pipefail" in script, "not the original index script (no pipefail line)"
        script = script.replace("set -euo pipefail", "set -eu", 1)
    if perl:
        lines = script.split("\n")
        at = [i for i, line in enumerate(lines) if line.startswith(_PERL_LINE)]
        assert len(at) == 1, "not the original index script (no perl rewrite line)"
        lines[at[0]] = _PERL_BY_FILE
        script = "\n".join(lines)
    return script


def cause(proc: subprocess.CompletedProcess[str]) -> str:
    if proc.returncode == 0:
        return "ok"
    if "Argument list too long" in proc.stderr:
        return "perl: the table as one argument > 128 KiB (E2BIG)"
    if proc.returncode == 141:
        return "SIGPIPE in a `| head` pipeline under pipefail (exit 141)"
    return f"exit {proc.returncode}: {proc.stderr.strip()[-120:]}"


def run_original(root: Path, script: str) -> tuple[float, subprocess.CompletedProcess[str], int]:
    """Run ``script`` as ``ROOT/index.o-o.html``: (seconds, process, table rows written)."""
    target = root / "index.o-o.html"
    target.write_text(script, encoding="utf-8")
    start = time.perf_counter()
    proc = subprocess.run(["bash", str(target)], capture_output=True, text=True, cwd=root)
    seconds = time.perf_counter() - start
    rows = target.read_text(encoding="utf-8", errors="replace").count("<tr>\n  <td><a href=")
    return seconds, proc, rows


def subset(paths: list[Path], m: int, into: Path) -> Path:
    """A library of the first ``m`` documents, as hard links (no copying)."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    for i, p in enumerate(paths[:m]):
        os.link(p, into / f"{i:05d}-{p.name}")
    return into


def find_limit(paths: list[Path], script: str, work: Path) -> tuple[int, int]:
    """The largest size the original (pipefail patched) indexes and the smallest it cannot."""
    only_pipefail = patched(script, pipefail=True, perl=False)
    lo, hi = 1, len(paths)
    _, proc, _ = run_original(subset(paths, hi, work), only_pipefail)
    if proc.returncode == 0:
        return hi, 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        _, proc, _ = run_original(subset(paths, mid, work), only_pipefail)
        lo, hi = (mid, hi) if proc.returncode == 0 else (lo, mid)
    return lo, hi


def main(n: int = 1000, original: Path | None = None, repeat: int = 3, limit: bool = False) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "library"
        t_make, made = _timed(lambda: make_library(root, n, seed=1, subdirs=10, with_index=False))
        paths: list[Path] = made  # type: ignore[assignment]
        size = sum(p.stat().st_size for p in paths)
        print(
            f"library: {n} documents in 10 sub-folders, {size / 1e6:.1f} MB (made in {t_make:.1f} s)"
        )
        print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.1f}")

        t_scan, found = _timed(lambda: scan(root, workers=1))
        t_scan_pool, _ = _timed(lambda: scan(root, workers=2))
        news, result = [], None
        for i in range(repeat):
            (root / "index.o-o.html").unlink(missing_ok=True)
            t_new, result = _timed(lambda i=i: write_index(root, now=datetime(2026, 2, 17, 12, i)))
            news.append(t_new)
        t_new = statistics.median(news)
        t_same, same = _timed(lambda: write_index(root, now=datetime(2026, 2, 17, 13, 5)))
        assert not same.changed  # type: ignore[attr-defined]
        first = paths[0]
        first.write_text(first.read_text().replace('"version": ', '"version": 1', 1))
        t_update, updated = _timed(lambda: write_index(root, now=datetime(2026, 2, 17, 13, 10)))
        assert updated.changed  # type: ignore[attr-defined]
        listed = len(result.scan.entries)  # type: ignore[attr-defined]
        errors = len(result.scan.errors)  # type: ignore[attr-defined]
        assert listed + errors == n, (listed, errors)

        per_doc_ms = t_new / n * 1000
        print(f"{'step':<52} {'seconds':>8}")
        print(
            f"{'scan only, one process (' + str(len(found.entries)) + ' docs)':<52} {t_scan:>8.3f}"
        )  # type: ignore[attr-defined]
        print(f"{'scan only, two processes':<52} {t_scan_pool:>8.3f}")
        print(
            f"{'oo index, new page (median of ' + str(repeat) + ')':<52} {t_new:>8.3f}   ({per_doc_ms:.2f} ms per document; "
            f"target <= {TARGET_S:.1f} s: {'met' if t_new <= TARGET_S else 'MISSED'})"
        )
        print(f"{'oo index, existing page, nothing new (no write)':<52} {t_same:>8.3f}")
        print(f"{'oo index, existing page, one document changed':<52} {t_update:>8.3f}")
        (root / "index.o-o.html").unlink(missing_ok=True)

        if original is None:
            print(
                "the original index script was not given (--original FILE or OO_ORIGINAL_INDEX; the "
                "corpus copy has no shell code): only the re-written original-style loop is compared"
            )
        else:
            script = original.read_text(encoding="utf-8")
            print(
                f"original: {original} (bash index.o-o.html in the library root, {repeat} runs each)"
            )
            for label, text in (
                ("original as it is", script),
                ("original, pipefail off", patched(script, pipefail=True, perl=False)),
                (
                    "original, pipefail off + perl reads a file",
                    patched(script, pipefail=True, perl=True),
                ),
            ):
                runs = [run_original(root, text) for _ in range(repeat)]
                done = [(s, rows) for s, p, rows in runs if p.returncode == 0]
                causes = sorted({cause(p) for _, p, _ in runs if p.returncode != 0})
                line = f"{label:<52} "
                if done:
                    t = statistics.median(s for s, _ in done)
                    line += f"{t:>8.3f}   finished {len(done)}/{repeat}, {done[0][1]} rows; {t / t_new:.1f}x oo index"
                else:
                    line += f"{'-':>8}   finished 0/{repeat}"
                print(line + (f"; failed: {'; '.join(causes)}" if causes else ""))
            if limit:
                ok, bad = find_limit(paths, script, Path(tmp) / "subset")
                if bad:
                    print(
                        f"original (pipefail off) indexes {ok} documents and fails from {bad} "
                        f"(its perl argument limit, {PERL_ARG_LIMIT:,} bytes)"
                    )
                else:
                    print(f"original (pipefail off) indexed all {ok} documents")

        script_path = Path(tmp) / "original_style.sh"
        script_path.write_text(ORIGINAL_STYLE)
        t_bash, proc = _timed(
            lambda: subprocess.run(
                ["bash", str(script_path), str(root)], capture_output=True, text=True, check=True
            )
        )
        bash_count = int(proc.stdout.strip())  # type: ignore[attr-defined]
        print(
            f"{'original style (re-written loop, ' + str(bash_count) + ' docs)':<52} {t_bash:>8.3f}   {t_bash / t_new:.1f}x oo index"
        )
    print(f"listed {listed}, unreadable {errors}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("n", nargs="?", type=int, default=1000)
    parser.add_argument(
        "--original", type=Path, default=os.environ.get("OO_ORIGINAL_INDEX") or None
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", action="store_true")
    ns = parser.parse_args()
    sys.exit(main(ns.n, ns.original, ns.repeat, ns.limit))
