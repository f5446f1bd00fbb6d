"""Saved proposals: what an update saves for review, and the review's way back to a candidate.

``pending.json`` is untrusted input: anyone who can write the history folder can write one. So
it stores the proposal's data, not a document to write: the validated ``submit_proposal`` input
(before the image placeholders are put back, as the model wrote it), the image sources those
placeholders stand for, the day and time the update ran, the seed of its new paragraph ids, the run's figures and the
images it downloaded (their prepared bytes, so a review downloads nothing). ``open_review`` rebuilds the
candidate from the document as it is now and that data, through ``validate_proposal`` and
``build_candidate``: the agent's own checks and sanitiser. A hand-edited file can at most propose
what a model could, and an update never writes the contract's budget or anything outside the
article and the four blocks.

Files saved before this hold a whole candidate document. It is reviewed only if it stays within
what an update changes (``format.update_scope``: not one byte outside the article and the
blocks, no block value the agent never writes, no article HTML the sanitiser would remove that
the document did not already hold); otherwise the review is refused, naming each change.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.context import IMAGE_PLACEHOLDER, restore_images
from oo_nb.agent.images import MAX_DOWNLOAD_BYTES, ImageRejected
from oo_nb.agent.proposal import LIMITS, Proposal, validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.errors import AgentError, ConflictError, FormatError, ValidationError
from oo_nb.format.document import Document
from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.format.update_scope import scope_problems
from oo_nb.skin import saved_advice, update_advice
from oo_nb.store.store import load_pending

__all__ = [
    "PROPOSAL_FORMAT",
    "ProposalRefused",
    "Review",
    "StaleProposal",
    "open_review",
    "proposal_data",
    "rebuild_candidate",
]

PROPOSAL_FORMAT = 2  # 1 (never written as such): a whole candidate document
_PLACEHOLDER = re.compile(rf"{re.escape(IMAGE_PLACEHOLDER)}\d+")
_MAX_SHOWN = 8  # problems named in a refusal


class ProposalRefused(ValidationError):
    """A saved proposal that goes beyond what an update may change: nothing is reviewed."""


class StaleProposal(ConflictError):
    """The document changed since the proposal was made (review it with ``force``)."""

    def __init__(self, message: str, *, file: str, created: str, rebuilt: bool) -> None:
        super().__init__(message, file=file)
        self.created = created
        self.rebuilt = rebuilt


@dataclass(frozen=True)
class Review:
    """A saved proposal ready to review: the document as read now (``expected`` are its bytes:
    a write must find the file still holding them) and the candidate to compare it with."""

    path: Path
    original: Document
    expected: bytes
    candidate: Document
    run: dict[str, Any]  # the run's record, for the review's summary and warnings
    created: str
    stale: bool  # the document changed since the proposal was made
    rebuilt: bool  # False: an older file's candidate, checked but not rebuilt
    saved_sha256: str = ""  # the saved file's bytes: writing the review discards that file only


def proposal_data(
    proposal: Proposal,
    image_refs: dict[str, str],
    *,
    today: date,
    now: datetime,
    run: RunInfo,
    candidate: Candidate,
    downloads: bool,
    pid_seed: str,
) -> dict[str, Any]:
    """What ``pending.json`` stores to rebuild ``candidate`` (``proposal`` as validated, before
    ``restore_images``; ``downloads``: whether the run had an image downloader)."""
    used = {m for s in proposal.sections for m in _PLACEHOLDER.findall(s.html)}
    return {
        "format": PROPOSAL_FORMAT,
        "proposal": proposal.to_json(),
        "image_refs": {k: v for k, v in image_refs.items() if k in used},
        "today": today.isoformat(),
        "now": now.isoformat(),
        "run": run.to_record(),
        "downloads": downloads,
        "pid_seed": pid_seed,
        "images": {
            url: base64.b64encode(data).decode("ascii")
            for url, data in candidate.images_fetched.items()
        },
    }


@dataclass(frozen=True)
class _Saved:
    proposal: Any
    image_refs: dict[str, str]
    today: date
    now: datetime
    run: RunInfo
    downloads: bool
    images: dict[str, bytes]
    pid_seed: str

    def fetcher(self) -> Callable[[str], bytes] | None:
        if not self.downloads:
            return None

        def fetch(url: str) -> bytes:
            try:
                return self.images[url]
            except KeyError:
                raise ImageRejected("not downloaded when the proposal was made") from None

        return fetch


def _read(data: dict[str, Any]) -> _Saved:
    """The stored fields, type-checked (``ValueError`` names the one that is wrong)."""
    if data.get("format") != PROPOSAL_FORMAT:
        raise ValueError(f"proposal.format: {data.get('format')!r} is not {PROPOSAL_FORMAT}")
    refs = data.get("image_refs", {})
    if not isinstance(refs, dict) or not all(
        isinstance(k, str) and _PLACEHOLDER.fullmatch(k) and isinstance(v, str)
        for k, v in refs.items()
    ):
        raise ValueError("proposal.image_refs: must map oo-image:N to image sources")
    images = data.get("images", {})
    if not isinstance(images, dict) or len(images) > LIMITS["images"]:
        raise ValueError(f"proposal.images: must map at most {LIMITS['images']} URLs to images")
    decoded: dict[str, bytes] = {}
    for url, text in images.items():
        if not isinstance(text, str) or len(text) > MAX_DOWNLOAD_BYTES * 4 // 3 + 4:
            raise ValueError("proposal.images: each image must be base64 text of a usable size")
        try:
            decoded[str(url)] = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("proposal.images: an image is not base64") from None
    downloads = data.get("downloads", False)
    if not isinstance(downloads, bool):
        raise ValueError("proposal.downloads: must be true or false")
    seed = data.get("pid_seed")
    if not isinstance(seed, str) or not re.fullmatch(r"[0-9a-f]{8,64}", seed):
        raise ValueError("proposal.pid_seed: must be 8 to 64 hex digits")
    today, now = data.get("today"), data.get("now")
    if not isinstance(today, str) or not isinstance(now, str):
        raise ValueError("proposal.today and proposal.now: must be ISO dates")
    when = datetime.fromisoformat(now)  # ValueError when not a date
    return _Saved(
        data.get("proposal"),
        refs,
        date.fromisoformat(today),
        when,
        RunInfo.from_record(data.get("run")),
        downloads,
        decoded,
        seed,
    )


def rebuild_candidate(
    doc: Document, data: dict[str, Any], *, source: str = "", sealed: bool = False
) -> Candidate:
    """The candidate a saved proposal makes of ``doc``, built as the update built it: the same
    validation, sanitiser and checks. Unless ``sealed`` (saved by oo on this machine, unchanged
    since), the run's evidence counts for nothing: no URL seen, no quote found, cost unknown.
    Raises ``FormatError`` for a damaged record and ``ProposalRefused`` for a proposal the agent
    path would not accept."""
    try:
        saved = _read(data)
    except (ValueError, TypeError) as exc:
        raise FormatError(f"saved proposal is damaged: {exc}", file=source or doc.file) from None
    if not sealed:
        saved = replace(saved, run=_unvouched(saved.run))
    try:
        proposal = validate_proposal(saved.proposal)
    except AgentError as exc:
        raise ProposalRefused(
            f"saved proposal refused: {exc}; nothing written", file=source or doc.file
        ) from None
    proposal = restore_images(proposal, saved.image_refs)
    try:
        return build_candidate(
            doc,
            proposal,
            saved.run,
            today=saved.today,
            fetch_image=saved.fetcher(),
            now=saved.now,
            pid_seed=saved.pid_seed,
        )
    except AgentError as exc:
        raise ProposalRefused(
            f"saved proposal cannot be applied to the document as it is now: {exc.message}; "
            "nothing written",
            file=source or doc.file,
        ) from None


def _unvouched(run: RunInfo) -> RunInfo:
    return replace(run, seen_urls=set(), quote_hits={}, citations=[], cost_known=False)


def open_review(path: str | Path, *, force: bool = False) -> Review:
    """Read the saved proposal of ``path`` and the document as it is now, and make the candidate
    to review: rebuilt from the proposal's data, or an older file's candidate once checked.
    Raises ``NotFound`` (no proposal), ``FormatError`` (a damaged file), ``StaleProposal`` (the
    document changed since, and not ``force``) or ``ProposalRefused``."""
    p = Path(path)
    pending = load_pending(p)
    source = str(pending.source or p)
    rebuilt = pending.proposal is not None
    if pending.stale and not force:
        raise StaleProposal(
            "changed since this proposal was made",
            file=str(p),
            created=pending.created,
            rebuilt=rebuilt,
        )
    expected = p.read_bytes()
    original = Document.parse(expected, path=p)
    if original.kind != "document":
        raise ProposalRefused("is not a document: a proposal cannot be reviewed here", file=str(p))
    run = dict(pending.run)
    if pending.proposal is not None:
        built = rebuild_candidate(original, pending.proposal, source=source, sealed=pending.sealed)
        candidate = built.document.with_path(p)
        run.update(_rebuilt_notices(run, built))
    elif pending.candidate is not None:
        candidate = pending.candidate.with_path(p)
    else:  # load_pending never returns this
        raise FormatError("saved proposal is damaged: nothing to review", file=source)
    problems = scope_problems(original, candidate)
    if problems:
        raise ProposalRefused(_refusal(problems, p), file=source)
    return Review(
        p,
        original,
        expected,
        candidate,
        run,
        pending.created,
        pending.stale,
        rebuilt,
        pending.sha256,
    )


def _rebuilt_notices(run: dict[str, Any], built: Candidate) -> dict[str, Any]:
    """The warnings to show: the run's, and those of the rebuild (the candidate's own)."""
    saved = [w for w in run.get("warnings") or [] if isinstance(w, str)]
    fresh = list(built.warnings)
    if built.unverified:
        fresh.append(
            "unverified sources (URL not seen in this run's search or fetch results): "
            + ", ".join(built.unverified)
        )
    return {"warnings": list(dict.fromkeys([*saved, *fresh])), "version": built.version}


def _refusal(problems: list[str], path: Path) -> str:
    shown = problems[:_MAX_SHOWN]
    more = len(problems) - len(shown)
    return (
        "saved proposal refused, nothing written: it goes beyond what an update changes: "
        + "; ".join(shown)
        + (f"; and {more} more" if more > 0 else "")
        + f". Delete it with `{saved_advice(path, 'discard', PENDING_PROPOSAL)}`, "
        f"or run `{update_advice(path)}` again"
    )
