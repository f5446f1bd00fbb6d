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

The seal covers the library it confirms (its resolved absolute path): a record copied to another
folder (``cp -r mine/.oo other/``) confirms nothing there. ``.oo`` and the record are opened
without following a link (a clone's ``.oo`` linked to ``../mine/.oo`` would borrow the user's
record, or have ``--trust`` rewrite it). Each confirmed document is named with a digest of its
contract block, so a pulled document renamed onto a confirmed name (another subject, budget) is
not the one confirmed.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from oo_nb.errors import OOError, ValidationError
from oo_nb.format.blocks import Contract
from oo_nb.format.document import Document
from oo_nb.skin import trust_advice
from oo_nb.store.discover import documents
from oo_nb.store.seal import is_sealed

__all__ = [
    "CONTRACTS_FIELD",
    "LIBRARY_FIELD",
    "REVIEW_AUTO_FIELD",
    "TRUST_FILE",
    "contract_digest",
    "library_identity",
    "refuse_settings_dir",
    "review_auto_contracts",
    "review_auto_documents",
    "review_auto_problem",
    "settings_dir_fd",
    "settings_dir_problem",
    "stored_trust",
    "trust_steps",
]

TRUST_FILE = "alerts.trusted"
SETTINGS_DIR = ".oo"
REVIEW_AUTO_FIELD = "review_auto"
LIBRARY_FIELD = "library"  # the library the record confirms (its resolved absolute path)
CONTRACTS_FIELD = "review_auto_contracts"  # each confirmed document: its contract's digest
_MAX_TRUST_FILE = 64 * 1024
_NO_LINK = "the settings folder is read and written only inside the library, never through a link"
_REPLACE = "replace it with a folder of its own"  # what works: --trust refuses a linked .oo


def library_identity(root: Path) -> str:
    """What a record is sealed for: the library's resolved absolute path."""
    return os.path.realpath(root)


def settings_dir_problem(root: Path) -> str | None:
    """Why ``root/.oo`` is never used (a symbolic link, even to nothing, or not a folder), in
    words naming it; None when it is a folder or there is none."""
    folder = root / SETTINGS_DIR
    if os.path.islink(folder):
        return f"{folder} is a symbolic link; {_NO_LINK}"
    if os.path.lexists(folder) and not os.path.isdir(folder):
        return f"{folder} is not a folder"
    return None


def refuse_settings_dir(root: Path) -> None:
    """Raise ``ValidationError`` naming ``root/.oo`` and what works, when it is never used
    (``settings_dir_problem``): before anything would be made or read through it."""
    if problem := settings_dir_problem(root):
        raise ValidationError(f"{problem}: {_REPLACE}")


def trust_steps(root: Path) -> str:
    """What confirms the library ``root``'s settings: its ``--trust`` command, after replacing
    its ``.oo`` with a folder when that is a link (which ``--trust`` refuses)."""
    command = f"`{trust_advice(root)}`"
    if settings_dir_problem(root) is None:
        return command
    return f"replace {root / SETTINGS_DIR} with a folder of its own, then {command}"


@contextmanager
def settings_dir_fd(root: Path) -> Iterator[int]:
    """``root/.oo`` open as a folder, never through a link. Raises ``OOError`` naming a link or
    what is not a folder; ``FileNotFoundError`` when there is none."""
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fd = os.open(
            SETTINGS_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=top
        )
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        refuse_settings_dir(root)
        raise ValidationError(f"{root / SETTINGS_DIR} is not a folder; {_REPLACE}") from None
    finally:
        os.close(top)
    try:
        yield fd
    finally:
        os.close(fd)


def _read_record(folder: Path) -> bytes:
    """The bytes of ``folder/alerts.trusted`` (``folder`` is ``.oo/``), opened without a link."""
    with settings_dir_fd(folder.parent) as dir_fd:
        try:
            fd = os.open(
                TRUST_FILE,
                os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                dir_fd=dir_fd,
            )
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OOError(f"{folder / TRUST_FILE} is a symbolic link; {_NO_LINK}") from None
            raise
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OOError(f"{folder / TRUST_FILE} is not a regular file")
        return handle.read(_MAX_TRUST_FILE)


def stored_trust(folder: Path) -> dict[str, Any] | str:
    """The sealed record in ``folder`` (``.oo/``) for the library that holds it, or why there is
    none, in words for the user."""
    if problem := settings_dir_problem(folder.parent):  # (the remedy: ``trust_steps``)
        return f"not confirmed as yours ({problem})"
    try:
        stored = json.loads(_read_record(folder).decode("utf-8"))
    except FileNotFoundError:
        return "not confirmed as yours"
    except OOError as exc:
        return f"not confirmed as yours ({exc.message})"
    except (OSError, ValueError, UnicodeDecodeError):
        stored = None
    if not isinstance(stored, dict) or not is_sealed(stored):
        return f"not confirmed on this machine ({TRUST_FILE} is not sealed by it)"
    if stored.get(LIBRARY_FIELD) != library_identity(folder.parent):
        return (
            f"not confirmed as yours in this folder ({TRUST_FILE} was sealed for "
            f"{stored.get(LIBRARY_FIELD) or 'no folder'}: a record copied here confirms nothing)"
        )
    return stored


def _contract(doc: Path) -> Contract | None:
    try:
        return Document.read(doc).contract
    except (OOError, OSError):  # a document that cannot be read asks nothing
        return None


def _digest(contract: Contract) -> str:
    text = json.dumps(contract.raw, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def contract_digest(doc: Path) -> str | None:
    """The sha256 of ``doc``'s contract block as it reads now (None when it cannot be read):
    what the user confirmed for the document."""
    contract = _contract(doc)
    return None if contract is None else _digest(contract)


def review_auto_contracts(root: Path) -> dict[str, str]:
    """The documents under ``root`` whose contract asks ``review: "auto"``, as paths relative
    to ``root``, each with its contract's digest (a document that cannot be read asks nothing)."""
    out = {}
    for path in documents(root):
        contract = _contract(path)
        if contract is not None and contract.review == "auto":
            out[Path(os.path.relpath(path, root)).as_posix()] = _digest(contract)
    return dict(sorted(out.items()))


def review_auto_documents(root: Path) -> list[str]:
    """The documents under ``root`` whose contract asks ``review: "auto"``, as paths relative
    to ``root``."""
    return list(review_auto_contracts(root))


def _confirmed(stored: dict[str, Any], name: str, doc: Path) -> bool:
    """Whether the record names ``name`` with the contract ``doc`` holds now."""
    named = stored.get(REVIEW_AUTO_FIELD, [])
    contracts = stored.get(CONTRACTS_FIELD, {})
    return (
        isinstance(named, list)
        and name in named
        and isinstance(contracts, dict)
        and contracts.get(name) == contract_digest(doc)
    )


def review_auto_problem(doc: Path) -> str | None:
    """None when the user confirmed the contract's ``review: "auto"`` of ``doc`` on this
    machine (a sealed record of a folder above it names it); otherwise one sentence: why not,
    and the command that confirms it."""
    here = Path(os.path.abspath(doc))
    nearest: tuple[Path, str] | None = None  # the nearest record's folder, and why it says no
    for folder in (here.parent, *here.parent.parents):
        record = folder / SETTINGS_DIR / TRUST_FILE
        if not os.path.lexists(record) and settings_dir_problem(folder) is None:
            continue  # (a .oo linked to nothing is named: it is why nothing is confirmed)
        stored = stored_trust(folder / SETTINGS_DIR)
        name = here.relative_to(folder).as_posix()
        if isinstance(stored, dict) and _confirmed(stored, name, here):
            return None
        if nearest is None:
            said = stored if isinstance(stored, str) else "asked after you last confirmed"
            nearest = (folder, said)
    where, why = nearest or (here.parent, "not confirmed as yours")
    return (
        f'the contract\'s review: "auto" is not used, so nothing is written unattended: {why} '
        f"({trust_steps(doc.parent if where == here.parent else where)} confirms it)"
    )
