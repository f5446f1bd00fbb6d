"""The demo library: documents and replay cassettes shipped in ``oo_nb/demo/data/``, copied into
a folder so notebooks, ``make lab`` and Binder start from a known state without an API key.

``install_demo(folder)`` is idempotent. A folder it made carries ``.oo-demo.json`` (with the
sha256 of each document it installed); installing again first removes what the demo and the
notebooks put there (documents, index, history, cassettes, pending proposals) and leaves any
other file alone. What that would delete of the user's work is looked at first: a demo document
whose bytes differ from what was installed, another document, kept history or a pending proposal.
Any of it refuses the reinstall (nothing touched) unless ``reset=True`` (``--reset``) says to
lose it. Index pages do not count: ``oo index`` rebuilds them from the documents. A folder that is
not empty and has no marker is always refused: the demo never overwrites someone's documents.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oo_nb.errors import ConflictError, OOError
from oo_nb.format.names import (
    CACHE_DIR,
    CASSETTE_DIR,
    CASSETTE_SUFFIX,
    DOC_SUFFIX,
    HISTORY_DIR,
    LEGACY_LOCK_SUFFIX,
    LOCK_NAME,
    PENDING_PROPOSAL,
)
from oo_nb.store.discover import is_index_page

__all__ = [
    "CASSETTE_DIR",
    "DATA_DIR",
    "MARKER",
    "DemoInstall",
    "demo_today",
    "install_demo",
    "user_changes",
]

DATA_DIR = Path(__file__).resolve().parent / "data"
MARKER = ".oo-demo.json"
# CASSETTE_DIR (re-exported): where the replay agent looks (agent/cassettes.find_cassette)
_OWNED_DIRS = (HISTORY_DIR, CASSETTE_DIR, CACHE_DIR)  # the cache: derived, rebuilt on use
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


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _installed_sha256(folder: Path, name: str) -> str:
    """What the demo wrote for document ``name``: as the marker recorded it, or (a marker from
    before it recorded them) the shipped file's."""
    try:
        marker = json.loads((folder / MARKER).read_text("utf-8"))
        recorded = marker.get("sha256", {}).get(name) if isinstance(marker, dict) else None
    except (OSError, ValueError, AttributeError):
        recorded = None
    if isinstance(recorded, str):
        return recorded
    shipped = DATA_DIR / "documents" / name
    return _sha256(shipped) if shipped.is_file() else ""


def _names(paths: list[str], limit: int = 3) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def user_changes(folder: str | Path) -> list[str]:
    """What a reinstall of the demo in ``folder`` would delete of the user's work, one phrase
    per kind (empty: nothing; the folder holds what the demo put there)."""
    target = Path(folder)
    shipped = set(_manifest()["documents"])
    edited: list[str] = []
    others: list[str] = []
    for path in sorted(target.glob(f"*{DOC_SUFFIX}")):
        if path.is_symlink() or not path.is_file():
            continue
        if path.name in shipped:
            if _sha256(path) != _installed_sha256(target, path.name):
                edited.append(path.name)
        elif not is_index_page(path):  # index pages are rebuilt by `oo index`
            others.append(path.name)
    history: list[str] = []
    pending: list[str] = []
    kept = target / HISTORY_DIR
    for doc_dir in sorted(kept.iterdir()) if kept.is_dir() else ():
        inside = [doc_dir] if not doc_dir.is_dir() else list(doc_dir.rglob("*"))
        files = [p for p in inside if not p.is_dir() and p.name != LOCK_NAME]
        if any(p.name == PENDING_PROPOSAL and p.parent == doc_dir for p in files):
            pending.append(doc_dir.name)
        if any(p.name != PENDING_PROPOSAL or p.parent != doc_dir for p in files):
            history.append(doc_dir.name)
    found = []
    if edited:
        found.append(f"{len(edited)} edited demo document(s) ({_names(edited)})")
    if others:
        found.append(f"{len(others)} other document(s) ({_names(others)})")
    if history:
        found.append(f"the kept history of {len(history)} document(s) ({_names(history)})")
    if pending:
        found.append(f"{len(pending)} proposal(s) waiting for review ({_names(pending)})")
    return found


def install_demo(
    folder: str | Path, *, index: bool = True, quiet: bool = False, reset: bool = False
) -> DemoInstall:
    """Copy the demo documents into ``folder`` (created if needed) and their cassettes into
    ``folder/.oo-cassettes``; optionally write the index page. A demo folder the user changed
    (``user_changes``) is refused unless ``reset`` says to lose those changes."""
    target = Path(folder)
    manifest = _manifest()
    if target.exists() and not target.is_dir():
        raise OOError("exists and is not a folder", file=str(target))
    reinstall = (target / MARKER).is_file()
    if target.is_dir() and not reinstall and any(target.iterdir()):
        raise OOError(
            f"is not empty and is not a demo library (no {MARKER}): nothing touched; choose a new or empty folder",
            file=str(target),
        )
    if reinstall and not reset:
        changes = user_changes(target)
        if changes:
            raise ConflictError(
                f"the demo folder holds work a reinstall would delete: {'; '.join(changes)}. "
                "Nothing touched; add --reset to reinstall the demo and lose it, or choose another folder",
                file=str(target),
            )
    target.mkdir(parents=True, exist_ok=True)
    if reinstall:
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
        # what was installed, so a later install can tell the user's edits from the demo's bytes
        "sha256": {p.name: _sha256(p) for p in docs},
    }
    (target / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
    result = DemoInstall(target, docs, cassettes, str(manifest["today"]), reinstall, quiet=quiet)
    if index:
        from oo_nb.library.index_page import write_index

        result.index = write_index(target, title="oo_nb demo library").path
    return result
