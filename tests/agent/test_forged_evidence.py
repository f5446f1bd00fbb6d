"""Issue 28 item 8: a saved proposal cannot vouch for itself. Its run record (URLs seen, quotes
found, cost) counts only under this machine's seal (``store.seal``, key outside the library)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from oo_nb.store.proposals import list_proposals
from oo_nb.store.seal import DATA_DIR_ENV, KEY_FILE
from oo_nb.store.store import history_dir
from tests.support.attacks_evidence import forged_evidence_review


def test_a_forged_run_record_vouches_for_nothing(tmp_path: Path) -> None:
    verified, found, cost = forged_evidence_review(tmp_path / "forged", forge=True)
    assert (verified, found, cost) == (False, False, None)  # cost unknown, not 0
    listed = list_proposals(tmp_path / "forged" / "yc-w26-batch.o-o.html")
    assert listed[0].cost_usd is None


def test_a_genuine_proposal_keeps_its_evidence(tmp_path: Path) -> None:
    assert forged_evidence_review(tmp_path, forge=False) == (True, True, 0.25)


def test_the_key_lives_outside_the_library_readable_only_by_its_owner(tmp_path: Path) -> None:
    forged_evidence_review(tmp_path / "lib", forge=False)
    key = Path(os.environ[DATA_DIR_ENV]) / KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not list((tmp_path / "lib").rglob(KEY_FILE))
    saved = json.loads(
        (history_dir(tmp_path / "lib" / "yc-w26-batch.o-o.html") / "pending.json").read_text()
    )
    assert key.read_bytes().hex() not in json.dumps(saved)


def test_a_proposal_from_another_machine_shows_as_unverified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # saved under one key (a cloned library), reviewed under another: genuine elsewhere only
    forged_evidence_review(tmp_path / "a", forge=False)
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "other-machine"))
    from oo_nb.agent.pending import open_review

    review = open_review(tmp_path / "a" / "yc-w26-batch.o-o.html")
    cache = review.candidate.block_json("oo-source-cache")
    assert not any(
        s.get("verified")
        for s in cache["sources"]
        if s.get("url", "").startswith("https://made-up")
    )
    assert any("not saved by oo on this machine" in w for w in review.run["warnings"])
