"""Shared by tests/test_reliability_*.py: run one part of the reliability table at its reduced
size and check every figure against its target."""

from __future__ import annotations

from pathlib import Path

from tests.support.figures import Figure, failures, render_table
from tests.support.reliability import QUICK, run


def run_part(part: int, tmp_path: Path) -> dict[str, Figure]:
    rows = run([part], QUICK, workdir=tmp_path, seed=1)
    assert not failures(rows), "\n" + render_table(rows, width=200)
    assert not any(r.measure.startswith("not run") for r in rows), "\n" + render_table(
        rows, width=200
    )
    return {r.measure: r for r in rows}
