"""``oo history`` flags a kept version whose snapshot is missing or damaged, instead of listing
it as if it could be restored (``%oo history``: tests/notebook/test_magics.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.store.store import read_history
from tests.support.lost_samples import three_writes


def test_missing_and_damaged_snapshots_are_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = three_writes(tmp_path)
    entries = read_history(path)
    assert entries[0].snapshot is not None and entries[1].snapshot is not None
    entries[0].snapshot.unlink()
    entries[1].snapshot.write_bytes(b"not what was kept")
    assert main(["history", str(path)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line[:1].isdigit()}
    assert "replaced by edit 5 [snapshot missing]" in rows["1"]
    assert "replaced by edit 6 [snapshot damaged]" in rows["2"]
    assert "[snapshot" not in rows["3"] and "(current)" in rows["4"]
    assert f"seq 1: snapshot missing ({entries[0].snapshot})" in out
    assert "seq 2: snapshot damaged" in out and "seq 3: snapshot" not in out
