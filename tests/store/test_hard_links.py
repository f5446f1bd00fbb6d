"""Issue 28, item 3: a file oo writes in place with a second name (a hard link to a document)
is refused, naming it; the other document keeps its bytes. A lock holding what oo did not write
is not cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.errors import OOError
from oo_nb.store.research_claim import claim_research
from tests.support.attacks_data import HARD_LINKED, hard_link_attack


@pytest.mark.parametrize("name", list(HARD_LINKED))
def test_a_hard_linked_file_is_refused_and_the_other_document_kept(
    tmp_path: Path, name: str
) -> None:
    ok, before, after, said = hard_link_attack(tmp_path, name)
    assert after == before
    assert not ok
    assert Path(name).name in said and "hard link" in said


@pytest.mark.parametrize("lock", ["lock", "research.lock"])
def test_a_lock_holding_what_oo_did_not_write_is_not_cut(tmp_path: Path, lock: str) -> None:
    from tests.support.attacks_data import run_oo, two_documents

    mine, _ = two_documents(tmp_path / "lib")
    planted = mine.parent / ".oo-history" / mine.name / lock
    planted.write_text("my notes, not a lock\n")
    if lock == "lock":
        code, said = run_oo("contract", str(mine), "--set", "budget", "3")
        assert code != 0 and "did not write" in said
    else:
        with pytest.raises(OOError, match="did not write"):
            claim_research(mine)
    assert planted.read_text() == "my notes, not a lock\n"


def test_a_stale_holders_note_is_written_over(tmp_path: Path) -> None:
    """A crashed holder leaves its note: the next writer takes the lock as before."""
    from tests.support.attacks_data import run_oo, two_documents

    mine, _ = two_documents(tmp_path / "lib")
    lock = mine.parent / ".oo-history" / mine.name / "lock"
    lock.write_text("pid 99999 on host-1 (contract edit) since 2026-12-01T10:00:00+00:00")
    assert run_oo("contract", str(mine), "--set", "budget", "3")[0] == 0
    assert lock.read_text() == ""
