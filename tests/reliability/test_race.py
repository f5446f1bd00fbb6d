"""Concurrency at reduced size: two processes racing on one document."""

from __future__ import annotations

from pathlib import Path

from tests.support.reliability_helpers import run_part


def test_racing_writers_lose_no_update_and_losers_get_clear_errors(tmp_path: Path) -> None:
    rows = run_part(2, tmp_path)
    assert rows["lost updates"].result == 0
    assert rows["errors other than Conflict/Locked"].result == 0
    assert "locked by pid" in str(rows["… message shown"].result)
