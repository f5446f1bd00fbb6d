"""Sample folders for the "nothing lost, nothing hidden" tests and attacks: a folder with files
that cannot be read, and a document with kept history."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oo_nb.format.document import Document
from oo_nb.store.store import write_document
from tests.conftest import CORPUS, corpus_file

__all__ = ["FIXTURES", "mixed_folder", "three_writes"]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "library"


def mixed_folder(tmp_path: Path) -> Path:
    """Two good documents, two that cannot be read at all, one with a damaged block."""
    root = tmp_path / "docs"
    root.mkdir(parents=True)
    shutil.copy(CORPUS / "yc-w26-batch.o-o.html", root / "good.o-o.html")
    shutil.copy(CORPUS / "agi-declared.o-o.html", root / "also-good.o-o.html")
    shutil.copy(FIXTURES / "corrupt.o-o.html", root / "corrupt.o-o.html")
    (root / "binary.o-o.html").write_bytes(b"\x00\x01 not a document")
    shutil.copy(FIXTURES / "bad-json.o-o.html", root / "bad-json.o-o.html")
    return root


def three_writes(folder: Path) -> Path:
    """A document with four kept states: seq 1-3 in history ("edit 5".."edit 7"), seq 4 the
    file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = corpus_file("yc-w26-batch.o-o.html", folder)
    for version in (5, 6, 7):
        doc = Document.read(path).edit_block("oo-manifest", _set_version(version))
        write_document(doc, expected=path.read_bytes(), action=f"edit {version}")
    return path


def _set_version(version: int) -> Callable[[dict[str, Any]], None]:
    def change(manifest: dict[str, Any]) -> None:
        manifest["version"] = version

    return change
