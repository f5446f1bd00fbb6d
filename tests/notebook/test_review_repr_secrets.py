"""The review widget's plain-text repr (saved in notebooks, shown on GitHub, compared by nbval)
and its warnings line never carry an API key, even when the run's warnings echo one."""

from __future__ import annotations

from pathlib import Path

import ipywidgets as widgets
import pytest

from oo_nb.format.document import Document
from oo_nb.notebook.review_widget import ReviewWidget
from tests.support.tiny_docs import page, source, updated

KEY = "sk-ant-api03-" + "Zq7xW2pL" * 10 + "AA"


def _texts(w: widgets.Widget) -> list[str]:
    out = [w.value] if isinstance(w, widgets.HTML) else []
    for child in getattr(w, "children", ()):
        out += _texts(child)
    return out


def test_a_key_in_the_runs_warnings_is_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    original = page([("aaaaaaa1", "Old [s1]")], [source(1)])
    path = tmp_path / "k.o-o.html"
    path.write_bytes(original.to_bytes())
    run = {"warnings": [f"the agent said {KEY}", f"partly {KEY[13:45]}", "sk-ant-api03-other99"]}
    candidate = updated([("aaaaaaa1", "New [s1]")], [source(1)])
    widget = ReviewWidget(Document.read(path), candidate, run)
    shown = [repr(widget), widget._repr_mimebundle_()["text/plain"], widget.warnings.value]
    for text in shown:
        assert KEY[13:45].lower() not in text.lower(), text
        assert "sk-ant-api03-other99" not in text, text
    assert "3 warning(s)" in repr(widget)  # the warnings are still there, the key cut out
    assert all(KEY[13:45] not in t for t in _texts(widget))
