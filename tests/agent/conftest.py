"""Fixtures the update tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.agent_helpers import MARKER, start_mock
from tests.support.mock_api import MockAPI
from tests.support.mock_scenarios import research_scenario


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[MockAPI]:
    """The loopback mock API answering a research scenario, with a (fake) key set."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    mock = start_mock(research_scenario(with_image=False))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    yield mock
    mock.stop()
