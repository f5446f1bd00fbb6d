"""Tokenizer benchmark: ``tokenize`` (oo_nb/format/html_tokens.py) against lxml parsing the same text.

    PYTHONPATH=. .venv/bin/python benchmarks/html_tokens.py              # the corpus, best of 20
    PYTHONPATH=. .venv/bin/python benchmarks/html_tokens.py --repeat 50 PATH...

For each document: ms of CPU to tokenize the whole page and its article, tokens per second, and
the ratio to lxml's HTML parser building a tree of the same text (libxml2 in C: the floor a pure
Python tokenizer is measured against). CPU time, best of ``--repeat``: the machine is shared."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import lxml.html

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from oo_nb.format.document import Document  # noqa: E402
from oo_nb.format.html_tokens import tokenize  # noqa: E402

CORPUS = HERE.parent / "tests" / "fixtures" / "corpus"


def best_cpu(run: Callable[[], object], repeat: int) -> float:
    """Seconds of CPU of the fastest of ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        began = time.process_time()
        run()
        best = min(best, time.process_time() - began)
    return best


def measure(label: str, text: str, repeat: int) -> tuple[float, float, int]:
    count = sum(1 for _ in tokenize(text))
    ours = best_cpu(lambda: sum(1 for _ in tokenize(text)), repeat)
    floor = best_cpu(lambda: lxml.html.document_fromstring(text), repeat)
    print(
        f"  {label:<34} {len(text):>7,} chars {count:>6,} tokens  "
        f"{ours * 1000:7.2f} ms  {count / ours / 1000:7.0f} k tokens/s  "
        f"lxml {floor * 1000:6.2f} ms  x{ours / floor:5.1f}"
    )
    return ours, floor, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="documents (default: the corpus)")
    parser.add_argument("--repeat", type=int, default=20, help="runs per text, best taken")
    args = parser.parse_args()
    paths = args.paths or sorted(CORPUS.glob("*.o-o.html"))
    totals = {"page": [0.0, 0.0, 0], "article": [0.0, 0.0, 0]}
    for path in paths:
        page = path.read_text(encoding="utf-8")
        print(path.name)
        for kind, text in (("page", page), ("article", Document.read(path).article_html)):
            ours, floor, count = measure(kind, text, args.repeat)
            totals[kind][0] += ours
            totals[kind][1] += floor
            totals[kind][2] += count
    for kind, (ours, floor, count) in totals.items():
        print(
            f"all {kind}s: {ours / len(paths) * 1000:.2f} ms per document, "
            f"{count / ours / 1000:.0f} k tokens/s, x{ours / floor:.1f} lxml"
        )


if __name__ == "__main__":
    main()
