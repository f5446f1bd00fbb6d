"""Reliability part 8 (attacks, round two): the pending attacks. Each row counts the breaks found."""

from __future__ import annotations

from pathlib import Path

from tests.support.figures import Figure

__all__ = ["attacks"]


def attacks(workdir: Path) -> list[Figure]:
    return []
