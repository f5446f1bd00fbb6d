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


def test_the_review_decides_with_it_and_pages_with_the_stock_button(tmp_path: Path) -> None:
    """Deciding buttons blur; "Show more" keeps focus, so Enter pressed again shows the next
    page (test_lab_review_scale), at the price of the notebook's keys after it."""
    from oo_nb.format.document import Document
    from oo_nb.notebook.review_widget import ReviewWidget
    from tests.conftest import corpus_file
    from tests.notebook.test_review_widget import NAME
    from tests.support.review_samples import synthetic_candidate

    doc_path = corpus_file(NAME, tmp_path)
    cand, _ = synthetic_candidate(Document.read(doc_path))
    w = ReviewWidget(doc_path, cand, {})
    view = next(iter(w.hunk_views.values()))
    deciding = [w.accept_all_button, w.reject_all_button, w.preview_button, w.write_button]
    deciding += [view.accept_button, view.reject_button, w.groups[0].toggle]
    assert all(isinstance(b, Button) for b in deciding)
