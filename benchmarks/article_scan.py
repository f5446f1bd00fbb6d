"""Article scan benchmark: the lxml-free fast path against the lxml walk, per document.

    .venv/bin/python benchmarks/article_scan.py                 # 1,000 synthetic + the corpus
    .venv/bin/python benchmarks/article_scan.py --docs 300 --repeat 5

Reads each document's article once, then times ``scan_fast`` (oo_nb/library/article_fast.py) and
``scan_article(..., fast=False)`` (the lxml walk) on it side by side, in CPU seconds (the machine
is shared: steadier than wall time), best of ``--repeat`` per document. Prints ms per document
for each, their ratio, what ``scan_article`` costs as the library calls it (fast path first), and
how many documents took the fast path. The synthetic library is the one benchmarks/library.py
generates (benchmarks/synth.py), made here if missing. Target (issue 15, the article scan's share
of the cold scan): scan_article <= 0.30 ms per synthetic document with the fast path taken on
>= 95 % of the documents, and on the real documents of tests/fixtures/corpus."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from oo_nb.errors import OOError  # noqa: E402
from oo_nb.format.document import Document  # noqa: E402
from oo_nb.format.legacy_script import has_our_script  # noqa: E402
from oo_nb.library.article_fast import ENABLED, scan_fast  # noqa: E402
from oo_nb.library.digest import scan_article  # noqa: E402

CORPUS = HERE.parent / "tests" / "fixtures" / "corpus"


def articles(paths: list[Path]) -> list[tuple[str, str, bool]]:
    """(name, article, risks) of each readable document, risks as the digest asks for them (and
    as the digest does, telling the scans the text was decoded from bytes)."""
    out = []
    for path in paths:
        try:
            doc = Document.read(path)
        except OOError:
            continue
        if doc.kind == "document" and doc.article_span is not None:
            out.append((path.name, doc.article_html, not has_our_script(doc)))
    return out


def measure(label: str, items: list[tuple[str, str, bool]], repeat: int) -> None:
    clock = time.process_time
    fast_s = slow_s = auto_s = 0.0
    taken = 0
    for _, html, risks in items:
        best = [float("inf")] * 3
        for _ in range(repeat):
            t0 = clock()
            got = scan_fast(html, risks=risks, valid_text=True)
            t1 = clock()
            scan_article(html, risks=risks, fast=False)
            t2 = clock()
            scan_article(html, risks=risks, valid_text=True)
            t3 = clock()
            best = [min(best[0], t1 - t0), min(best[1], t2 - t1), min(best[2], t3 - t2)]
        fast_s, slow_s, auto_s = fast_s + best[0], slow_s + best[1], auto_s + best[2]
        taken += got is not None
    n = len(items)
    print(
        f"{label}: {n} documents, fast path taken on {taken} ({100 * taken / n:.1f} %); "
        f"ms/doc: fast {1000 * fast_s / n:.3f}, lxml walk {1000 * slow_s / n:.3f} "
        f"(fast/lxml {fast_s / slow_s:.2f}); scan_article {1000 * auto_s / n:.3f} "
        f"({auto_s / slow_s:.2f} of the lxml walk)",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=1000, help="synthetic documents")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "oo-bench-library")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="timings per document; the best counts")
    args = ap.parse_args()
    if not ENABLED:
        print("libxml2 older than 2.14: the fast path is off, every article takes the lxml walk")
    from library import ensure_library

    folder = ensure_library(args.dir, max(args.docs, 1000), args.seed)
    synthetic = articles(sorted(folder.glob("*.o-o.html"))[: args.docs])
    measure(f"synthetic ({folder.name})", synthetic, args.repeat)
    measure("corpus (tests/fixtures/corpus)", articles(sorted(CORPUS.glob("*.o-o.html"))), 20)


if __name__ == "__main__":
    main()
