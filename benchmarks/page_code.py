"""Page code benchmark: what ``digest_document`` spends per document on the page's code, with and
without its fast paths.

    .venv/bin/python benchmarks/page_code.py                 # 1000 synthetic + the corpus
    .venv/bin/python benchmarks/page_code.py --docs 300 --rounds 9

Two stages of the cold scan (issue 15): "crlf+ours" (``shell_crlf_line`` and ``has_our_script``)
and "page_code" (``page_code_findings``), timed in CPU seconds on fresh Documents, each parsed
just before (untimed) as in a scan: the plain reading (``code_regions(doc, memo=False)``, and
the page's text searched for the signature and for CR LF) and the fast paths take turns on each
document in the same process; the
best round of each counts (the clock's own cost, under 1 µs, is in both figures). Prints µs per
document and new/old (0.5-0.6 here). Every page of the synthetic library has regions oo_nb does
not know, whose lines the finding names: their lines are counted on every page there (about 40%
of what is left), not on a page whose code is all known."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from oo_nb.errors import OOError  # noqa: E402
from oo_nb.format.document import Document, read_regular  # noqa: E402
from oo_nb.format.legacy_script import OUR_SCRIPT_SIGNATURE, has_our_script  # noqa: E402
from oo_nb.format.line_endings import shell_crlf_line  # noqa: E402
from oo_nb.format.page_code import (  # noqa: E402
    _fingerprint,
    _known,
    code_regions,
    page_code_findings,
)

CORPUS = HERE.parent / "tests" / "fixtures" / "corpus"
Stage = Callable[[Document], object]


def plain_crlf_and_signature(doc: Document) -> tuple[int | None, bool]:
    text = doc.text
    crlf = text.find("\r\n", 0, doc.html.start)
    if crlf < 0:
        crlf = text.find("\r\n", doc.terminator.start)
    line = doc.line_of(crlf) if crlf >= 0 else None
    return line, text.find(OUR_SCRIPT_SIGNATURE, doc.html.start, doc.html.end) != -1


def plain_unknown(doc: Document) -> list[tuple[str, int]]:
    known = _known()
    regions = code_regions(doc, memo=False)
    return [(r.kind, r.line) for r in regions if _fingerprint(r.kind, r.text) not in known]


STAGES: dict[str, tuple[Stage, Stage]] = {
    "crlf+ours": (plain_crlf_and_signature, lambda d: (shell_crlf_line(d), has_our_script(d))),
    "page_code": (plain_unknown, lambda d: page_code_findings(d, ours=False)),
}


def documents(paths: list[Path]) -> list[tuple[bytes, Path]]:
    out = []
    for path in paths:
        data = read_regular(path)
        try:
            if Document.parse(data, path=path).kind == "document":
                out.append((data, path))
        except OOError:
            continue
    return out


def costs(sides: tuple[Stage, Stage], docs: list[tuple[bytes, Path]]) -> tuple[float, float]:
    """CPU seconds of the plain and the fast stage, document by document in turn (which
    goes first alternates), each document parsed just before (untimed), as in a scan: the stage
    finds the page where the parse left it, in the processor's cache. Taking turns on every
    document keeps a busy machine's slow moments out of the ratio."""
    clock, total = time.process_time, [0.0, 0.0]
    for i, (data, path) in enumerate(docs):
        for side in (i % 2, 1 - i % 2):
            doc = Document.parse(data, path=path)
            t0 = clock()
            sides[side](doc)
            total[side] += clock() - t0
    return total[0], total[1]


def measure(label: str, docs: list[tuple[bytes, Path]], rounds: int) -> float:
    """Print the figures; return the two stages' cost as a fraction of the plain one's."""
    n = len(docs)
    best = {(name, side): float("inf") for name in STAGES for side in (0, 1)}
    for _ in range(rounds):
        for name, sides in STAGES.items():
            for side, spent in enumerate(costs(sides, docs)):
                best[name, side] = min(best[name, side], spent)
    parts, old, new = [], 0.0, 0.0
    for name in STAGES:
        before, after = best[name, 0], best[name, 1]
        old, new = old + before, new + after
        parts.append(f"{name} {1e6 * before / n:.1f} -> {1e6 * after / n:.1f}")
    print(
        f"{label}: {n} documents; µs/doc: {', '.join(parts)}; together "
        f"{1e6 * old / n:.1f} -> {1e6 * new / n:.1f} = {new / old:.2f}x",
        flush=True,
    )
    return new / old


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=1000, help="synthetic documents")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "oo-bench-library")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=5, help="old/new rounds; the best counts")
    args = ap.parse_args()
    from library import ensure_library

    folder = ensure_library(args.dir, max(args.docs, 1000), args.seed)
    synthetic = documents(sorted(folder.glob("*.o-o.html"))[: args.docs])
    measure(f"synthetic ({folder.name})", synthetic, args.rounds)
    corpus = documents(sorted(CORPUS.glob("*.o-o.html"))) * 50
    measure("corpus (tests/fixtures/corpus, x50)", corpus, args.rounds)


if __name__ == "__main__":
    main()
