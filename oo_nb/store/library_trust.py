"""The user's confirmation of what a library from elsewhere may make oo do unattended: the sealed
record ``DIR/.oo/alerts.trusted`` (``oo alerts DIR --trust``; the alerts' part is
``alerts/trust.py``), read here so that the update itself can ask it.

A contract's ``"review": "auto"`` writes a clean update without review; a library from elsewhere
(a clone, a tarball) could ship it in every document, and a plain ``oo update-all DIR`` would then
write unattended what the user never asked to be. So it counts only for a document the record
names: ``--trust`` lists, under ``review_auto``, the documents under DIR whose contract asks it at
that moment (paths relative to DIR), and the record is this machine's seal (``store.seal``, keyed
outside every library): a record that came with the library vouches for nothing. A document that
asks ``review: "auto"`` later (pulled, copied in, or set by hand) needs ``--trust`` again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.skin import trust_advice
from oo_nb.store.discover import documents
from oo_nb.store.seal import is_sealed

__all__ = [
    "REVIEW_AUTO_FIELD",
    "TRUST_FILE",
    "review_auto_documents",
    "review_auto_problem",
    "stored_trust",
]

TRUST_FILE = "alerts.trusted"
SETTINGS_DIR = ".oo"
REVIEW_AUTO_FIELD = "review_auto"
_MAX_TRUST_FILE = 64 * 1024


def stored_trust(folder: Path) -> dict[str, Any] | str:
    """The sealed record in ``folder`` (``.oo/``), or why there is none, in words for the user."""
    path = folder / TRUST_FILE
    try:
        with path.open("rb") as handle:
            stored = json.loads(handle.read(_MAX_TRUST_FILE).decode("utf-8"))
    except FileNotFoundError:
        return "not confirmed as yours"
    except (OSError, ValueError, UnicodeDecodeError):
        stored = None
    if not isinstance(stored, dict) or not is_sealed(stored):
        return f"not confirmed on this machine ({TRUST_FILE} is not sealed by it)"
    return stored


def review_auto_documents(root: Path) -> list[str]:
    """The documents under ``root`` whose contract asks ``review: "auto"``, as paths relative
    to ``root`` (a document that cannot be read asks nothing)."""
    out = []
    for path in documents(root):
        try:
            review = Document.read(path).contract.review
        except (OOError, OSError):
            continue
        if review == "auto":
            out.append(Path(os.path.relpath(path, root)).as_posix())
    return sorted(out)


def review_auto_problem(doc: Path) -> str | None:
    """None when the user confirmed the contract's ``review: "auto"`` of ``doc`` on this
    machine (a sealed record of a folder above it names it); otherwise one sentence: why not,
    and the command that confirms it."""
    here = Path(os.path.abspath(doc))
    nearest: tuple[Path, str] | None = None  # the nearest record's folder, and why it says no
    for folder in (here.parent, *here.parent.parents):
        if not (folder / SETTINGS_DIR / TRUST_FILE).exists():
            continue
        stored = stored_trust(folder / SETTINGS_DIR)
        named = stored.get(REVIEW_AUTO_FIELD, []) if isinstance(stored, dict) else []
        if isinstance(named, list) and here.relative_to(folder).as_posix() in named:
            return None
        if nearest is None:
            said = stored if isinstance(stored, str) else "asked after you last confirmed"
            nearest = (folder, said)
    where, why = nearest or (here.parent, "not confirmed as yours")
    return (
        f'the contract\'s review: "auto" is not used, so nothing is written unattended: {why} '
        f"(`{trust_advice(doc.parent if where == here.parent else where)}` confirms it)"
    )
