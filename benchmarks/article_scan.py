"""Article scan benchmark: the library's reading of one article through the article model.

    PYTHONPATH=. .venv/bin/python benchmarks/article_scan.py                 # corpus + synthetic
    PYTHONPATH=. .venv/bin/python benchmarks/article_scan.py --docs 300 --repeat 5

Reads each document's article once, then times, interleaved per round, ``scan_article`` (the
rows a library keeps: oo_nb/library/digest.py, through oo_nb/format/article.py and
article_model.py), the model alone (``read_model``) and the tokenizer alone (``raw_tokens``),
against lxml building a tree of the same text (libxml2 in C: the floor a Python reader is
measured against). Figures: CPU and wall ms per document, medians over ``--repeat`` rounds, and
the ratio to the floor. The whole-command figures a user meets are benchmarks/library.py's."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from lxml import html as lxml_html  # noqa: E402

from oo_nb.errors import OOError  # noqa: E402
from oo_nb.format.article_model import read_model  # noqa: E402
from oo_nb.format.document import Document  # noqa: E402
from oo_nb.format.html_tokens import raw_tokens  # noqa: E402
from oo_nb.library.digest import scan_article  # noqa: E402

CORPUS = HERE.parent / "tests" / "fixtures" / "corpus"


def articles(paths: list[Path]) -> list[str]:
    out = []
    for path in paths:
        try:
            doc = Document.read(path)
        except OOError:
            continue
        if doc.kind == "document" and doc.article_span is not None:
            out.append(doc.article_html)
    return out


def _lxml(html: str) -> object:
    return lxml_html.fragment_fromstring(html, create_parent="div")


def _tokens(html: str) -> object:
    return list(raw_tokens(html))


CASES: dict[str, Callable[[str], object]] = {
    "lxml tree (floor)": _lxml,
    "tokenizer": _tokens,
    "article model": read_model,
    "scan_article": scan_article,
}


def measure(label: str, items: list[str], repeat: int) -> None:
    cpu: dict[str, list[float]] = {name: [] for name in CASES}
    wall: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(repeat):
        for name, run in CASES.items():  # interleaved: one of each per round
            c0, w0 = time.process_time(), time.perf_counter()
            for html in items:
                run(html)
            cpu[name].append((time.process_time() - c0) / len(items))
            wall[name].append((time.perf_counter() - w0) / len(items))
    floor = statistics.median(cpu["lxml tree (floor)"])
    print(f"{label}: {len(items)} articles, median of {repeat} interleaved rounds")
    for name in CASES:
        c, w = statistics.median(cpu[name]), statistics.median(wall[name])
        print(
            f"  {name:<18} CPU {1000 * c:.3f} ms/doc ({c / floor:.1f}x floor)  wall {1000 * w:.3f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=200, help="synthetic documents")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    measure("corpus", articles(sorted(CORPUS.glob("*.o-o.html"))), args.repeat)
    from synth import make_document

    synthetic = [make_document(f"bench-{i}", seed=i) for i in range(args.docs)]
    items = [Document.parse(text).article_html for text in synthetic]
    measure("synthetic", [h for h in items if h], args.repeat)


if __name__ == "__main__":
    main()
