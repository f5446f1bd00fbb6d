"""Where the article ends (issue 26): ``Document.parse`` finds the end with the tree builder's
rule, in the one reading that also gives the article's model (``Document.article_model``).
Figures: median wall and CPU per parse, interleaved with the floor (one ``str.find`` of
"</article>" over the same text, what the old shortcut did at best), for the corpus' largest
document, an article of 20,000 sections (a pid comment each) and one nested 30,000 deep.

    .venv/bin/python benchmarks/article_end.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial

from oo_nb.format.document import Document
from tests.format.test_article_end import _page
from tests.support.corpus import corpus_dir

ROUNDS = 15


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def _cases() -> dict[str, str]:
    largest = max(corpus_dir().glob("*.o-o.html"), key=lambda p: p.stat().st_size)
    wide = "".join(
        f'<h2 id="s{i}">S{i}</h2>\n<!-- pid:s{i}:{i:08x} -->\n<p>p [s1]</p>\n' for i in range(20000)
    )
    deep = '<h2 id="a">A</h2>' + "<div>" * 30000 + "x" + "</div>" * 30000
    return {
        f"corpus largest ({largest.name})": largest.read_text(),
        "20,000 sections": _page(wide),
        "30,000 deep": _page(deep),
    }


def main() -> None:
    print(f"{'case':40} {'KB':>7} {'wall ms':>9} {'cpu ms':>8} {'floor ms':>9} {'ratio':>7}")
    for name, text in _cases().items():
        runs: list[tuple[float, float]] = []
        floors: list[float] = []
        for _ in range(ROUNDS):  # interleaved: the same load on both
            runs.append(_timed(partial(Document, text)))
            floors.append(_timed(partial(text.find, "</article>"))[0])
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        floor = statistics.median(floors)
        print(
            f"{name:40} {len(text) / 1024:7.0f} {wall * 1e3:9.2f} {cpu * 1e3:8.2f} "
            f"{floor * 1e3:9.3f} {wall / max(floor, 1e-9):7.0f}"
        )


if __name__ == "__main__":
    main()
