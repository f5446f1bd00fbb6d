"""What prompt caching saves, against the loopback mock, whose cache behaves as the API's
(tests/support/mock_cache.py: an entry is readable once its writer's response has begun, 20-block
look-back, minimum prefix per model, tools + tool_choice + system in the key), Sonnet 5.5 prices:

- a 3-request update (search → pause_turn, search → pause_turn, fetch → submit_proposal) of each
  corpus document, with and without cache breakpoints;
- update-all of 20 distinct documents (the corpus four, five times, each copy retitled so that
  no two share a document context), one at a time and 4 at a time, with and without; once with
  one deny list for all (same contracts), once with a deny list of its own per document
  (different contracts, the worst case). What they can share is the tools and the
  document-independent head of the system prompt.

Printed per case: the input price (input + cache writes + cache reads) and the whole price
(with output and searches), with and without caching, and their ratios (target: update-all
≤ 1.0, 3 requests ≤ 0.6). The mock counts a request's prompt as its scripted total (server-tool
passes included) and moves the cached part of the first pass out of it: the real API may also
read the cache on the server tools' later passes, so these savings are a floor. Costs are
deterministic (no repetition needed).

    PYTHONPATH=. python benchmarks/prompt_cache.py [--docs 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oo_nb.agent.many import update_library
from oo_nb.agent.pricing import UsageFigures, cost_usd, price_for
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
SONNET = price_for("claude-sonnet-5-5")
LATENCY_S = (
    0.2  # before each response begins: concurrent documents cannot read what is still pending
)


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


def input_usd(u: UsageFigures) -> float:
    """The price of the prompt alone: what caching changes."""
    return cost_usd(
        UsageFigures(u.input_tokens, 0, u.cache_creation_tokens, u.cache_read_tokens), SONNET
    )


def compare(
    label: str, plain: tuple[float, UsageFigures], cached: tuple[float, UsageFigures]
) -> None:
    (p_usd, pu), (c_usd, cu) = plain, cached
    p_in, c_in = input_usd(pu), input_usd(cu)
    print(
        f"  {label:<44} input ${p_in:.4f} → ${c_in:.4f} ratio {c_in / p_in:.3f}   "
        f"whole ${p_usd:.4f} → ${c_usd:.4f} ratio {c_usd / p_usd:.3f}"
    )
    print(f"    no cache: {tokens(pu)}")
    print(f"    cached:   {tokens(cu)}")


def three_turns(name: str, cache: bool) -> tuple[float, UsageFigures]:
    with (
        tempfile.TemporaryDirectory(prefix="oo-bench-") as tmp,
        MockAPI(research_scenario(pauses=2, with_image=False), api_key=KEY) as mock,
    ):
        path = Path(tmp) / name
        shutil.copyfile(CORPUS / name, path)
        result = prepare_update(path, options(mock, cache))
        assert result.run is not None, result.message
        assert result.run.requests == 3
        return result.run.cost_usd, result.run.usage


def with_deny_list(i: int, same: bool) -> Callable[[Any], Any]:
    deny = ["reddit.com", "quora.com"] + ([] if same else [f"spam-{i}.example"])

    def change(contract: Any) -> None:
        contract["research"].setdefault("source_policy", {})["deny_domains"] = deny

    return change


def update_all(count: int, cache: bool, concurrency: int, same: bool) -> tuple[float, UsageFigures]:
    with (
        tempfile.TemporaryDirectory(prefix="oo-bench-") as tmp,
        MockAPI(research_scenario(with_image=False), api_key=KEY, latency=LATENCY_S) as mock,
    ):
        folder = Path(tmp)
        for i in range(count):  # 20 distinct documents: each copy gets its own title
            name = DOCS[i % len(DOCS)]
            doc = (
                Document.read(CORPUS / name)
                .edit_block("oo-manifest", lambda m, i=i: m.update(title=f"{m['title']} ({i})"))
                .edit_block("oo-contract", with_deny_list(i, same))
            )
            (folder / f"{i:02d}-{name}").write_text(doc.text, encoding="utf-8")
        out = update_library(folder, options(mock, cache), concurrency=concurrency, progress=False)
        assert not out.failures, out.failures
        usage = UsageFigures()
        for r in out.results:
            if r.run is not None:
                usage += r.run.usage
        return out.cost_usd, usage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=20)
    ns = parser.parse_args()
    os.environ.pop("ANTHROPIC_BASE_URL", None)
    print("3-request update (2 pause_turn continuations), one document, Sonnet 5.5 prices")
    for name in DOCS:
        compare(name, three_turns(name, False), three_turns(name, True))
    print(f"update-all, {ns.docs} documents (one research request each)")
    for same in (True, False):
        for concurrency in (1, 4):
            label = f"{'same' if same else 'different'} contracts, concurrency {concurrency}"
            compare(
                label,
                update_all(ns.docs, False, concurrency, same),
                update_all(ns.docs, True, concurrency, same),
            )


if __name__ == "__main__":
    main()
