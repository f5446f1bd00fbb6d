"""Real documents for the reliability runs: the shared corpus, and versions of each document with
growing and shrinking articles (what successive updates look like on disk)."""

from __future__ import annotations

import os
import random
from pathlib import Path

from oo_nb.format.document import Document

__all__ = ["corpus_dir", "corpus_documents", "document_versions"]

DOC_NAMES = (
    "agi-declared.o-o.html",
    "ai-model-landscape.o-o.html",
    "anthropic-leadership.o-o.html",
    "yc-w26-batch.o-o.html",
)


def corpus_dir() -> Path:
    """``OO_CORPUS``, else the tests' corpus in the repository checkout (as in the tests)."""
    env = os.environ.get("OO_CORPUS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1] / "fixtures" / "corpus"


def corpus_documents(names: tuple[str, ...] = DOC_NAMES) -> dict[str, bytes]:
    folder = corpus_dir()
    if not folder.is_dir():
        raise FileNotFoundError(f"corpus not found at {folder} (set OO_CORPUS)")
    return {name: (folder / name).read_bytes() for name in names}


def document_versions(data: bytes, count: int, *, seed: int = 0) -> list[bytes]:
    """``count`` distinct, valid versions of one document: the article cut down to a few
    paragraphs or repeated up to 4 times, version number and a changelog note moving on."""
    rng = random.Random(seed)
    sizes = [0.2, 4.0, 0.5, 2.0, 1.0]
    rng.shuffle(sizes)
    doc = Document.parse(data)
    chunks = [c for c in doc.article_html.split("\n\n") if c.strip()]
    versions: list[bytes] = []
    for n in range(count):
        size = sizes[n % len(sizes)]
        keep = max(1, int(len(chunks) * size))
        body = [chunks[i % len(chunks)] for i in range(keep)]
        html = "\n\n" + "\n\n".join(body) + f"\n\n<p>revision {n}</p>\n\n"
        manifest = {**doc.block_json("oo-manifest"), "version": 100 + n}
        new = doc.with_article(html).with_block("oo-manifest", manifest)
        versions.append(new.to_bytes())
    assert len(set(versions)) == count
    return versions
