"""Cassettes: recorded API exchanges for the replay backend (demo library, notebooks, Binder).

``find_cassette(doc_path)`` finds the cassette for a document: ``NAME.cassette.json`` next to
it, or ``.oo-cassettes/NAME.o-o.html.json`` in its folder. Recording cassettes is a tool's job
(``tools/record_cassette.py``), not the package's.
"""

from __future__ import annotations

from pathlib import Path

from oo_nb.format.names import CASSETTE_DIR, CASSETTE_SUFFIX, DOC_SUFFIX

__all__ = ["cassette_name", "find_cassette"]


def cassette_name(doc_path: str | Path) -> str:
    name = Path(doc_path).name
    return (
        name[: -len(DOC_SUFFIX)] if name.endswith(DOC_SUFFIX) else Path(name).stem
    ) + CASSETTE_SUFFIX


def find_cassette(doc_path: str | Path) -> Path | None:
    p = Path(doc_path)
    for candidate in (p.parent / cassette_name(p), p.parent / CASSETTE_DIR / f"{p.name}.json"):
        if candidate.is_file():
            return candidate
    return None
