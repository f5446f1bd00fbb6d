"""A chunk sent ahead to a child never deadlocks with the child's answer: a message larger
than the child's input pipe waits for the answer to the chunk the child holds. Before, with
the child blocked writing an answer larger than its output pipe (1 MB: 16 documents of many
sources) and this process blocked sending the next message (64 KB: long file names), both
waited until the stall timeout (120 s) before the chunks were redone here."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from oo_nb.library import pool
from oo_nb.library.digest_codec import pack_many

DEMO = Path(pool.__file__).parents[1] / "demo" / "data" / "documents"
_CACHE = re.compile(
    r'(<script id="oo-source-cache" type="application/json">)(.*?)(</script>)', re.S
)


def _many_sources(target: Path, count: int) -> Path:
    text = sorted(DEMO.glob("*.o-o.html"))[0].read_text(encoding="utf-8")
    m = _CACHE.search(text)
    assert m is not None
    cache = json.loads(m.group(2))
    cache["sources"] = [
        {"id": f"s{i + 1}", "url": f"https://example{i}.org/page/{i}", "title": f"Title {i} " * 3}
        for i in range(count)
    ]
    block = json.dumps(cache).replace("</", "<\\/")
    target.write_text(text[: m.start(2)] + block + text[m.end(2) :], encoding="utf-8")
    return target


def test_large_answers_and_large_messages_do_not_stall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = str(_many_sources(tmp_path / "big.o-o.html", 800))
    items = [(big, f"doc-{i}-" + "k" * 5000) for i in range(10 * pool.CHUNK)]
    assert len(pack_many(items[:1], False)[0]) * pool.CHUNK > 1 << 20  # an answer > 1 MB
    # a deadlock would last until a stalled child is killed: 30 s here, whatever the chunks took
    monkeypatch.setattr(pool, "_STALL_S", 30.0)
    monkeypatch.setattr(pool, "_STALL_MIN_S", 30.0)
    started = time.monotonic()
    results = pool.digest_parallel(items, 2, pack=False)
    took = time.monotonic() - started
    assert results == pack_many(items, False)
    assert took < 25, f"a child stalled: {took:.0f} s"
