"""The floor for benchmarks/library.py: what any reader of the format must at least do.

    python benchmarks/library_floor.py DIR             # read, find the four blocks, json.loads
    python benchmarks/library_floor.py --frames DIR    # and build four comparable pandas frames

One process, no cache: walk the folder, read every document, find the four JSON blocks with one
regex and ``json.loads`` them. With ``--frames`` it also builds what ``Library(DIR)`` gives a
user: a documents frame (one row per document, from the manifest), sources and facts (one row
per entry of the source cache) and the changelog (one row per entry), with string columns and
parsed dates, as ``Library``'s frames have. Run as a whole process, imports included, like the
command it is compared with."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

BLOCK = re.compile(
    r'<script id="(oo-manifest|oo-contract|oo-source-cache|oo-changelog)"'
    r' type="application/json">(.*?)</script>',
    re.DOTALL,
)


def read_blocks(folder: Path) -> list[tuple[str, dict[str, Any]]]:
    """(slug, {block id: decoded JSON}) for every document under ``folder``."""
    out = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".o-o.html"):
                text = (Path(here) / name).read_bytes().decode("utf-8", "replace")
                blocks: dict[str, Any] = {}
                for m in BLOCK.finditer(text):
                    with contextlib.suppress(ValueError):  # a damaged block: left out
                        blocks[m.group(1)] = json.loads(m.group(2))
                out.append((name.removesuffix(".o-o.html"), blocks))
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def build_frames(docs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    import pandas as pd

    documents, sources, facts, changelog = [], [], [], []
    for slug, blocks in docs:
        manifest = _dict(blocks.get("oo-manifest"))
        cache = _dict(blocks.get("oo-source-cache"))
        fresh = _dict(manifest.get("freshness"))
        documents.append(
            (
                slug,
                manifest.get("title"),
                manifest.get("version"),
                manifest.get("as_of"),
                fresh.get("cadence_days"),
                len(_list(cache.get("sources"))),
            )
        )
        for s in _list(cache.get("sources")):
            s = _dict(s)
            sources.append(
                (slug, s.get("id"), s.get("url"), s.get("title"), s.get("tier"), s.get("accessed"))
            )
        for i, f in enumerate(_list(cache.get("facts"))):
            f = _dict(f) if isinstance(f, dict) else {"text": f}
            facts.append((slug, f.get("id", f"f{i}"), f.get("text"), f.get("key"), f.get("value")))
        for e in _list(_dict(blocks.get("oo-changelog")).get("entries")):
            e = _dict(e)
            changelog.append((slug, e.get("version"), e.get("timestamp"), e.get("summary")))

    def frame(rows: list[tuple[Any, ...]], columns: dict[str, str]) -> Any:
        out = pd.DataFrame(rows, columns=list(columns))
        for name, kind in columns.items():
            if kind == "date":
                out[name] = pd.to_datetime(out[name], errors="coerce", utc=True)
        return out.astype({k: v for k, v in columns.items() if v != "date"})

    return {
        "documents": frame(
            documents,
            {
                "slug": "string",
                "title": "string",
                "version": "Int64",
                "as_of": "date",
                "cadence_days": "Int64",
                "n_sources": "Int64",
            },
        ),
        "sources": frame(
            sources,
            {
                "doc": "string",
                "source_id": "string",
                "url": "string",
                "title": "string",
                "tier": "category",
                "accessed": "date",
            },
        ),
        "facts": frame(
            facts,
            {"doc": "string", "fact_id": "string", "text": "string", "key": "string"}
            | {"value": "string"},
        ),
        "changelog": frame(
            changelog,
            {"doc": "string", "version": "Int64", "timestamp": "date", "summary": "string"},
        ),
    }


def main() -> None:
    frames = sys.argv[1] == "--frames"
    docs = read_blocks(Path(sys.argv[-1]))
    rows = sum(len(f) for f in build_frames(docs).values()) if frames else 0
    print(json.dumps({"docs": len(docs), "rows": rows}))


if __name__ == "__main__":
    main()
