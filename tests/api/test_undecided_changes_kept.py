"""Writing some accepted changes and leaving the rest undecided keeps the undecided ones: the
research was paid for, and an unanswered change is no rejection. The saved proposal stays, and
``doc.proposal(force=True)`` reviews what is left against the version just written."""

from __future__ import annotations

from pathlib import Path

import oo_nb
from oo_nb.api.saved import saved_proposals

HEAT = "heat-pumps-in-europe.o-o.html"


def test_undecided_changes_stay_saved_after_writing_the_accepted_one(demo: Path) -> None:
    doc = demo / HEAT
    proposal = oo_nb.open(doc).update(agent="replay")
    assert proposal.accept("a1").write().version == 2
    assert [info.name for info in saved_proposals(doc)] == ["pending.json"]
    assert any("6 undecided change(s) not written" in w for w in proposal.warnings)
    assert 'id="tariffs"' not in doc.read_text(encoding="utf-8")
    rest = oo_nb.open(doc).proposal(force=True)
    assert "tariffs" in set(rest.changes.section)  # the new section, undecided before
    assert rest.accept_all().write().version == 3
    assert 'id="tariffs"' in doc.read_text(encoding="utf-8")
    assert saved_proposals(doc) == []


def test_the_widget_says_the_undecided_changes_are_kept(demo: Path) -> None:
    doc = demo / HEAT
    widget = oo_nb.open(doc).update(agent="replay").review()
    widget.view("a1").accept_button.click()
    widget.write_button.click()
    assert "Wrote version 2" in widget.status.value
    assert "6 undecided change(s) not written, kept for a later review" in widget.status.value
    assert [info.name for info in saved_proposals(doc)] == ["pending.json"]


def test_a_proposal_decided_in_full_leaves_nothing_saved(demo: Path) -> None:
    doc = demo / HEAT
    proposal = oo_nb.open(doc).update(agent="replay")
    proposal.reject_all().accept("a1").accept("src:s6").write()
    assert saved_proposals(doc) == []
    assert not [w for w in proposal.warnings if "undecided" in w]
