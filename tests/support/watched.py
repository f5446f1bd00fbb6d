"""A sentinel document with a history to read changes and alerts from: created (v0), a first
update (v1: not occurred) and a second (v2: occurred, a fact changed, a source added, a section
rewritten), each written through the store so the snapshots and the log are the real ones."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from oo_nb.edit.new import NewSpec, render_new
from oo_nb.format.document import Document
from oo_nb.store.store import write_document

__all__ = ["EVENT", "watched_library"]

EVENT = "The lighthouse is relit"


def _source(n: int) -> dict[str, Any]:
    return {
        "id": f"s{n}",
        "url": f"https://example.org/{n}",
        "title": f"Report {n}",
        "tier": "news",
        "accessed": "2026-12-01",
    }


def _version(
    doc: Document,
    version: int,
    day: str,
    status: str,
    evidence: str,
    facts: list[Any],
    n_src: int,
    text: str,
) -> Document:
    sources = [_source(n) for n in range(1, n_src + 1)]
    refs = "".join(f'<li><a href="{s["url"]}">{s["title"]}</a></li>' for s in sources)
    html = (
        f'\n<h2 id="status">Status</h2>\n<!-- pid:status:0000000{version} -->\n<p>{text}</p>\n'
        f'\n<h2 id="references">References</h2>\n<ol>{refs}</ol>\n'
    )
    doc = doc.with_article(html)
    doc = doc.with_block(
        "oo-source-cache", {"last_updated": day, "sources": sources, "facts": facts}
    )

    def manifest(m: dict[str, Any]) -> None:
        m.update(version=version, as_of=day)

    def contract(c: dict[str, Any]) -> None:
        c["sentinel"].update(status=status, evidence=evidence, last_checked=day)

    doc = doc.edit_block("oo-manifest", manifest).edit_block("oo-contract", contract)
    entry = {"version": version, "timestamp": f"{day}T09:00:00Z", "summary": f"Update {version}."}
    return doc.with_block("oo-changelog", {"entries": [entry]})


def watched_library(folder: Path, name: str = "lighthouse.o-o.html") -> Path:
    """Write the three versions into ``folder``; returns the document's path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    blank = Document(
        render_new(NewSpec("Lighthouse", sentinel=EVENT), name, today=date(2026, 11, 1))
    )
    write_document(blank, expected=None, path=path, action="new")
    v1 = _version(
        Document.read(path),
        1,
        "2026-11-20",
        "not_occurred",
        "Still dark [s1].",
        [{"key": "lamp", "text": "lamp: broken", "source_ids": ["s1"]}],
        1,
        "The lamp is still broken.",
    )
    write_document(v1, expected=path.read_bytes(), path=path)
    v2 = _version(
        Document.read(path),
        2,
        "2026-12-02",
        "occurred",
        "Relit on 1 December [s2].",
        [{"key": "lamp", "text": "lamp: repaired", "source_ids": ["s2"]}],
        2,
        "The lamp shines again.",
    )
    write_document(v2, expected=path.read_bytes(), path=path)
    return path
