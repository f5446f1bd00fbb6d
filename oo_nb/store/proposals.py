"""Saved proposals beside the one under review. ``pending.json`` is the proposal ``oo review``
opens; an earlier unreviewed one is never deleted by a later update but set aside as
``pending-<ns>.json`` (its research was paid for). List them, and pick one to review (it swaps
places with the current one, which is set aside in turn), or discard one for good. Only files in
the history folder are renamed or removed; no document is written here."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from oo_nb.errors import NotFound, OOError
from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.format.vocab import UNSAFE_IN_LINE
from oo_nb.skin import saved_advice
from oo_nb.store.seal import is_sealed
from oo_nb.store.store import document_lock, history_dir, set_aside_current

__all__ = [
    "ProposalInfo",
    "awaiting_review",
    "discard_proposal",
    "discard_reviewed",
    "list_proposals",
    "pick_proposal",
    "set_aside_pending",
]

_ASIDE = re.compile(r"^pending-\d+(?:-\d+)?\.json$")


@dataclass(frozen=True)
class ProposalInfo:
    name: str  # "pending.json" (the one `oo review` opens) or "pending-<ns>.json"
    created: str
    version: int | None
    cost_usd: float | None
    stale: bool  # the document changed since it was made
    damaged: str = ""  # why it cannot be read, if so

    @property
    def made(self) -> str:
        """When it was made, for people: ``2026-12-01 18:40 UTC`` (or what the file says)."""
        try:
            when = datetime.fromisoformat(self.created)
        except ValueError:
            return self.created[:40] or "an unknown time"
        if when.tzinfo is None:
            return when.strftime("%Y-%m-%d %H:%M")
        try:
            return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        except OverflowError:  # year 1 at +14:00 (a hand-edited file): shown as it says
            return self.created[:40]

    @property
    def current(self) -> bool:
        return self.name == PENDING_PROPOSAL

    def line(self) -> str:
        if self.damaged:
            return f"{self.name}: damaged ({self.damaged})"
        parts = [self.name + (" (the one `oo review` opens)" if self.current else "")]
        parts.append(f"made {self.created or 'at an unknown time'}")
        if self.version is not None:
            parts.append(f"proposes v{self.version}")
        if self.cost_usd is not None:
            parts.append(f"cost ${self.cost_usd:.4f}")
        if self.stale:
            parts.append("the document changed since (review with --force)")
        return " · ".join(parts)


def set_aside_pending(path: Path) -> Path | None:
    """Rename the current ``pending.json`` of ``path`` to ``pending-<ns>.json`` (never over an
    existing file, under the document's lock) and return the new path; None when there is none."""
    if not (history_dir(path) / PENDING_PROPOSAL).exists():
        return None  # nothing to do: no lock, no history folder made
    with document_lock(path, "set a proposal aside"):
        return set_aside_current(history_dir(path))


def awaiting_review(path: Path) -> ProposalInfo | None:
    """The proposal of ``path`` that awaits review (``pending.json``, the one `oo review` opens),
    or None. A damaged one awaits review too: `oo review` says what is wrong with it. So does
    anything else at that name (a FIFO, a folder, a dangling link): it is no proposal to review,
    but not "no proposal" either, which started a paid run while `--list` called it damaged."""
    file = history_dir(path) / PENDING_PROPOSAL
    if not os.path.lexists(file):
        return None
    sha = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""
    return _info(file, sha)


def list_proposals(path: Path) -> list[ProposalInfo]:
    """The current proposal first, then the set-aside ones, newest first."""
    folder = history_dir(path)
    if not folder.is_dir():
        return []
    names = sorted(
        (p.name for p in folder.iterdir() if _ASIDE.match(p.name)), key=_stamp, reverse=True
    )
    if os.path.lexists(folder / PENDING_PROPOSAL):  # a dangling link is listed, as damaged
        names.insert(0, PENDING_PROPOSAL)
    sha = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""
    return [_info(folder / name, sha) for name in names]


def pick_proposal(path: Path, name: str) -> Path | None:
    """Make the set-aside proposal ``name`` the current one; the current one (if any) is set
    aside. Returns where the previous current one went."""
    if not _ASIDE.match(name):
        raise OOError(
            f"{name!r} is not a set-aside proposal name (see `{saved_advice(path, 'list')}`)",
            file=str(path),
        )
    chosen = history_dir(path) / name
    if not chosen.is_file():
        raise NotFound(
            f"no set-aside proposal {name} (see `{saved_advice(path, 'list')}`)",
            file=str(path),
        )
    with document_lock(path, "pick a proposal"):  # a concurrent update's save waits
        if not chosen.is_file():
            raise NotFound(
                f"{name} was just picked or discarded by another process", file=str(path)
            )
        previous = set_aside_current(history_dir(path))
        os.replace(chosen, history_dir(path) / PENDING_PROPOSAL)
    return previous


def discard_proposal(path: Path, name: str) -> ProposalInfo:
    """Delete the saved proposal ``name`` (a set-aside ``pending-<ns>.json``, or
    ``pending.json`` for the current one) and return what it was. Only those names are
    accepted, so nothing outside the history folder can be named."""
    if name != PENDING_PROPOSAL and not _ASIDE.match(name):
        raise OOError(
            f"{name!r} is not a saved proposal name (pending.json or pending-<number>.json; see "
            f"`{saved_advice(path, 'list')}`)",
            file=str(path),
        )
    file = history_dir(path) / name
    if not os.path.lexists(file):
        raise NotFound(
            f"no saved proposal {name} (see `{saved_advice(path, 'list')}`)", file=str(path)
        )
    sha = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""
    info = _info(file, sha)
    if file.is_dir() and not file.is_symlink():  # listed as damaged: removed when it holds nothing
        try:
            file.rmdir()
        except OSError:
            raise OOError(
                f"{file} is a folder that holds files, not a proposal: look inside, then remove it",
                file=str(path),
            ) from None
    else:  # a file, or a FIFO or link at that name (the link itself, never what it names)
        file.unlink()
    return info


def reviewed_file(path: Path, sha: str) -> Path | None:
    """The saved proposal of ``path`` whose bytes hash to ``sha`` (the one a review was opened
    on), wherever it is now: still current, or set aside by a later update; None when it is gone
    (written or discarded already)."""
    folder = history_dir(path)
    if not sha or not folder.is_dir():
        return None
    names = [PENDING_PROPOSAL, *(p.name for p in folder.iterdir() if _ASIDE.match(p.name))]
    for name in names:
        file = folder / name
        # a regular file only (never a FIFO's blocking read)
        regular = file.is_file() and not file.is_symlink()
        if regular and hashlib.sha256(file.read_bytes()).hexdigest() == sha:
            return file
    return None


def discard_reviewed(path: Path, sha: str) -> None:
    """Delete the proposal a review wrote (``reviewed_file``) and no other: after
    ``update(force=True)`` the current one is a later run's, still to review."""
    file = reviewed_file(path, sha)
    if file is not None:
        file.unlink(missing_ok=True)  # (a pick or discard that just moved it: gone either way)


def _stamp(name: str) -> tuple[int, int]:
    numbers = [int(n) for n in re.findall(r"\d+", name)]
    return numbers[0], numbers[1] if len(numbers) > 1 else 0


def _info(file: Path, sha: str) -> ProposalInfo:
    if not file.is_file():  # a FIFO would block the read for ever, a device never end
        return ProposalInfo(file.name, "", None, None, False, damaged="not a regular file")
    try:
        record = json.loads(file.read_bytes().decode("utf-8"))
        if not isinstance(record, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError, RecursionError) as exc:  # nested deeper than the parser goes
        return ProposalInfo(file.name, "", None, None, False, damaged=str(exc)[:120])
    raw_run, raw_created = record.get("run"), record.get("created")
    run: dict[str, object] = raw_run if isinstance(raw_run, dict) else {}
    # printed to terminals and cron logs: no escape sequence or line break of a hand-edited file
    created = UNSAFE_IN_LINE.sub("?", raw_created) if isinstance(raw_created, str) else ""
    version, cost = run.get("version"), run.get("cost_usd")
    if not is_sealed(record):  # a cost this machine did not record is unknown, not 0
        cost = None
    return ProposalInfo(
        file.name,
        created,
        version if isinstance(version, int) and not isinstance(version, bool) else None,
        float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None,
        record.get("base_sha256") != sha,
    )
