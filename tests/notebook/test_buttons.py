"""The review's buttons let go of focus when the browser reports a click (issue 27 item 12; the
browser test is tests/browser/test_lab_shortcuts.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from oo_nb.notebook.buttons import Button


def test_a_browser_click_blurs_the_button_before_its_handlers_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events: list[Any] = []
    button = Button(description="Accept")
    monkeypatch.setattr(button, "send", lambda msg, *a, **k: events.append(msg))
    button.on_click(lambda _: events.append("clicked"))
    button._handle_button_msg(button, {"event": "click"}, [])
    assert events == [{"do": "blur"}, "clicked"]


def test_a_click_from_python_sends_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[Any] = []
    button = Button(description="Accept")
    monkeypatch.setattr(button, "send", lambda msg, *a, **k: events.append(msg))
    button.on_click(lambda _: events.append("clicked"))
    button.click()
    assert events == ["clicked"]


def test_the_review_uses_it_for_every_button() -> None:
    import ipywidgets as widgets

    from oo_nb.notebook import review_group, review_hunk, review_widget

    for module in (review_group, review_hunk, review_widget):
        assert "widgets.Button(" not in Path(module.__file__ or "").read_text("utf-8")
    assert issubclass(Button, widgets.Button)
