"""The review widget in plain pytest (widgets run on a DummyComm outside a kernel): decide,
edit, click "Write back", and check the file holds exactly what was decided."""

from __future__ import annotations

import html
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
    view.save_edit_button.click()  # first said what cleaning removes, nothing decided yet
    assert "an image that is not an embedded" in view.error.value
    assert "onerror=" in view.error.value and view.state.value == "undecided"
    view.save_edit_button.click()  # the same text again: used without them
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
    # the changes that follow the decisions: one collapsed line naming each
    (line,) = [n for n in _walk(w) if "oo-derived-line" in _classes(n)]
    assert line.value.startswith(
        '<details class="oo-derived-all"><summary>Updated to match your decisions'
    )
    assert line.value.count('class="oo-hunk oo-derived') >= 4  # references, version, as_of...
    assert "<details open" not in line.value
    w.preview_button.click()
    assert w.preview.value.startswith(f'<iframe sandbox="{FRAME_SANDBOX}"')
    assert w.preview_button.description == "Hide preview"
    w.preview_button.click()
    assert w.preview.value == "" and w.preview_button.description == "Preview result"


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
    head = next(n for n in _walk(w) if "oo-head" in _classes(n))
    assert list(head.children).index(w.warnings) == list(head.children).index(w.summary) + 1
    assert "4 warning(s): RECORDED run" in repr(w)
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


def test_layout_header_then_preview_then_groups_by_section(doc_path: Path) -> None:
    """Issue 13: the toolbar stays in view (a sticky header), and the changes come in one
    collapsible group per section; issue 27: the preview opens in a column beside them."""
    doc = Document.read(doc_path)
    cand, new_id = synthetic_candidate(doc)
    w = ReviewWidget(doc_path, cand, {"cost_usd": 0.0421})
    columns = w.children[1]
    main, side = columns.children
    head = main.children[0]
    assert "oo-head" in _classes(head) and w.preview not in list(_walk(main))
    # the preview has a column of its own beside the changes, hidden until asked for
    assert "oo-side" in _classes(side) and list(side.children) == [w.preview]
    assert side.layout.display == "none" and "oo-previewing" not in _classes(w)
    toolbar = next(n for n in _walk(head) if "oo-toolbar" in _classes(n))
    for button in (w.accept_all_button, w.reject_all_button, w.preview_button, w.write_button):
        assert button in toolbar.children
    assert w.counts in toolbar.children and w.summary in head.children
    assert "position: sticky" in review_css() or "position:sticky" in review_css()
    titles = {s.id: s.title for s in doc.article.sections}
    names = [g.name for g in w.groups]
    assert names[-1] == "Sources" and len(names) == len(set(names))
    for g in w.groups:
        for hid in g.ids:
            h = w.session.hunk(hid)
            assert g.name == (
                titles.get(h.section, h.section) if h.area == "article" else "Sources"
            )
    assert sum(len(g.ids) for g in w.groups) == len(w.hunk_views) == 5
    # a new source reads as a compact record (field, value), not an empty "before" column
    source = w.hunk_views[f"src:{new_id}"].diff.value
    assert 'class="oo-fields oo-record"' in source and "<th>before</th>" not in source
    assert f"<th>id</th><td><ins>{new_id}</ins></td>" in source
    group = w.groups[0]
    assert group.toggle.description.startswith("▾ ") and "undecided" in group.toggle.description
    group.toggle.click()
    assert group.body.layout.display == "none" and group.toggle.description.startswith("▸ ")
    group.toggle.click()
    assert group.body.layout.display == "flex"
    w.accept_all_button.click()
    assert all("all decided" in g.toggle.description for g in w.groups)
    # an open preview follows the decisions
    w.preview_button.click()
    assert side.layout.display == "flex" and "oo-previewing" in _classes(w)
    first = w.preview.value
    w.hunk_views["a1"].reject_button.click()
    assert w.preview.value and w.preview.value != first
    w.preview_button.click()
    assert side.layout.display == "none" and "oo-previewing" not in _classes(w)


def test_the_plain_text_repr_is_a_summary(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    w = ReviewWidget(doc_path, cand, {"cost_usd": 0.0421})
    text = repr(w)
    assert text.splitlines()[0] == f"Review of {NAME}: version 1 → 2, cost $0.0421"
    assert text.splitlines()[1] == "5 change(s): 0 accepted, 0 rejected, 0 edited, 5 undecided"
    assert "<style>" not in text and "ReviewWidget(" not in text
    bundle = w._repr_mimebundle_()
    assert bundle["text/plain"] == text
    assert "application/vnd.jupyter.widget-view+json" in bundle
    w.accept_all_button.click()
    assert "5 accepted, 0 rejected" in repr(w)


def test_after_an_edit_the_diff_line_and_frame_show_the_edit(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    w = ReviewWidget(doc_path, cand, {})
    view = w.hunk_views["a1"]
    proposed = view.diff.value
    assert view.edit_button is not None
    view.edit_button.click()
    assert view.editor is not None and view.save_edit_button is not None
    view.editor.value = "<p>Entirely rewritten by the reviewer [s1].</p>"
    view.save_edit_button.click()
    shown = re.sub(r"<[^>]+>", "", re.sub(r"<del>.*?</del>", "", view.diff.value))
    assert "your edit:" in view.diff.value
    assert shown.endswith("Entirely rewritten by the reviewer [s1].")  # the edited text reads
    assert "<ins>" in view.diff.value and view.diff.value != proposed
    assert "after (your edit)" in view.after_pane.value
    assert "rewritten by the reviewer" in html.unescape(view.after_pane.value)
    view.accept_button.click()  # the edit is dropped: back to the proposal
    assert view.diff.value == proposed and "after (proposed)" in view.after_pane.value


def test_unknown_change_kinds_render_generically(doc_path: Path) -> None:
    """Another change kind (a removed section, one References entry...) must not break the
    widget: its kind is its label, its area a group of its own."""
    import dataclasses

    from oo_nb.review.diff import diff_documents

    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    diff = diff_documents(doc, cand)
    odd = [
        dataclasses.replace(h, kind="section-removed")  # type: ignore[arg-type]
        if h.id == "a3"
        else dataclasses.replace(h, area="references-entry", derived=True)  # type: ignore[arg-type]
        if h.derived and h.area == "article"
        else h
        for h in diff.hunks
    ]
    diff = dataclasses.replace(diff, hunks=tuple(odd))
    import oo_nb.notebook.review_widget as rw

    class _Session(ReviewSession):
        def __init__(self, original: Document, candidate: Document, run: object = None) -> None:
            super().__init__(original, candidate, None, diff=diff)

    real = rw.ReviewSession
    rw.ReviewSession = _Session  # type: ignore[misc]
    try:
        w = ReviewWidget(doc_path, cand, {})
    finally:
        rw.ReviewSession = real  # type: ignore[misc]
    assert "section-removed" in w.hunk_views["a3"].title.value
    assert "oo-hunk-section-removed" in _classes(w.hunk_views["a3"])
    line = next(n for n in _walk(w) if "oo-derived-line" in _classes(n))
    assert "references-entry" in line.value
    assert "5 change(s)" in repr(w)


def test_the_new_changelog_entry_reads_as_a_table() -> None:
    from oo_nb.notebook.review_derived import derived_html
    from oo_nb.review.hunks import Hunk, pretty_json

    entry = {
        "version": 2,
        "date": "2026-12-01",
        "summary": "New tariffs section <b>[s7]</b>",
        "sources_added": ["s6", "s7"],
        "review": {"accepted": 3, "rejected": 1},
        "nested": [{"a": 1}],
    }
    hunk = Hunk(
        "changelog", 9, "changelog", "added", "changelog: new entry",
        after_text=pretty_json([entry]), derived=True,
    )  # fmt: skip
    out = derived_html([hunk])
    assert out.startswith(
        '<details class="oo-derived-all"><summary>Updated to match your decisions (1)'
    )
    assert "change log entry" in out.split("</summary>")[0]
    assert '<table class="oo-entry">' in out and "{\n" not in out  # not pretty JSON
    assert "<tr><th>sources_added</th><td>s6, s7</td></tr>" in out
    assert "<tr><th>review</th><td>accepted: 3 · rejected: 1</td></tr>" in out
    assert "&lt;b&gt;[s7]&lt;/b&gt;" in out and "<b>[s7]" not in out  # escaped text
    assert derived_html([]) == ""


def test_a_conflict_between_decisions_is_asked_before_writing(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, new_id = synthetic_candidate(doc)
    w = ReviewWidget(doc_path, cand, {})
    w.accept_all_button.click()
    w.hunk_views[f"src:{new_id}"].reject_button.click()
    w.write_button.click()
    assert doc_path.read_bytes() == doc.to_bytes()  # nothing written yet: asked first
    assert w.conflict_box.layout.display == "flex" and w.written is None
    assert f"You rejected the new source {new_id}" in html.unescape(w.conflict_text.value)
    w.drop_sources_button.click()  # the text citing it is rejected instead
    assert w.conflict_box.layout.display == "none" and "Write back" in w.status.value
    assert w.hunk_views["a2"].state.value == "rejected"
    w.write_button.click()
    written = Document.read(doc_path)
    assert written.manifest.version == doc.manifest.version + 1
    assert new_id not in [s.id for s in written.source_cache.sources]


def test_keeping_the_source_in_a_conflict_writes_it(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, new_id = synthetic_candidate(doc)
    w = ReviewWidget(doc_path, cand, {})
    w.accept_all_button.click()
    w.hunk_views[f"src:{new_id}"].reject_button.click()
    w.write_button.click()
    w.keep_sources_button.click()
    assert w.written == doc_path and w.hunk_views[f"src:{new_id}"].state.value == "accepted"
    assert new_id in [s.id for s in Document.read(doc_path).source_cache.sources]
