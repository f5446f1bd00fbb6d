"""The review widget's text repr says what Write back did: "written" only when the file was
written, not when nothing was accepted and the file is unchanged."""

from __future__ import annotations

from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.notebook.review_widget import ReviewWidget
from tests.support.tiny_docs import page, source, updated


def _widget(tmp_path: Path) -> tuple[ReviewWidget, Path]:
    path = tmp_path / "r.o-o.html"
    path.write_bytes(page([("aaaaaaa1", "Old [s1]")], [source(1)]).to_bytes())
    candidate = updated([("aaaaaaa1", "New [s1]")], [source(1)])
    return ReviewWidget(Document.read(path), candidate), path


def test_all_rejected_is_not_reported_as_written(tmp_path: Path) -> None:
    widget, path = _widget(tmp_path)
    before = path.read_bytes()
    widget._reject_all()
    widget.write_back()
    assert path.read_bytes() == before
    text = repr(widget)
    assert "written:" not in text, text
    assert "unchanged" in text, text


def test_accepted_and_written_says_so(tmp_path: Path) -> None:
    widget, path = _widget(tmp_path)
    widget._accept_all()
    widget.write_back()
    assert "written: r.o-o.html (version 2)" in repr(widget)
    assert Document.read(path).manifest.version == 2
