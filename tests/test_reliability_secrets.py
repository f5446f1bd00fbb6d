"""Secrets: a marker API key must appear nowhere oo_nb writes, prints, logs or raises."""

from __future__ import annotations

import logging
from pathlib import Path

from oo_nb.testing import leaks

from .reliability_helpers import run_part


def test_marker_key_never_leaks(tmp_path: Path) -> None:
    rows = run_part(6, tmp_path)
    assert all(r.result == 0 for name, r in rows.items() if name.startswith("key found in"))
    assert isinstance(rows["requests that carried the marker key"].result, int)
    assert rows["requests that carried the marker key"].result > 0


def test_the_scanners_would_see_a_leak(tmp_path: Path) -> None:
    key = leaks.marker_key()
    needles = leaks._needles(key)
    masked = key[:12] + "..." + key[19:40]  # a partly masked key still shows its random middle
    assert leaks._count(f"Authorization: Bearer {key}", needles) >= 1
    assert leaks._count(masked, needles) >= 1
    (tmp_path / ".oo-history" / "x").mkdir(parents=True)
    (tmp_path / ".oo-history" / "x" / "pending.json").write_text(f'{{"key": "{key}"}}')
    assert leaks._scan_files(tmp_path, needles)["pending"] == 2
    with leaks._debug_logging() as logs:
        logging.getLogger("anthropic").debug("headers %s", {"x-api-key": key})
    assert any(leaks._count(line, needles) for line in logs.lines)
