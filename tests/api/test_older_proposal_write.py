"""Writing a proposal discards its own saved file and never another's: after
``update(force=True)`` set the first proposal aside and saved a second, writing the first leaves
the second saved (refused on write, as made on the older file; reviewable with force)."""

from __future__ import annotations

from pathlib import Path

import pytest

import oo_nb
from oo_nb.api.proposal import ProposalOutdated
from oo_nb.api.saved import saved_proposals

HEAT = "heat-pumps-in-europe.o-o.html"


def _saved(doc: Path) -> list[str]:
    return [info.name for info in saved_proposals(doc)]


def test_writing_an_older_proposal_keeps_the_newer_one_saved(demo: Path) -> None:
    doc = demo / HEAT
    older = oo_nb.open(doc).update(agent="replay")
    newer = oo_nb.open(doc).update(agent="replay", force=True)  # the older one is set aside
    assert len(_saved(doc)) == 2
    assert older.accept_all().write().version == 2
    assert _saved(doc) == ["pending.json"]  # the older one's own file went, the newer one's stays
    with pytest.raises(ProposalOutdated):
        oo_nb.open(doc).proposal()
    assert oo_nb.open(doc).proposal(force=True).reviewable
    with pytest.raises(ProposalOutdated, match="changed since this proposal was made"):
        newer.accept_all().write()  # made on the file as it was before the older one's write
    assert _saved(doc) == ["pending.json"] and oo_nb.open(doc).version == 2


def test_an_older_widget_writing_keeps_the_newer_proposal_saved(demo: Path) -> None:
    doc = demo / HEAT
    old_widget = oo_nb.open(doc).update(agent="replay").review()
    new_widget = oo_nb.open(doc).update(agent="replay", force=True).review()
    old_widget.accept_all_button.click()
    old_widget.write_button.click()
    assert oo_nb.open(doc).version == 2
    new_widget.accept_all_button.click()
    new_widget.write_button.click()
    assert "changed since this proposal was made" in new_widget.error.value
    assert _saved(doc) == ["pending.json"]
    assert oo_nb.open(doc).proposal(force=True).reviewable
