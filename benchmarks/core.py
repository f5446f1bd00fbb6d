"""Document core figures: parse and to_bytes time of the largest corpus file, a block edit,
and the wall time of `oo show --json` in a fresh process."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from oo_nb.format.document import Document
from tests.support.corpus import corpus_dir

CORPUS = corpus_dir()  # OO_CORPUS, else tests/fixtures/corpus


def best_of(fn: object, n: int = 200) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    largest = max(CORPUS.glob("*.o-o.html"), key=lambda p: p.stat().st_size)
    data = largest.read_bytes()
    doc = Document.parse(data)
    parse = best_of(lambda: Document.parse(data))
    to_bytes = best_of(lambda: Document.parse(data).text.encode("utf-8"))
    views = best_of(
        lambda: (lambda d: (d.manifest, d.contract, d.source_cache, d.changelog))(
            Document.parse(data)
        )
    )
    article = best_of(lambda: Document.parse(data).article, 50)
    edit = best_of(lambda: doc.edit_block("oo-manifest", lambda m: m.update(version=9)), 100)
    walls = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "oo_nb", "show", "--json", str(largest)],
            check=True,
            capture_output=True,
        )
        walls.append(time.perf_counter() - t)
    print(f"largest corpus file: {largest.name} ({len(data):,} bytes)")
    print(f"parse (spans)                 {parse * 1e3:8.3f} ms")
    print(f"parse + to_bytes (re-encode)  {to_bytes * 1e3:8.3f} ms")
    print(f"parse + four typed views      {views * 1e3:8.3f} ms")
    print(f"parse + article (lxml)        {article * 1e3:8.3f} ms")
    print(f"edit one block (splice+parse) {edit * 1e3:8.3f} ms")
    print(
        f"`oo show --json` wall (median of 5, fresh process) {statistics.median(walls) * 1e3:8.1f} ms"
    )


if __name__ == "__main__":
    main()
