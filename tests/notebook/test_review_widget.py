"""The review widget in plain pytest (widgets run on a DummyComm outside a kernel): decide,
edit, click "Write back", and check the file holds exactly what was decided."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import ipywidgets as widgets
import pytest

from oo_nb.errors import ConflictError
from oo_nb.format.document import Document
from oo_nb.notebook.preview import FRAME_SANDBOX
from oo_nb.notebook.review_widget import ReviewWidget, review_css
from oo_nb.review.session import ReviewSession
from oo_nb.store import store
from tests.conftest import corpus_file
from tests.support.review_samples import synthetic_candidate

NAME = "ai-model-landscape.o-o.html"


@pytest.fixture
def doc_path(tmp_path: Path) -> Path:
    return corpus_file(NAME, tmp_path)


def _walk(w: widgets.Widget) -> Iterator[widgets.Widget]:
    yield w
    for child in getattr(w, "children", ()):
        yield from _walk(child)


def _classes(w: widgets.Widget) -> set[str]:
    return set(w._dom_classes)


def test_decide_edit_write_back(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, new_id = synthetic_candidate(doc)
    w = ReviewWidget(doc_path, cand, {"cost_usd": 0.0421})
    assert list(w.hunk_views) == ["a1", "a2", "a3", "a4", f"src:{new_id}"]
    assert (
        "cost $0.0421" in w.summary.value and f"1 unverified source ({new_id})" in w.summary.value
    )
    w.hunk_views["a1"].accept_button.click()  # the changed paragraph
    w.hunk_views["a3"].reject_button.click()  # the removal: keep the paragraph
    view = w.hunk_views["a2"]  # the added paragraph, edited
    assert view.edit_button is not None
    assert view.editor is None  # built on demand
    view.edit_button.click()
    assert view.editor is not None and view.save_edit_button is not None
    assert view.edit_area.layout.display == "flex" and "A new finding" in view.editor.value
    view.editor.value = f"<p>Written in the widget [{new_id}].<img src=x onerror=alert(1)></p>"
    view.save_edit_button.click()
    assert view.error.value == "" and view.state.value == "edited"
    assert "oo-decided-edit" in _classes(view) and view.edit_area.layout.display == "none"
    assert "1 accepted · 1 edited · 1 rejected · 2 undecided" in w.counts.value
    # the expected bytes: the same decisions on a plain session
    session = ReviewSession(doc, cand)
    session.accept("a1")
    session.reject("a3")
    session.edit("a2", f"<p>Written in the widget [{new_id}].<img src=x onerror=alert(1)></p>")
    expected = session.apply().to_bytes()
    w.write_button.click()
    assert w.error.value == ""
    assert doc_path.read_bytes() == expected
    text = doc_path.read_text()
    assert f"Written in the widget [{new_id}]." in text and "onerror" not in text
    assert "Wrote version 2" in w.status.value
    assert w.write_button.disabled and w.hunk_views["a1"].accept_button.disabled
    assert store.read_history(doc_path)[0].version == 1  # the original kept in history


def test_all_rejected_writes_nothing(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    w = ReviewWidget(doc, cand)
    w.reject_all_button.click()
    assert all(v.state.value == "rejected" for v in w.hunk_views.values())
    w.write_button.click()
    assert doc_path.read_bytes() == doc.to_bytes()
    assert "Nothing accepted" in w.status.value and "version 1" in w.status.value
    assert len(store.read_history(doc_path)) == 1  # no snapshot: nothing was replaced
    # undecided counts as rejected too
    w2 = ReviewWidget(doc_path, cand)
    w2.write_button.click()
    assert doc_path.read_bytes() == doc.to_bytes()


def test_accept_all_writes_the_candidate(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    w = ReviewWidget(doc_path, cand)
    w.accept_all_button.click()
    assert "5 accepted" in w.counts.value
    w.write_button.click()
    assert doc_path.read_bytes() == cand.to_bytes()


def test_conflict_shows_in_the_widget(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    w = ReviewWidget(doc_path, cand)
    meanwhile = doc.edit_block("oo-manifest", lambda m: m.update(title="Edited elsewhere"))
    store.write_document(meanwhile, expected=doc.to_bytes(), action="edit")
    w.accept_all_button.click()
    w.write_button.click()
    assert "changed on disk since it was read" in w.error.value
    assert doc_path.read_bytes() == meanwhile.to_bytes()
    assert not w.write_button.disabled  # nothing written: the user may act and retry


def test_refused_edit_shows_its_error(doc_path: Path) -> None:
    cand, _ = synthetic_candidate(Document.read(doc_path))
    w = ReviewWidget(doc_path, cand)
    view = w.hunk_views["a1"]
    assert view.edit_button is not None
    view.edit_button.click()
    assert view.editor is not None and view.save_edit_button is not None
    view.editor.value = "<p>Cites [s404] <script>x</script></p>"
    view.save_edit_button.click()
    assert "s404" in view.error.value and "<script" not in view.error.value
    assert view.state.value == "undecided"


def test_agent_html_only_escaped_or_sandboxed(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    hostile = '<p>Hi<img src=x onerror="alert(1)"><script>alert(2)</script> [s1]</p>'
    cand = doc.with_article(doc.article_html.replace("</h2>", "</h2>\n" + hostile, 1))
    w = ReviewWidget(doc_path, cand)
    for node in _walk(w):
        if isinstance(node, widgets.HTML):
            outside = re.sub(r'srcdoc="[^"]*"', "", node.value)
            assert "onerror" not in outside and "alert(" not in outside, node.value[:200]
            for frame in re.findall(r"<iframe[^>]*>", node.value):
                assert f'sandbox="{FRAME_SANDBOX}"' in frame and "allow-scripts" not in frame
            for srcdoc in re.findall(r'srcdoc="([^"]*)"', node.value):
                assert "<" not in srcdoc  # escaped into the attribute
    view = next(iter(w.hunk_views.values()))
    assert any("iframe" in n.value for n in _walk(view) if isinstance(n, widgets.HTML))


def test_stable_classes_and_images(doc_path: Path) -> None:
    cand, _ = synthetic_candidate(Document.read(doc_path))
    w = ReviewWidget(doc_path, cand)
    assert "oo-review" in _classes(w)
    assert (
        "oo-write-back" in _classes(w.write_button) and w.write_button.description == "Write back"
    )
    assert {"oo-accept-all"} <= _classes(w.accept_all_button)
    view = w.hunk_views["a1"]
    assert {"oo-hunk", "oo-hunk-changed", "oo-area-article", "oo-decided-pending"} <= _classes(view)
    assert "oo-accept" in _classes(view.accept_button) and "oo-reject" in _classes(
        view.reject_button
    )
    assert view.edit_button is not None and "oo-edit" in _classes(view.edit_button)
    view.edit_button.click()
    assert view.editor is not None and "oo-editor" in _classes(view.editor)
    view.accept_button.click()
    assert "oo-decided-accept" in _classes(view) and "oo-decided-pending" not in _classes(view)
    thumbs = [n for n in _walk(w) if isinstance(n, widgets.Image)]
    assert len(thumbs) == 1 and thumbs[0].value[:8] == b"\x89PNG\r\n\x1a\n"
    assert ".oo-hunk" in review_css()
    derived = [n for n in _walk(w) if "oo-derived" in _classes(n)]
    assert len(derived) >= 4  # references, version, as_of, changelog...
    w.preview_button.click()
    assert w.preview.value.startswith(
        '<iframe sandbox="allow-popups allow-popups-to-escape-sandbox"'
    )


def test_from_pending(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    store.save_pending(doc_path, cand, {"cost_usd": 0.01}, doc.to_bytes())
    w = ReviewWidget.from_pending(doc_path)
    w.accept_all_button.click()
    w.write_button.click()
    assert doc_path.read_bytes() == cand.to_bytes()
    with pytest.raises(Exception, match="no saved proposal"):
        store.load_pending(doc_path)
    # a proposal older than the file is refused unless forced
    store.save_pending(doc_path, cand, {}, doc.to_bytes())
    with pytest.raises(ConflictError):
        ReviewWidget.from_pending(doc_path)
    forced = ReviewWidget.from_pending(doc_path, force=True)
    assert forced.session.original.to_bytes() == doc_path.read_bytes()  # against the current file


def test_oo_review_widget_verb(doc_path: Path) -> None:
    from oo_nb.cli.verbs import build_parser, load
    from oo_nb.notebook.results import run_verb

    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    store.save_pending(doc_path, cand, {}, doc.to_bytes())
    ns = build_parser().parse_args(["review", str(doc_path), "--widget"])
    # the verb only asks for the widget (it is UI-free); the notebook layer builds it
    request = load("review").run(ns)
    assert request.exit_code == 0 and request.to_text() == f"review widget for {doc_path}"
    widget = run_verb("review", ns)
    assert isinstance(widget, ReviewWidget)
    widget.accept_all_button.click()
    widget.write_button.click()
    assert doc_path.read_bytes() == cand.to_bytes()


def test_write_back_with_nothing_decided_keeps_the_saved_proposal(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    store.save_pending(doc_path, cand, {"cost_usd": 0.1}, doc.to_bytes())
    w = ReviewWidget.from_pending(doc_path)
    w.write_button.click()
    assert "undecided" in w.status.value and not w.write_button.disabled
    assert store.load_pending(doc_path).candidate.to_bytes() == cand.to_bytes()
    w.reject_all_button.click()
    w.write_button.click()  # an explicit reject-all discards it
    assert doc_path.read_bytes() == doc.to_bytes()
    with pytest.raises(Exception, match="no saved proposal"):
        store.load_pending(doc_path)


def test_the_runs_warnings_show_in_the_widget(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    run = {
        "recorded": True,
        "overspent": True,
        "cost_usd": 0.9,
        "budget_usd": 0.5,
        "warnings": [
            "SENTINEL EVENT REPORTED AS OCCURRED — <img src=x onerror=alert(1)>",
            "source s9 rejected (x)",
        ],
    }
    store.save_pending(doc_path, cand, run, doc.to_bytes())
    w = ReviewWidget.from_pending(doc_path)
    value = w.warnings.value
    assert "oo-run-warnings" in _classes(w.warnings) and w.warnings.layout.display != "none"
    assert "RECORDED run" in value and "kept for review: budget exceeded" in value
    assert "SENTINEL EVENT REPORTED AS OCCURRED" in value and "source s9 rejected" in value
    assert "<img" not in value and "&lt;img src=x onerror=alert(1)&gt;" in value  # escaped text
    assert list(w.children).index(w.warnings) == list(w.children).index(w.summary) + 1
    quiet = ReviewWidget(doc_path, cand, {})
    assert quiet.warnings.value == "" and quiet.warnings.layout.display == "none"


def test_accept_all_keeps_an_edit(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    w = ReviewWidget(doc_path, cand, {})
    hid = next(
        h.id for h in w.session.diff.decidable if h.area == "article" and h.kind == "changed"
    )
    view = w.hunk_views[hid]
    view.edit_button.click()
    assert view.editor is not None
    view.editor.value = "<p>Edited in the widget [s1].</p>"
    view.save_edit_button.click()
    w.accept_all_button.click()
    assert w.session.decision(hid) == "edit" and "oo-decided-edit" in _classes(view)
    assert "1 edited change(s) are kept" in w.status.value
    w.reject_all_button.click()
    assert w.session.decision(hid) == "edit"
    w.write_button.click()
    assert "Edited in the widget [s1]." in doc_path.read_text("utf-8")


def test_the_stylesheet_has_one_source() -> None:
    """In a checkout the widget reads widgets/review.css itself: an edit there shows at once, and
    no copy inside the package can shadow it."""
    repo = Path(__file__).resolve().parents[2]
    assert review_css() == (repo / "widgets" / "review.css").read_text("utf-8")
    # the only stylesheets in the package are the pages' own (templates), never the widget's
    assert {p.parent.name for p in (repo / "oo_nb").rglob("*.css")} == {"template"}
