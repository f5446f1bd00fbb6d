"""Size limits: a very large document, a source cache of thousands of sources, a large image.
Each case runs in a forked child so that its peak memory (VmHWM, reset before the case) and a
crash of any kind are measured without disturbing the caller."""

from __future__ import annotations

import base64
import io
import json
import os
import random
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.store.store import read_history, write_document
from tests.support.corpus import corpus_documents
from tests.support.figures import Figure

__all__ = ["big_document", "big_image_png", "many_sources", "size_limits"]

Steps = list[tuple[str, Callable[[], Any]]]


def _status_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _run_case(steps: Steps) -> dict[str, Any]:
    """In a forked child: run the steps, timing each; report peak memory above the start."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        result: dict[str, Any] = {"times": {}}
        try:
            with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
                fh.write("5")  # reset the peak (VmHWM) to the current RSS
            base = _status_kb("VmRSS")
            for name, fn in steps:
                started = time.perf_counter()
                fn()
                result["times"][name] = time.perf_counter() - started
            result["peak_mb"] = (_status_kb("VmHWM") - base) / 1024
        except OOError as exc:
            result["ooerror"] = str(exc)[:200]
        except BaseException as exc:
            result["crash"] = (
                f"{type(exc).__name__}: {exc}"[:300] + " " + traceback.format_exc(limit=-2)[-300:]
            )
        os.write(w, json.dumps(result).encode())
        os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return {"crash": f"child died (wait status {status})", "times": {}}
    loaded: dict[str, Any] = json.loads(b"".join(chunks))
    return loaded


# --------------------------------------------------------------------------- inputs
def big_document(target_bytes: int) -> bytes:
    """A corpus document whose article is repeated (fresh pids) until the file is ``target_bytes``."""
    data = corpus_documents()["yc-w26-batch.o-o.html"]
    doc = Document.parse(data)
    chunk = doc.article_html
    copies = max(1, (target_bytes - len(data)) // len(chunk.encode()) + 1)
    parts = []
    for i in range(copies):
        parts.append(
            chunk.replace("<!-- pid:", f"<!-- pid:c{i}-", -1).replace('id="', f'id="c{i}-')
        )
    return doc.with_article("\n".join(parts)).to_bytes()


def many_sources(count: int) -> bytes:
    """A corpus document whose cache holds ``count`` sources and as many facts."""
    data = corpus_documents()["yc-w26-batch.o-o.html"]
    doc = Document.parse(data)
    cache = doc.block_json("oo-source-cache")
    cache["sources"] = [
        {
            "id": f"s{i}",
            "url": f"https://example{i % 97}.org/a/{i}",
            "title": f"Source {i} — a title",
            "tier": "news",
            "accessed": "2026-02-16",
        }
        for i in range(1, count + 1)
    ]
    cache["facts"] = [
        {"text": f"Fact number {i}", "source_ids": [f"s{i}"]} for i in range(1, count + 1)
    ]
    return doc.with_block("oo-source-cache", cache).to_bytes()


def big_image_png(target_bytes: int, seed: int = 0) -> bytes:
    """A PNG of about ``target_bytes`` (noise does not compress)."""
    from PIL import Image

    side = int((target_bytes / 3) ** 0.5) + 1
    rng = random.Random(seed)
    img = Image.frombytes("RGB", (side, side), rng.randbytes(side * side * 3))
    out = io.BytesIO()
    img.save(out, "PNG", compress_level=1)
    return out.getvalue()


def _with_image(png: bytes) -> bytes:
    data = corpus_documents()["yc-w26-batch.o-o.html"]
    doc = Document.parse(data)
    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    figure = f'\n<figure class="fig-full"><img src="{uri}" alt="noise"><figcaption>Noise.</figcaption></figure>\n'
    return doc.with_article(doc.article_html + figure).to_bytes()


# --------------------------------------------------------------------------- cases
def _document_steps(path: Path, data: bytes, *, article: bool) -> Steps:
    state: dict[str, Document] = {}
    steps: Steps = [
        ("parse", lambda: state.setdefault("doc", Document.parse(data, path=path))),
        (
            "views",
            lambda: (
                state["doc"].manifest,
                state["doc"].contract,
                state["doc"].source_cache,
                state["doc"].changelog,
            ),
        ),
    ]
    if article:
        steps.append(("article", lambda: state["doc"].article))
    steps += [
        (
            "edit",
            lambda: state.setdefault(
                "new", state["doc"].edit_block("oo-manifest", lambda m: {**m, "version": 9999})
            ),
        ),
        ("write", lambda: write_document(state["new"], expected=data, action="size test")),
        ("history", lambda: read_history(path)),
    ]
    return steps


def _image_steps(png: bytes) -> Steps:
    # No fallback: without the image pipeline the large-image case is not measured, and the
    # part must fail (an ImportError becomes a failing "not run" row), not pass on less.
    from oo_nb.agent.images import prepare_image

    return [("prepare_image", lambda: prepare_image(png, max_px=800, max_kb=150))]


def size_limits(
    workdir: Path, *, doc_mb: float = 50, sources: int = 10_000, image_mb: float = 5
) -> list[Figure]:
    workdir.mkdir(parents=True, exist_ok=True)
    png = big_image_png(int(image_mb * 1024 * 1024))
    cases = [
        (f"{doc_mb:g} MB document", big_document(int(doc_mb * 1024 * 1024)), True, []),
        (f"cache of {sources:,} sources", many_sources(sources), True, []),
        (
            f"{len(png) / 1048576:.1f} MB image (embedded)",
            _with_image(png),
            True,
            _image_steps(png),
        ),
    ]
    rows = []
    for i, (label, data, article, extra) in enumerate(cases):
        path = workdir / f"size{i}.o-o.html"
        path.write_bytes(data)
        result = _run_case(_document_steps(path, data, article=article) + extra)
        crash = result.get("crash") or result.get("ooerror")
        times = ", ".join(f"{k} {v:.2f}" for k, v in result["times"].items())
        total = sum(result["times"].values())
        rows += [
            Figure(
                "7 size",
                f"{label}: crash or error",
                f"{len(data) / 1048576:.1f} MB",
                crash or 0,
                "0",
                not crash,
            ),
            Figure(
                "7 size",
                f"{label}: seconds",
                len(result["times"]),
                f"{total:.2f} ({times})",
                "info",
                None,
            ),
            Figure(
                "7 size",
                f"{label}: peak memory MB",
                1,
                round(result.get("peak_mb", 0.0), 1),
                "info",
                None,
            ),
        ]
    return rows
