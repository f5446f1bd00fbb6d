"""What prompt caching saves, against the loopback mock (which reports cache writes and reads as
the API does: tests/support/mock_cache.py), Sonnet 5.5 prices:

- a 3-request update (search → pause_turn, search → pause_turn, fetch → submit_proposal) of each
  corpus document, with and without cache breakpoints;
- update-all of 20 distinct documents (the corpus four, five times, each copy retitled so that
  no two share a document context), one at a time and at the default concurrency, with and
  without. What they share is the tools and the document-independent head of the system prompt.

The mock counts a request's prompt as its scripted total (server-tool passes included) and moves
the cached part of the first pass out of it: the real API may also read the cache on the server
tools' later passes, so these savings are a floor. Costs are deterministic (no repetition needed).

    PYTHONPATH=. python benchmarks/prompt_cache.py [--docs 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from oo_nb.agent.many import update_library
from oo_nb.agent.pricing import UsageFigures
from oo_nb.agent.run import UpdateOptions, prepare_update
from oo_nb.format.document import Document
from tests.support.corpus import corpus_dir
from tests.support.mock_api import MockAPI
from tests.support.mock_scenarios import research_scenario

CORPUS = corpus_dir()
DOCS = [
    "agi-declared.o-o.html",
    "ai-model-landscape.o-o.html",
    "anthropic-leadership.o-o.html",
    "yc-w26-batch.o-o.html",
]
KEY = "sk-ant-test-MARKER"


def options(mock: MockAPI, cache: bool) -> UpdateOptions:
    return UpdateOptions(
        force=True,
        agent="anthropic",
        api_key=KEY,
        base_url=mock.base_url,
        download_images=False,
        budget_usd=5.0,
        prompt_cache=cache,
    )


def tokens(u: UsageFigures) -> str:
    return (
        f"in {u.input_tokens:>7,} write {u.cache_creation_tokens:>6,} "
        f"read {u.cache_read_tokens:>7,} out {u.output_tokens:>6,}"
    )


def three_turns(name: str, cache: bool) -> tuple[float, UsageFigures, int]:
    with (
        tempfile.TemporaryDirectory(prefix="oo-bench-") as tmp,
        MockAPI(research_scenario(pauses=2, with_image=False), api_key=KEY) as mock,
    ):
        path = Path(tmp) / name
        shutil.copyfile(CORPUS / name, path)
        result = prepare_update(path, options(mock, cache))
        assert result.run is not None, result.message
        return result.run.cost_usd, result.run.usage, result.run.requests


def update_all(count: int, cache: bool, concurrency: int) -> tuple[float, UsageFigures, int]:
    with (
        tempfile.TemporaryDirectory(prefix="oo-bench-") as tmp,
        MockAPI(research_scenario(with_image=False), api_key=KEY) as mock,
    ):
        folder = Path(tmp)
        for i in range(count):  # 20 distinct documents: each copy gets its own title
            name = DOCS[i % len(DOCS)]
            doc = Document.read(CORPUS / name).edit_block(
                "oo-manifest", lambda m, i=i: m.update(title=f"{m['title']} ({i})")
            )
            (folder / f"{i:02d}-{name}").write_text(doc.text, encoding="utf-8")
        out = update_library(folder, options(mock, cache), concurrency=concurrency, progress=False)
        usage = UsageFigures()
        for r in out.results:
            if r.run is not None:
                usage += r.run.usage
        return out.cost_usd, usage, len(out.failures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=20)
    ns = parser.parse_args()
    os.environ.pop("ANTHROPIC_BASE_URL", None)
    print("3-request update (2 pause_turn continuations), one document, Sonnet 5.5 prices")
    for name in DOCS:
        plain, pu, n = three_turns(name, False)
        cached, cu, _ = three_turns(name, True)
        print(
            f"  {name:<32} {n} requests  no cache ${plain:.4f}  cached ${cached:.4f}  "
            f"ratio {cached / plain:.2f}"
        )
        print(f"    no cache: {tokens(pu)}")
        print(f"    cached:   {tokens(cu)}")
    print(f"update-all, {ns.docs} documents (one research request each)")
    for concurrency in (1, 4):
        plain, pu, f1 = update_all(ns.docs, False, concurrency)
        cached, cu, f2 = update_all(ns.docs, True, concurrency)
        print(
            f"  concurrency {concurrency}: no cache ${plain:.4f}  cached ${cached:.4f}  "
            f"ratio {cached / plain:.2f}  (failures {f1 + f2})"
        )
        print(f"    no cache: {tokens(pu)}")
        print(f"    cached:   {tokens(cu)}")


if __name__ == "__main__":
    main()
