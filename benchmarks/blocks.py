"""Block views benchmark: what building the four typed JSON-block views costs per document.

    .venv/bin/python benchmarks/blocks.py                    # 600 synthetic + the corpus
    .venv/bin/python benchmarks/blocks.py --docs 1000 --repeat 7 --profile

Reads each document's four blocks (as the library digest does, oo_nb/library/digest.py
``_block``), then times ``json.loads`` of each block and ``Manifest``/``Contract``/``SourceCache``/
``Changelog.from_json`` on its JSON, in CPU seconds (the machine is shared: steadier than wall
time), the best of ``--repeat`` passes. Prints µs per document for each view, their sum, and the
sum as a multiple of the ``json.loads`` of the same blocks (part of the floor of issue 15; the
ratio moves much less than the µs with the machine's load). Target (issue 15, the views' share of
the cold scan): the sum at most 0.6 of what it was before the views' fast paths (commit 33f210f:
3.4-3.8x json.loads on the synthetic library, 4.4-4.8x on the corpus), so at most 2.0x."""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from oo_nb.errors import OOError  # noqa: E402
from oo_nb.format.blocks import Changelog, Contract, Manifest, SourceCache  # noqa: E402
from oo_nb.format.document import Document  # noqa: E402
from oo_nb.format.jsonblock import parse_block  # noqa: E402
from oo_nb.format.names import (  # noqa: E402
    CHANGELOG_BLOCK,
    CONTRACT_BLOCK,
    MANIFEST_BLOCK,
    SOURCE_CACHE_BLOCK,
)

CORPUS = HERE.parent / "tests" / "fixtures" / "corpus"
VIEWS: dict[str, Callable[..., Any]] = {
    MANIFEST_BLOCK: Manifest.from_json,
    CONTRACT_BLOCK: Contract.from_json,
    SOURCE_CACHE_BLOCK: SourceCache.from_json,
    CHANGELOG_BLOCK: Changelog.from_json,
}


def block_texts(paths: list[Path]) -> dict[str, list[str]]:
    """Each view's name -> the text of that block in every document where it is valid JSON."""
    out: dict[str, list[str]] = {name: [] for name in VIEWS}
    for path in paths:
        try:
            doc = Document.parse(path.read_bytes(), path=path)
        except OOError:
            continue
        for name in VIEWS:
            if not doc.has_block(name):
                continue
            text = doc.block_text(name)
            try:
                parse_block(text, block=name)
            except OOError:
                continue
            out[name].append(text)
    return out


def run(view: Callable[..., Any], items: list[Any]) -> int:
    """Build the view of every item; how many were refused."""
    failed = 0
    for raw in items:
        try:
            view(raw)
        except OOError:
            failed += 1
    return failed


def measure(label: str, paths: list[Path], repeat: int) -> float:
    """Print the figures; return the views' cost as a multiple of json.loads."""
    texts = block_texts(paths)
    n = len(paths)
    clock = time.process_time
    parts = []
    total = loads = 0.0
    for name, view in VIEWS.items():
        best = best_loads = float("inf")
        for _ in range(repeat):
            t0 = clock()
            data = [json.loads(text) for text in texts[name]]
            t1 = clock()
            failed = run(view, data)
            t2 = clock()
            best, best_loads = min(best, t2 - t1), min(best_loads, t1 - t0)
        total, loads = total + best, loads + best_loads
        invalid = f" ({failed} invalid)" if failed else ""
        parts.append(f"{name.removeprefix('oo-')} {1e6 * best / n:.1f}{invalid}")
    print(
        f"{label}: {n} documents; views µs/doc: {', '.join(parts)}; sum {1e6 * total / n:.1f} "
        f"= {total / loads:.2f}x json.loads of the four blocks ({1e6 * loads / n:.1f})",
        flush=True,
    )
    return total / loads


def profile(paths: list[Path]) -> None:
    data = {name: [json.loads(t) for t in texts] for name, texts in block_texts(paths).items()}
    prof = cProfile.Profile()
    prof.enable()
    for name, view in VIEWS.items():
        run(view, data[name])
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(15)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=600, help="synthetic documents")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "oo-bench-library")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=5, help="passes; the best counts")
    ap.add_argument("--profile", action="store_true", help="also print a cProfile of one pass")
    args = ap.parse_args()
    from library import ensure_library

    folder = ensure_library(args.dir, max(args.docs, 1000), args.seed)
    synthetic = sorted(folder.glob("*.o-o.html"))[: args.docs]
    ratio = measure(f"synthetic ({folder.name})", synthetic, args.repeat)
    print(f"  target: views <= 2.0x json.loads: {'met' if ratio <= 2.0 else 'NOT met'}")
    measure("corpus (tests/fixtures/corpus)", sorted(CORPUS.glob("*.o-o.html")), 50 * args.repeat)
    if args.profile:
        profile(synthetic)


if __name__ == "__main__":
    main()
