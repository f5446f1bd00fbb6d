"""The demo library: documents and replay cassettes shipped in ``oo_nb/demo/data/``, copied into
a folder so notebooks, ``make lab`` and Binder start from a known state without an API key.

``install_demo(folder)`` is idempotent. A folder it made carries ``.oo-demo.json``; installing
again first removes what the demo and the notebooks put there (documents, index, history,
cassettes, pending proposals) and leaves any other file alone. A folder that is not empty and has
no marker is refused: the demo never overwrites someone's documents.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.names import (
    CASSETTE_DIR,
    CASSETTE_SUFFIX,
    DOC_SUFFIX,
    HISTORY_DIR,
    LEGACY_LOCK_SUFFIX,
)

__all__ = ["CASSETTE_DIR", "DATA_DIR", "MARKER", "DemoInstall", "demo_today", "install_demo"]

DATA_DIR = Path(__file__).resolve().parent / "data"
MARKER = ".oo-demo.json"
# CASSETTE_DIR (re-exported): where the replay agent looks (agent/cassettes.find_cassette)
_OWNED_DIRS = (HISTORY_DIR, CASSETTE_DIR)
_OWNED_GLOBS = tuple(f"*{suffix}" for suffix in (DOC_SUFFIX, CASSETTE_SUFFIX, LEGACY_LOCK_SUFFIX))


def _manifest() -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads((DATA_DIR / "demo.json").read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise OOError(
            f"the demo data of this oo_nb installation is missing or damaged: {exc}",
            file=str(DATA_DIR),
        ) from None
    return data


def demo_today() -> str:
    """The date the demo story is set on (what the notebooks pin with ``OO_TODAY``)."""
    return str(_manifest()["today"])


@dataclass
class DemoInstall:
    folder: Path
    documents: list[Path]
    cassettes: list[Path]
    today: str
    reset: bool
    index: Path | None = None
    quiet: bool = False
    notes: list[str] = field(default_factory=list)
    exit_code: int = 0

    @property
    def value(self) -> Path:
        return self.folder

    def to_text(self) -> str:
        if self.quiet:
            return ""
        # the same words for a first install and a reset, so notebook outputs do not depend on it
        lines = [
            f"demo library ready: {self.folder} ({len(self.documents)} documents, "
            f"{len(self.cassettes)} recorded updates for the replay agent)",
            *(f"  {p.name}" for p in self.documents),
            f"the demo is set on {self.today}: set OO_TODAY={self.today} to see it as the notebooks do",
            *self.notes,
        ]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.to_text()}

    def __repr__(self) -> str:
        return self.to_text()


def _clear(folder: Path) -> None:
    for name in _OWNED_DIRS:
        shutil.rmtree(folder / name, ignore_errors=True)
    for pattern in _OWNED_GLOBS:
        for path in folder.glob(pattern):
            if path.is_file() or path.is_symlink():
                path.unlink()


def install_demo(folder: str | Path, *, index: bool = True, quiet: bool = False) -> DemoInstall:
    """Copy the demo documents into ``folder`` (created if needed) and their cassettes into
    ``folder/.oo-cassettes``; optionally write the index page."""
    target = Path(folder)
    manifest = _manifest()
    if target.exists() and not target.is_dir():
        raise OOError("exists and is not a folder", file=str(target))
    reset = (target / MARKER).is_file()
    if target.is_dir() and not reset and any(target.iterdir()):
        raise OOError(
            f"is not empty and is not a demo library (no {MARKER}): nothing touched; choose a new or empty folder",
            file=str(target),
        )
    target.mkdir(parents=True, exist_ok=True)
    if reset:
        _clear(target)
    docs = []
    for name in manifest["documents"]:
        dest = target / name
        shutil.copyfile(DATA_DIR / "documents" / name, dest)
        dest.chmod(0o755)  # a document is also a bash script
        docs.append(dest)
    cassettes = []
    (target / CASSETTE_DIR).mkdir(exist_ok=True)
    for name in manifest["cassettes"]:
        dest = target / CASSETTE_DIR / name
        shutil.copyfile(DATA_DIR / "cassettes" / name, dest)
        cassettes.append(dest)
    marker = {
        "what": "oo_nb demo library; `oo demo` recreates it",
        "today": manifest["today"],
        "documents": manifest["documents"],
    }
    (target / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
    result = DemoInstall(target, docs, cassettes, str(manifest["today"]), reset, quiet=quiet)
    if index:
        from oo_nb.library.index_page import write_index

        result.index = write_index(target, title="oo_nb demo library").path
    return result
