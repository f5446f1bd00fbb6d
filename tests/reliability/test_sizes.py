"""Size limits at reduced size: a large document, a large source cache, a large image."""

from __future__ import annotations

from pathlib import Path

from tests.support.reliability_helpers import run_part


def test_large_inputs_do_not_crash(tmp_path: Path) -> None:
    rows = run_part(7, tmp_path)
    crashes = {k: r.result for k, r in rows.items() if k.endswith("crash or error")}
    assert len(crashes) == 3 and set(crashes.values()) == {0}
