"""One proposal, one set of decisions: its widget, its Python calls and a terminal review read
and write the same decisions, and once it is written (or discarded) through one of them, every
other refuses to write it again."""

from __future__ import annotations

from pathlib import Path

import pytest

import oo_nb
from oo_nb.errors import ValidationError

HEAT = "heat-pumps-in-europe.o-o.html"


def _proposal(demo: Path) -> oo_nb.Proposal:
    return oo_nb.open(demo / HEAT).update(agent="replay")


def _version(demo: Path) -> int:
    return oo_nb.open(demo / HEAT).version


def test_the_widget_shows_decisions_taken_in_python(demo: Path) -> None:
    proposal = _proposal(demo)
    widget = proposal.review()
    proposal.reject_all()
    assert "0 accepted" in widget.counts.value and " 0 undecided" in widget.counts.value


def test_python_reads_decisions_taken_in_the_widget(demo: Path) -> None:
    proposal = _proposal(demo)
    proposal.review().accept_all_button.click()
    assert set(proposal.changes.decision) == {"accept"}
    assert proposal.write().version == 2


def test_a_proposal_discarded_in_python_is_not_written_by_its_widget(demo: Path) -> None:
    proposal = _proposal(demo)
    widget = proposal.review()
    proposal.reject_all().write()  # discarded: nothing accepted
    widget.accept_all_button.click()
    widget.write_button.click()
    assert _version(demo) == 1
    assert widget.write_button.disabled
    assert "already" in (widget.error.value + widget.status.value).lower()


def test_a_proposal_written_by_its_widget_refuses_python_decisions(demo: Path) -> None:
    proposal = _proposal(demo)
    widget = proposal.review()
    widget.accept_all_button.click()
    widget.write_button.click()
    assert _version(demo) == 2 and not proposal.reviewable
    with pytest.raises(ValidationError, match="already written"):
        proposal.reject_all()
    with pytest.raises(ValidationError, match="already written"):
        proposal.write()


def test_decisions_after_a_terminal_review_are_the_ones_written(demo: Path) -> None:
    proposal = _proposal(demo)
    assert proposal.review_in_terminal(reject_all=True, color=False)
    assert "7 rejected" in proposal.text()
    proposal.accept_all()  # a second thought, in Python
    assert proposal.write().version == 2


def test_a_terminal_review_decides_for_the_widget_too(demo: Path) -> None:
    proposal = _proposal(demo)
    widget = proposal.review()
    proposal.review_in_terminal(accept_all=True, color=False)
    assert set(proposal.changes.decision) == {"accept"}
    assert " 0 undecided" in widget.counts.value
