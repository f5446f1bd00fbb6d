"""The pipes to worker processes are closed when the work is done: a scan leaves no unclosed
file behind (each was a ResourceWarning: both pipes of a helper started during the stat that no
read took, the answers' pipe of every child)."""

from __future__ import annotations

import gc
import warnings
from pathlib import Path

from oo_nb.library import pool
from oo_nb.library.digest_codec import pack_many

DEMO = Path(pool.__file__).parents[1] / "demo" / "data" / "documents"


def _unclosed(run: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert callable(run)
        run()
        gc.collect()
    return [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


def test_helpers_no_read_took_leave_no_open_pipe() -> None:
    def run() -> None:
        helpers = pool.Helpers(1)
        helpers.close()

    assert _unclosed(run) == []


def test_a_parallel_digest_leaves_no_open_pipe() -> None:
    docs = sorted(str(p) for p in DEMO.glob("*.o-o.html"))
    items = [(docs[i % len(docs)], f"doc-{i}") for i in range(4 * pool.CHUNK)]
    results: list[object] = []

    def run() -> None:
        results.extend(pool.digest_parallel(items, 2, pack=False))

    assert _unclosed(run) == []
    assert results == pack_many(items, False)
