"""What a notebook saves of a review widget when it saves widget state (JupyterLab's "Save
widget state automatically", nbclient's ``store_widget_state``): every model's whole state. The
parts whose layout never changes share one layout and one style model (per change, per group,
per widget): a shown
change was 13 widgets with 22 layout and style models of their own, and the widget state of the
quickstart notebook (its two reviews) 293 KB of its 415 KB saved, layouts 140 KB of that. The plain-text repr, which
saved notebooks show untrusted, is unchanged by this (tests/notebook/test_review_repr_*)."""

from __future__ import annotations

import json
from pathlib import Path

import ipywidgets as widgets
from ipywidgets.widgets import widget as widget_module

from oo_nb.format.document import Document
from oo_nb.notebook.review_widget import ReviewWidget
from tests.conftest import corpus_file
from tests.support.review_samples import synthetic_candidate


def _saved_state(models: list[widgets.Widget]) -> dict[str, dict[str, object]]:
    """The widget state a notebook's metadata holds for ``models`` (model name and state)."""
    return {
        m.model_id: {"model_name": m._model_name, "state": m.get_state()}
        for m in models
        if m.comm is not None
    }


def test_a_shown_change_saves_few_models(tmp_path: Path) -> None:
    path = corpus_file("ai-model-landscape.o-o.html", tmp_path)
    candidate, _ = synthetic_candidate(Document.read(path))
    before = set(widget_module._instances)
    w = ReviewWidget(path, candidate)
    made = [widget_module._instances[k] for k in set(widget_module._instances) - before]
    state = _saved_state(made)
    shown = len(w.hunk_views)
    assert shown >= 2, shown
    layouts = sum(1 for s in state.values() if s["model_name"] == "LayoutModel")
    per_change = len(state) / shown
    size = len(json.dumps(state, default=lambda b: "=" * (len(b) * 4 // 3)))  # base64
    print(f"{shown} changes: {len(state)} models, {layouts} layouts, {size:,} bytes")
    # 5 changes: 276 models, 106 layouts, 233 KB before the parts shared theirs; 146, 24 and
    # 123 KB since (the rest: the diffs' HTML, each widget's own model)
    assert per_change < 32, per_change
    assert layouts <= 2 * shown + 18, layouts
    assert size / shown < 27_000, size / shown
