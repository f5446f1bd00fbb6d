"""API fault matrix at full size (it is small): every fault through `oo update --force --yes`."""

from __future__ import annotations

from pathlib import Path

from .reliability_helpers import run_part


def test_api_faults_write_nothing_and_stay_in_budget(tmp_path: Path) -> None:
    rows = run_part(5, tmp_path)
    assert rows["writes on failure"].result == 0
    assert rows["spend above budget"].result == 0
    # Each failure tells the user what happened, what it cost and that nothing was written.
    for name in ("529 overloaded", "timeout (no answer)", "connection reset", "endless pause_turn", "refusal"):
        message = str(rows[name].result)
        assert "nothing written" in message and "cost so far $" in message and "nothing was written" in message, name
    assert str(rows["429 once, then a good answer"].result).startswith("[written")
    assert "kept for review" in str(rows["API reports more usage than sent"].result)
