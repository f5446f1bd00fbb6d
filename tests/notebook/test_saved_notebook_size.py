"""The notebooks as saved (``make notebooks``; nbval checks the outputs are what running them
gives) stay small: no widget state in their metadata (the quickstart's was 293 KB of a 415 KB file;
415 -> 297 KB since the review widget's parts share their layouts, still too much to commit), and
the outputs within a bound, the plots' PNGs (02-audit: 86 KB of its 117 KB) counted apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
TEXT_OUTPUTS_MAX = 40_000  # bytes of outputs other than images, per notebook (largest: ~32 KB)
IMAGES_MAX = 120_000


def _output_bytes(notebook: dict[str, object]) -> tuple[int, int]:
    text = images = 0
    for cell in notebook["cells"]:  # type: ignore[attr-defined]
        for out in cell.get("outputs", []):
            for mime, value in (out.get("data") or {}).items():
                size = len(json.dumps(value))
                if mime.startswith("image/"):
                    images += size
                else:
                    text += size
            text += len(json.dumps(out.get("text", "")))
    return text, images


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_saved_notebook_stays_small(path: Path) -> None:
    notebook = json.loads(path.read_text("utf-8"))
    assert "widgets" not in notebook["metadata"], "widget state saved: run `make notebooks`"
    text, images = _output_bytes(notebook)
    assert text <= TEXT_OUTPUTS_MAX, (path.name, text)
    assert images <= IMAGES_MAX, (path.name, images)


def test_the_notebooks_are_found() -> None:
    assert len(NOTEBOOKS) >= 4
