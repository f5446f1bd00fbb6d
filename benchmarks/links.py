"""Link health figures (issue 16):

1. ``oo links`` on 1,000 source URLs spread over 10 loopback "hosts" (one server each on
   127.0.0.1 … 127.0.0.10, each answer held 20 ms): wall time, URLs a second, and the most
   requests any host had in flight at once against the per-host limit (it must never exceed it).
   A second run within --max-age reuses every stored result (time, requests sent: 0).
2. The share of facts with a found quote in the demo library, as ``tools/demo_build.py``
   builds it, and the verdicts on the new facts of its recorded next updates.

    PYTHONPATH=. python benchmarks/links.py
"""

from __future__ import annotations

import shutil
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.library.library import Library
from oo_nb.library.links import LinkOptions, check_links
from tests.support.link_server import LinkServer

N_URLS = 1_000
N_HOSTS = 10
PER_HOST = 2
HOLD_S = 0.02


def links_figures() -> None:
    opts = LinkOptions(allow_private=True, per_host=PER_HOST, concurrency=64, timeout_s=10)
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        servers = [
            stack.enter_context(LinkServer(address=f"127.0.0.{i + 1}")) for i in range(N_HOSTS)
        ]
        paths = ["/ok", "/moved", "/missing", "/gone", "/head-refused"]
        urls = [
            servers[i % N_HOSTS].url(f"{paths[i % len(paths)]}?delay={HOLD_S}&n={i}")
            for i in range(N_URLS)
        ]
        start, cpu = time.perf_counter(), time.process_time()
        rows = check_links(tmp, urls, opts)
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        sent = sum(len(s.requests) for s in servers)
        worst = max(max(s.max_in_flight.values(), default=0) for s in servers)
        counts: dict[str, int] = {}
        for r in rows.values():
            counts[r.link_status] = counts.get(r.link_status, 0) + 1
        print(
            f"oo links: {len(rows)} URLs on {N_HOSTS} hosts, each answer held {HOLD_S * 1000:.0f} ms"
        )
        print(
            f"  time {took:.2f} s ({len(rows) / took:.0f} URLs/s), {sent} requests sent, "
            f"{cpu:.2f} s CPU in this process (client and the servers' threads)"
        )
        print(f"  verdicts: {dict(sorted(counts.items()))}")
        print(
            f"  most requests in flight at one host: {worst} (limit {PER_HOST}): "
            + ("OK" if worst <= PER_HOST else "OVER THE LIMIT")
        )
        floor = (sent / N_HOSTS) * HOLD_S / PER_HOST  # every request held HOLD_S, 2 at a time
        print(f"  lower bound at that limit ~{floor:.2f} s: ratio {took / floor:.2f}x")
        before = sum(len(s.requests) for s in servers)
        start = time.perf_counter()
        again = check_links(tmp, urls, opts)
        took2 = time.perf_counter() - start
        resent = sum(len(s.requests) for s in servers) - before
        print(
            f"  second run within --max-age: {len(again)} URLs in {took2:.3f} s, {resent} requests"
        )


def quote_figures(data: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for p in (data / "documents").glob("*.o-o.html"):
            shutil.copy(p, tmp)
        facts = Library(tmp, workers=1).facts
    quoted = facts["quote"].notna()
    found = facts["quote_found"].fillna(False).astype(bool)
    n, q, f = len(facts), int(quoted.sum()), int(found.sum())
    print(f"demo library: {n} facts, {q} with a quote, {f} with the quote found")
    if n:
        print(f"  share of facts with a found quote: {f / n:.1%} (of quoted facts: "
              f"{(f / q if q else 0):.1%})")  # fmt: skip


def cassette_figures(data: Path) -> None:
    """The recorded next updates the notebooks replay: their new facts' verdicts."""
    import os

    from oo_nb.agent.candidate import unsupported_quotes
    from oo_nb.agent.run import UpdateOptions, prepare_update
    from tools.demo_script import DEMO_TODAY

    os.environ["OO_TODAY"] = DEMO_TODAY.isoformat()
    with tempfile.TemporaryDirectory() as tmp:
        lib = Path(tmp) / "lib"
        shutil.copytree(data / "documents", lib)
        total = found = 0
        for cassette in sorted((data / "cassettes").glob("*.json")):
            doc = lib / cassette.name.removesuffix(".json")
            if not doc.exists():
                continue
            opts = UpdateOptions(agent="replay", cassette=cassette, force=True)
            result = prepare_update(doc, opts)
            assert result.candidate is not None
            cache = result.candidate.document.block_json("oo-source-cache")
            before = Document.read(doc).block_json("oo-source-cache").get("facts") or []
            old = {repr(f) for f in before}
            new = [f for f in cache["facts"] if repr(f) not in old]
            total += len(new)
            found += sum(1 for f in new if isinstance(f, dict) and f.get("quote_found") is True)
            print(
                f"  {doc.name}: {len(new)} new fact(s), unsupported: {unsupported_quotes(result.candidate)}"
            )
        print(f"demo next updates (cassettes): {found} of {total} new facts with the quote found")


def demo_figures() -> None:
    """The demo library as ``tools/demo_build.py`` builds it now (in a scratch folder: the
    shipped data is regenerated separately, with the notebooks' stored outputs)."""
    from tools.demo_build import build

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        build(data, log=lambda _line: None)
        quote_figures(data)
        cassette_figures(data)


if __name__ == "__main__":
    links_figures()
    demo_figures()
