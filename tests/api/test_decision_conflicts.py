"""Decisions that disagree, in the Python API: a new source rejected while accepted text cites
it. ``write()`` asks before writing, as the widget and the terminal review do (issue 27 #9):
it raises naming both decisions and the calls that settle them, and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

import oo_nb
from oo_nb.api.proposal import DecisionConflict

HEAT = "heat-pumps-in-europe.o-o.html"
# the demo's recorded run: s6 is new, and paragraphs a1 and a2 cite it
SOURCE, CITING = "src:s6", ("a1", "a2")


def _conflicting(demo: Path) -> oo_nb.Proposal:
    return oo_nb.open(demo / HEAT).update(agent="replay").accept_all().reject(SOURCE)


def test_write_refuses_a_rejected_source_that_accepted_text_cites(demo: Path) -> None:
    before = (demo / HEAT).read_bytes()
    proposal = _conflicting(demo)
    with pytest.raises(DecisionConflict) as caught:
        proposal.write()
    said = str(caught.value)
    assert "You rejected the new source s6" in said and "cite it" in said
    # the fixes as typed in Python: keep the source, or reject the text citing it
    assert 'proposal.accept("src:s6")' in said
    assert 'proposal.reject("a1").reject("a2")' in said
    assert [c.citing for c in caught.value.conflicts] == [CITING]
    assert (demo / HEAT).read_bytes() == before  # nothing written
    assert proposal.reviewable and oo_nb.open(demo / HEAT).proposal().reviewable


def test_rejecting_the_citing_text_settles_it(demo: Path) -> None:
    proposal = _conflicting(demo)
    for change in CITING:
        proposal.reject(change)
    assert proposal.write().version == 2
    text = (demo / HEAT).read_text()
    assert "[s6]" not in text and "Installer survey" not in text


def test_accepting_the_source_settles_it(demo: Path) -> None:
    assert _conflicting(demo).accept(SOURCE).write().version == 2
    assert "[s6]" in (demo / HEAT).read_text()


def test_the_proposal_text_names_the_conflict_before_writing(demo: Path) -> None:
    proposal = _conflicting(demo)
    lines = [line for line in proposal.text().splitlines() if "before write()" in line]
    assert len(lines) == 1 and "source s6" in lines[0] and 'proposal.reject("a1")' in lines[0]
    proposal.accept(SOURCE)
    assert "before write()" not in proposal.text()
