"""OO_TODAY pins today's date (and noon UTC as the time) for demos and nbval."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from oo_nb.errors import ValidationError
from oo_nb.store import clock


def test_unset_is_the_real_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OO_TODAY", raising=False)
    assert clock.today() == date.today()
    assert clock.now().tzinfo is UTC
    assert abs((clock.now() - datetime.now(UTC)).total_seconds()) < 60


def test_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OO_TODAY", "2026-12-01")
    assert clock.today() == date(2026, 12, 1)
    assert clock.now() == datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_bad_value_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OO_TODAY", "yesterday")
    with pytest.raises(ValidationError, match="OO_TODAY must be a date YYYY-MM-DD"):
        clock.today()
