"""Cassettes: recorded API exchanges for the replay backend (demo library, notebooks, Binder).

``find_cassette(doc_path)`` finds the cassette for a document: ``NAME.cassette.json`` next to
it, or ``.oo-cassettes/NAME.o-o.html.json`` in its folder. Recording cassettes is a tool's job
(``tools/record_cassette.py``), not the package's.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["cassette_name", "find_cassette"]


def cassette_name(doc_path: str | Path) -> str:
    name = Path(doc_path).name
    return (
        name[: -len(".o-o.html")] if name.endswith(".o-o.html") else Path(name).stem
    ) + ".cassette.json"


def find_cassette(doc_path: str | Path) -> Path | None:
    p = Path(doc_path)
    for candidate in (p.parent / cassette_name(p), p.parent / ".oo-cassettes" / f"{p.name}.json"):
        if candidate.is_file():
            return candidate
    return None
