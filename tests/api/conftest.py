"""A fresh demo library in a temp folder, seen on the day its research was recorded, with no
API key: updates replay the recorded runs, offline and free."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from oo_nb.demo import demo_today, install_demo


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("OO_TODAY", demo_today())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OO_AGENT", raising=False)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "lib"
    install_demo(folder)
    yield folder
