"""The research claim, held for as long as it must be: a second look for a proposal saved
between the gate and the claim (else two paid runs), the claim kept until the proposal is saved
or written (a terminal review then asks about the saved proposal: tests/agent/test_update.py),
and the holder sentence another run is shown."""

from __future__ import annotations

import errno
import fcntl
import os
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from oo_nb.agent import run as agent_run
from oo_nb.agent.run import UpdateOptions, UpdateResult, prepare_update, write_result
from oo_nb.errors import OOError
from oo_nb.store import proposals, research_claim
from oo_nb.store.research_claim import RESEARCH_LOCK, ResearchClaim, claim_research
from oo_nb.store.store import history_dir
from tests.support.agent_helpers import copy_doc


class _NoResearch:
    """A backend that fails the test if research starts."""

    name = "anthropic"
    model = "claude-test"

    def new_run(self, budget_usd: float) -> Any:
        raise AssertionError("research started: it was paid for twice")

    def run(self, *a: Any, **kw: Any) -> Any:
        raise AssertionError("research started: it was paid for twice")


def _busy(path: Path) -> bool:
    """Is the research of ``path`` claimed (by someone else than this look)?"""
    claim = claim_research(path)
    if isinstance(claim, str):
        return True
    claim.release()
    return False


def test_a_proposal_saved_between_the_gate_and_the_claim_is_not_researched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = copy_doc(tmp_path, "ai-model-landscape.o-o.html")
    real_claim, real_awaiting = research_claim.claim_research, proposals.awaiting_review
    saved: list[bool] = []

    def claim_as_another_run_saves(p: Path, action: str = "research") -> Any:
        saved.append(True)  # the other run saved its proposal and let go just before
        return real_claim(p, action)

    def awaiting(p: Path) -> Any:
        if saved:
            return SimpleNamespace(made="2026-01-02T03:04:05+00:00", damaged="", stale=False)
        return real_awaiting(p)

    monkeypatch.setattr(research_claim, "claim_research", claim_as_another_run_saves)
    monkeypatch.setattr(proposals, "awaiting_review", awaiting)
    result = prepare_update(path, UpdateOptions(), backend=_NoResearch())
    assert saved and result.status == "awaiting", result.message
    assert "awaiting review since 2026-01-02" in result.message
    assert result.claim is None and not _busy(path)  # and the claim was let go


def _held_result(path: Path) -> UpdateResult:
    claim = claim_research(path)
    assert isinstance(claim, ResearchClaim)
    result = UpdateResult(path, "proposed", "proposal v2", b"", "anthropic", "m", 1.0)
    result.claim = claim
    return result


@pytest.mark.parametrize("yes", [False, True], ids=["save", "write"])
def test_the_claim_is_held_until_the_proposal_is_saved_or_written(
    yes: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = copy_doc(tmp_path)
    seen: list[bool] = []

    def save(result: UpdateResult, *, yes: bool, auto: bool | None) -> UpdateResult:
        seen.append(_busy(path))
        return result

    monkeypatch.setattr(agent_run, "_write_result", save)
    result = write_result(_held_result(path), yes=yes)
    assert seen == [True], "the claim was let go before the proposal was saved"
    assert result.claim is None and not _busy(path)


def _lock(tmp_path: Path) -> tuple[Path, Path]:
    doc = tmp_path / "tides.o-o.html"
    doc.write_text("not parsed here")
    history_dir(doc).mkdir(parents=True)
    return doc, history_dir(doc) / RESEARCH_LOCK


def _holder(doc: Path, lock: Path, note: bytes) -> str:
    lock.write_bytes(note)
    fd = os.open(lock, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # "another run" holds it
    try:
        holder = claim_research(doc)
    finally:
        os.close(fd)
    assert isinstance(holder, str)
    return holder


def test_the_holder_sentence(tmp_path: Path) -> None:
    doc, lock = _lock(tmp_path)
    first = claim_research(doc)
    assert isinstance(first, ResearchClaim)
    try:
        note = lock.read_text()
        assert re.fullmatch(rf"pid {os.getpid()} on \S+ \(research\) since 20\d\d-\S+", note), note
    finally:
        first.release()
    # what another run is told: at most 512 bytes, undecodable bytes and controls made harmless
    assert _holder(doc, lock, b"\xff" + b"a" * 600) == "\ufffd" + "a" * 511
    assert _holder(doc, lock, b"pid 7 \x1b[2J") == "pid 7 ?[2J"
    assert _holder(doc, lock, b"") == "another process"


def test_a_lock_holding_something_else_is_named(tmp_path: Path) -> None:
    doc, lock = _lock(tmp_path)
    lock.write_text("my own notes")
    with pytest.raises(OOError, match=re.escape(str(lock))):
        claim_research(doc)
    assert lock.read_text() == "my own notes"


def test_a_failed_holder_note_raises_its_own_error_and_lets_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, _ = _lock(tmp_path)

    def full(*a: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(research_claim, "write_holder_note", full)
    with pytest.raises(OSError, match="No space left"):
        claim_research(doc)
    monkeypatch.undo()
    claim = claim_research(doc)  # the failed claim holds nothing
    assert isinstance(claim, ResearchClaim)
    claim.release()
