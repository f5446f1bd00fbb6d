"""Crash safety at reduced size: writers killed with SIGKILL, disk-full errors injected."""

from __future__ import annotations

from pathlib import Path

from tests.support.reliability_helpers import run_part


def test_killed_writers_leave_old_or_new_bytes_and_intact_history(tmp_path: Path) -> None:
    rows = run_part(1, tmp_path)
    assert rows["files neither old nor new bytes"].result == 0
    assert rows["history damage (log, sha256)"].result == 0
    # Every version replaced during the run was snapshotted before it was replaced.
    replaced = rows["replaced versions without their snapshot"]
    assert isinstance(replaced.count, int) and replaced.count >= 10 and replaced.result == 0
    # The kills really landed inside write-backs, not only between them.
    inside = rows["killed inside write_document"].result
    assert isinstance(inside, int) and inside >= 10
    assert rows["… reported as bare OSError, not OOError"].result == 0
