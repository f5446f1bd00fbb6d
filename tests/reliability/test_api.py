"""API fault matrix at full size (it is small): every fault through `oo update --force --yes`.
Spend is priced from the usage the mock actually delivered, not from the tool's own figure."""

from __future__ import annotations

from pathlib import Path

from tests.support.reliability_helpers import run_part


def test_api_faults_write_nothing_and_stay_in_budget(tmp_path: Path) -> None:
    rows = run_part(5, tmp_path)
    assert rows["writes on failure"].result == 0
    assert rows["spend above budget (usage sent)"].result == 0
    # Each failure tells the user what happened, what it cost and that nothing was written.
    for name in (
        "529 overloaded",
        "timeout (no answer)",
        "connection reset",
        "endless pause_turn",
        "refusal",
    ):
        message = str(rows[name].result)
        assert (
            "nothing written" in message
            and "cost so far $" in message
            and "nothing was written" in message
        ), name
    assert str(rows["429 once, then a good answer"].result).startswith("[written")
    # The budget runs out after some requests were answered (and paid): the run stops there.
    mid = rows["budget runs out mid-run"]
    assert mid.passed and int(str(mid.count).split()[0]) >= 2
    assert "budget reached" in str(mid.result) and "nothing was written" in str(mid.result)
    # The API billing more than any bound is an overspend, on its own row: seen, not written.
    over = rows["spend above budget: API reported more usage than sent"]
    assert over.passed
    assert "(expected); detected; document unchanged" in str(over.result)
    assert "kept for review" in str(rows["API reports more usage than sent"].result)
