"""Safe writing, the only way a document is written: one advisory lock per document, a history
snapshot before every replace (``history``), atomic replace (``atomic``), rollback, and the
pending proposal (``.oo-history/<file name>/pending.json``) waiting for review.

History reading and the atomic write live in their own modules; their names are re-exported
here because callers think of all of it as "the store"."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oo_nb.errors import ConflictError, FormatError, LockedError, NotFound, OOError
from oo_nb.format.document import Document, read_regular
from oo_nb.format.names import DOC_SUFFIX, LOCK_NAME, PENDING_PROPOSAL
from oo_nb.format.page_code import CodeRegion, region_fingerprints, unknown_regions
from oo_nb.format.scrub import scrub_document, scrub_value
from oo_nb.skin import update_advice
from oo_nb.store.atomic import atomic_write_bytes, fsync_dir
from oo_nb.store.history import (
    HISTORY_DIR,
    HistoryEntry,
    Pick,
    history_dir,
    keep_written,
    pick_entry,
    pick_from,
    read_history,
    record_outside_change,
    record_snapshot,
    seq_bytes,
    sha256_hex,
    start_new_document,
    utc_now,
    version_bytes,
)
from oo_nb.store.history_place import (
    history_folder,
    library_file,
    open_plain_file,
    write_holder_note,
)
from oo_nb.store.seal import SEAL_FIELD, is_sealed, seal
from oo_nb.store.sigterm import cleanup_on_sigterm
from oo_nb.store.stale import sweep_temp_files

__all__ = [
    "HISTORY_DIR",
    "UNSEALED_WARNING",
    "HistoryEntry",
    "Pending",
    "Pick",
    "Restored",
    "SavedProposal",
    "atomic_write_bytes",
    "check_writable",
    "discard_pending",
    "document_lock",
    "history_dir",
    "load_pending",
    "pick_entry",
    "read_history",
    "restore",
    "rollback",
    "save_pending",
    "save_proposal",
    "seq_bytes",
    "set_aside_current",
    "unvouched_run",
    "version_bytes",
    "write_document",
]

LOCK_TIMEOUT_S = 10.0


# --------------------------------------------------------------------------- locking
@contextlib.contextmanager
def document_lock(path: Path, action: str, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Exclusive advisory lock for one document. A second writer waits up to ``timeout``
    seconds, then fails naming the holder."""
    # never through a link: a cloned library's lock linked to a file elsewhere was overwritten
    lock = history_folder(path) / LOCK_NAME
    fd = open_plain_file(lock, os.O_RDWR | os.O_CREAT)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    holder = (
                        os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another process"
                    )
                    raise LockedError(
                        f"locked by {holder}; waited {timeout:g} s. Try again when it has finished.",
                        file=str(path),
                    ) from None
                time.sleep(0.05)
        write_holder_note(fd, lock, action, utc_now())
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- writing
def write_document(
    doc: Document,
    *,
    expected: bytes | None,
    action: str = "update",
    path: Path | None = None,
    timeout: float = LOCK_TIMEOUT_S,
    scrub_secrets: bool = False,
    new_document: bool = False,
) -> Path:
    """Validate ``doc``, then under the lock: check the file still holds ``expected`` (no lost
    update), snapshot it into history and replace it atomically. ``expected=None`` creates a
    new file and refuses to overwrite; with ``new_document`` (``oo new``, not a deleted
    document coming back) what history holds at that name is a former document's
    (``history.start_new_document``). ``scrub_secrets`` (a candidate made from model output):
    the API key and every echo of it are replaced first (``format.scrub``)."""
    target = path or doc.path
    if target is None:
        raise OOError("document has no path to write to")
    target = library_file(target)  # replace the file a link points to, and keep the link
    if scrub_secrets:
        doc = scrub_document(doc)[0]
    data = doc.to_bytes()
    _validate(data, target)
    try:
        # SIGTERM from here on: the temp files go and a row written ahead of its replace is
        # taken back (the `except BaseException` below) before the process ends
        with cleanup_on_sigterm(), document_lock(target, action, timeout):
            _sweep_stale_temps(target)
            try:
                current: bytes | None = target.read_bytes()
            except FileNotFoundError:
                current = None
            if expected is None:
                if current is not None:  # as the exclusive write would: nothing recorded
                    raise OOError("already exists; not overwritten", file=str(target))
                # a deleted document's last written state, before a new file takes its name
                record_outside_change(target, None)
                former = start_new_document(target) if new_document else None
                try:
                    atomic_write_bytes(target, data, mode=0o755, exclusive=True)
                except BaseException:
                    if former is not None and not os.path.lexists(target):  # none started
                        former.undo()
                    raise
            else:
                if current != expected:
                    raise ConflictError(
                        "changed on disk since it was read (another update?); nothing written. Read it again and retry.",
                        file=str(target),
                    )
                if current == data:
                    return target
                # what oo wrote last, when the file was changed outside oo since: a row first
                record_outside_change(target, current)
                recorded = record_snapshot(target, current, action)
                try:
                    atomic_write_bytes(target, data)
                except BaseException:
                    if not _holds(target, data):  # not replaced: no "replaced by" row for it
                        recorded.undo()
                    raise
            _keep_written(target, data)
    except (
        OSError
    ) as exc:  # disk full, permissions...: an OOError that says what state the file is in
        raise _io_error(exc, target, data) from exc
    except FormatError as exc:  # its history unreadable (its log): found before the replace
        raise FormatError(
            f"{exc.message}; the document is unchanged", file=exc.file, line=exc.line
        ) from None
    return target


def _keep_written(target: Path, data: bytes) -> None:
    """Keep the state just written (``history.keep_written``). The write itself succeeded: a
    failure here (a full disk) costs only this copy, and the last row still holds the state
    before it, so history lists nothing wrong; it is not reported as a failed write."""
    with contextlib.suppress(OSError, OOError):
        keep_written(target, data)


def _sweep_stale_temps(target: Path) -> None:
    """Temp files of writers killed mid-write (each a full copy): documents' in the folder,
    snapshots' and proposals' in the document's history. Under the lock, so none is this
    document's write in progress; another document's live write is young and its PID runs."""
    sweep_temp_files(target.parent, contains=DOC_SUFFIX)
    folder = history_dir(target)
    sweep_temp_files(folder)
    sweep_temp_files(folder / "snapshots")


def _holds(target: Path, data: bytes) -> bool:
    """Whether ``target`` holds ``data`` (a replace whose folder fsync failed still happened);
    when it cannot be read, assume it may: a row too many never loses bytes, one too few could."""
    try:
        return target.read_bytes() == data
    except OSError:
        return True


def _io_error(exc: OSError, target: Path, data: bytes) -> OOError:
    try:
        written = target.read_bytes() == data
    except OSError:
        written = False
    state = (
        "the new version is in place (only syncing it to disk failed)"
        if written
        else "the document is unchanged"
    )
    # the path that failed: the document, its temp file, or a part of its history
    failed = os.fsdecode(exc.filename) if exc.filename is not None else ""
    if exc.filename2 is not None:
        failed += f" to {os.fsdecode(exc.filename2)}"
    named = f" {failed}" if failed else ""
    return OOError(f"could not write{named}: {exc.strerror or exc}; {state}", file=str(target))


def _validate(data: bytes, target: Path) -> None:
    check_writable(Document.parse(data, path=target))


def check_writable(doc: Document) -> None:
    """Raise the error ``write_document`` would refuse ``doc`` with (a block that is not JSON,
    a value of the wrong type), with the line and column in ``doc`` itself. Callers that derive
    a new version (``oo sync``) ask this of the file as read, so the error names the file's line,
    as ``oo check`` does, not a line of the version they would have written. A document that
    is a link out of its folder is refused too (``library_file``)."""
    if doc.path is not None:
        library_file(doc.path)
    if doc.kind == "document":
        for name in doc.blocks:
            doc.block_json(name)
        _ = doc.manifest, doc.contract, doc.source_cache, doc.changelog


@dataclass(frozen=True)
class Restored:
    """What a rollback did: ``written`` is False when the file already held the target bytes."""

    path: Path
    pick: Pick
    written: bool
    # the seq the file had before the rollback (it keeps it in history); when there was no file
    # (a deleted document), the seq the restored file now has
    current_seq: int
    replaced: bool = True  # False: there was no file (a deleted document came back)


def _new_unknown_code(restored: Document, current: bytes | None) -> list[CodeRegion]:
    """The page code of ``restored`` that ``oo check`` would call unknown and the file now does
    not already hold: what a rollback would bring in (a snapshot is as untrusted as the file)."""
    have: set[str] = set()
    if current is not None:
        with contextlib.suppress(OOError):
            have = region_fingerprints(Document.parse(current))
    return [r for r in unknown_regions(restored) if r.fingerprint not in have]


def restore(
    path: str | Path,
    version: int | None = None,
    *,
    seq: int | None = None,
    timeout: float = LOCK_TIMEOUT_S,
    allow_unknown_code: bool = False,
) -> Restored:
    """Restore history entry ``seq``, or version ``version`` (the newest state of it that differs
    from the file now), byte for byte. The replaced file goes to history, so a rollback can itself
    be undone. When the file already holds those bytes, nothing is written. A state whose page
    code oo_nb does not know (and the file now does not hold) is refused unless
    ``allow_unknown_code``."""
    p = Path(path)
    current = (
        p.read_bytes() if p.exists() else None
    )  # a deleted document can come back from history
    entries = read_history(p)
    pick = pick_from(p, entries, version=version, seq=seq, avoid=current)
    current_seq = (
        entries[-1].seq if current is not None else (entries[-1].seq + 1 if entries else 1)
    )
    if current == pick.data:
        return Restored(p, pick, False, current_seq)  # (never None: a pick has bytes)
    target = pick.entry
    label = "-" if target.version is None else str(target.version)
    restored = Document.parse(pick.data, path=p)
    unknown = [] if allow_unknown_code else _new_unknown_code(restored, current)
    if unknown:
        listed = ", ".join(r.describe() for r in unknown)
        raise OOError(
            f"not restored: seq {target.seq} (version {label}) holds page code oo_nb does not know "
            f"and the file now does not have: {listed}. Someone may have planted it in the "
            f"history; read it first ({target.snapshot}) and run the rollback again with "
            "--allow-unknown-code to restore it anyway",
            file=str(p),
        )
    # The seq is named when the version alone would not say which state came back.
    action = f"rollback to v{label}" + (
        f" (seq {target.seq})" if seq is not None or pick.others else ""
    )
    written = write_document(restored, expected=current, action=action, timeout=timeout)
    return Restored(written, pick, True, current_seq, replaced=current is not None)


def rollback(
    path: str | Path,
    version: int | None = None,
    *,
    seq: int | None = None,
    timeout: float = LOCK_TIMEOUT_S,
) -> Path:
    """Restore history entry ``seq`` or version ``version`` byte for byte (see ``restore``)."""
    return restore(path, version, seq=seq, timeout=timeout).path


# --------------------------------------------------------------------------- pending proposals
@dataclass(frozen=True)
class Pending:
    """A saved proposal as read from its file, which is untrusted input (anyone who can write
    the history folder can write one): ``proposal`` is the data to rebuild the candidate from
    (``oo_nb.agent.pending`` does, through the agent's validation and sanitiser); files written
    before that hold a whole ``candidate`` document instead, which must be checked before use."""

    candidate: Document | None  # older files only; never trusted
    run: dict[str, Any]
    created: str
    stale: bool  # the document changed since the proposal was made
    proposal: dict[str, Any] | None = None
    source: Path | None = None  # the pending file
    # saved by oo on this machine and unchanged since (``store.seal``): only then does its run
    # record vouch for the URLs seen, quotes found and cost
    sealed: bool = False
    sha256: str = ""  # of the file's bytes: which saved proposal this is, wherever it is moved


def save_pending(
    path: Path,
    candidate: Document | None,
    run: dict[str, Any],
    base: bytes,
    *,
    proposal: dict[str, Any] | None = None,
    timeout: float | None = None,
) -> Path:
    """Save a proposal as THE proposal of ``path`` (``pending.json``), replacing the current
    one. ``save_proposal`` keeps the current one instead."""
    return save_proposal(
        path, candidate, run, base, proposal=proposal, keep_earlier=False, timeout=timeout
    ).path


@dataclass(frozen=True)
class SavedProposal:
    path: Path  # pending.json: the proposal `oo review` opens
    set_aside: Path | None  # the earlier unreviewed proposal, kept under its own name


def save_proposal(
    path: Path,
    candidate: Document | None,
    run: dict[str, Any],
    base: bytes,
    *,
    proposal: dict[str, Any] | None = None,
    keep_earlier: bool = True,
    timeout: float | None = None,
) -> SavedProposal:
    """Save a proposal for review, cleaned of secrets: its ``proposal`` data when given (the
    candidate is then rebuilt on review, so it is not stored), else the whole ``candidate`` (the
    older form). Under the document's lock, so that concurrent updates of one document each keep
    theirs: an unreviewed ``pending.json`` is first set aside under a name no other run can take
    (``set_aside_current``), then the new one is written atomically. Raises ``LockedError`` when
    the lock is not had within ``timeout``."""
    record: dict[str, Any] = {
        "base_sha256": sha256_hex(base),
        "created": utc_now(),
        "run": run,
    }
    if proposal is not None:
        # the model's text is cleaned; the downloaded images (base64 bytes) are kept as they are
        images = {"images": proposal["images"]} if "images" in proposal else {}
        rest = {k: v for k, v in proposal.items() if k != "images"}
        record["proposal"] = {**scrub_value(rest)[0], **images}
    elif candidate is not None:
        record["candidate"] = scrub_document(candidate)[0].text
    else:
        raise OOError("nothing to save: no proposal and no candidate", file=str(path))
    mark = seal(record)  # this machine vouches for the run's evidence (store.seal)
    if mark is not None:
        record[SEAL_FIELD] = mark
    data = json.dumps(record, ensure_ascii=False).encode("utf-8")
    with document_lock(path, "save proposal", LOCK_TIMEOUT_S if timeout is None else timeout):
        folder = history_dir(path)
        kept = set_aside_current(folder) if keep_earlier else None
        target = folder / PENDING_PROPOSAL
        atomic_write_bytes(target, data, mode=0o644)
    return SavedProposal(target, kept)


def set_aside_current(folder: Path) -> Path | None:
    """Give ``folder``'s ``pending.json`` a name of its own, ``pending-<ns>[-n].json``; None
    when there is none. The caller holds the document's lock. The new name is made with
    ``link``, which fails rather than replace a file another process made meanwhile (even one
    that does not lock), so two proposals never share a name."""
    current = folder / PENDING_PROPOSAL
    try:
        stamp = current.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    for n in range(10_000):
        kept = folder / (f"pending-{stamp}.json" if n == 0 else f"pending-{stamp}-{n}.json")
        try:
            os.link(current, kept)
        except FileExistsError:
            continue
        os.unlink(current)
        fsync_dir(folder)
        return kept
    raise OOError("cannot find a free name to set the saved proposal aside", file=str(current))


def load_pending(path: str | Path) -> Pending:
    p = Path(path)
    source = history_dir(p) / PENDING_PROPOSAL
    if not os.path.lexists(source):
        raise NotFound(f"no saved proposal to review (run `{update_advice(p)}` first)", file=str(p))
    try:
        # never a FIFO's blocking read: anything but a plain file is a damaged proposal
        data = read_regular(source)
    except OSError as exc:
        raise FormatError(
            f"saved proposal is damaged: not a regular file ({exc.strerror or exc})",
            file=str(source),
        ) from None
    try:
        record = json.loads(data.decode("utf-8"))  # ValueError when not UTF-8 / JSON
        if not isinstance(record, dict) or not isinstance(record.get("base_sha256"), str):
            raise ValueError("'base_sha256' must be a string")
        proposal = record.get("proposal")
        candidate = None
        if proposal is not None:  # a candidate saved beside it is never read
            if not isinstance(proposal, dict):
                raise ValueError("'proposal' must be an object")
        elif isinstance(record.get("candidate"), str):
            candidate = Document(record["candidate"], path=p)
        else:
            raise ValueError("it holds neither 'proposal' nor 'candidate'")
    except (ValueError, RecursionError, OOError) as exc:
        reason = exc.message if isinstance(exc, OOError) else str(exc)
        raise FormatError(f"saved proposal is damaged: {reason}", file=str(source)) from None
    run, created = record.get("run"), record.get("created")
    run = run if isinstance(run, dict) else {}
    sealed = is_sealed(record)
    if not sealed:  # evidence this machine did not record vouches for nothing
        run = unvouched_run(run)
    created = created if isinstance(created, str) else ""
    current = p.read_bytes() if p.exists() else b""
    stale = sha256_hex(current) != record["base_sha256"]
    return Pending(candidate, run, created, stale, proposal, source, sealed, sha256_hex(data))


UNSEALED_WARNING = (
    "this proposal was not saved by oo on this machine (or was edited since): its sources show "
    "as unverified, its quotes as not found and its cost as unknown"
)


def unvouched_run(run: dict[str, Any]) -> dict[str, Any]:
    """The run record (as shown in a review) of a proposal this machine did not seal (a cloned
    library, a hand edit): its evidence cannot vouch for itself, so every source shows as
    unseen, every quote as not found and the cost as unknown (``None``), with a warning."""
    warnings = [w for w in run.get("warnings") or [] if isinstance(w, str)]
    return {
        **run,
        "seen_urls": [],
        "quote_hits": {},
        "citations": [],
        "cost_usd": None,
        "warnings": [UNSEALED_WARNING, *warnings],
    }


def discard_pending(path: str | Path) -> None:
    (history_dir(Path(path)) / PENDING_PROPOSAL).unlink(missing_ok=True)
