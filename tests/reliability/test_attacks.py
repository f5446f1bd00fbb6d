"""Part 8 of the reliability table: every attack of the second hardening round stays fixed."""

from __future__ import annotations

from pathlib import Path

from tests.support.figures import failures
from tests.support.reliability import PARTS, QUICK, run


def test_every_attack_row_passes(tmp_path: Path) -> None:
    rows = run([8], QUICK, workdir=tmp_path)
    assert not failures(rows), [f"{r.measure}: {r.result}" for r in failures(rows)]
    assert PARTS[8][0] == "8 attack"
