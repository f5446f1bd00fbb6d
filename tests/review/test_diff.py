"""The diff as data: hunk kinds, alignment by pid / heading id / position, word highlights,
images as references and thumbnails, JSON block changes, the summary."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from oo_nb.format.document import Document
from oo_nb.review.diff import diff_documents
from oo_nb.review.hunks import FieldChange, Hunk
from oo_nb.review.render_html import diff_html, hunk_diff_html
from oo_nb.review.units import split_units
from tests.conftest import DOC_NAMES
from tests.support.review_samples import Edits, png_data_uri, synthetic_candidate


def _doc(corpus_dir: Path, name: str) -> Document:
    return Document.read(corpus_dir / name)


def _replace_body(doc: Document, old: str, new: str) -> Document:
    html = doc.article_html
    assert old in html, old
    return doc.with_article(html.replace(old, new, 1))


@pytest.mark.parametrize("name", DOC_NAMES)
def test_units_reproduce_every_article_exactly(corpus_dir: Path, name: str) -> None:
    html = _doc(corpus_dir, name).article_html
    units, tail = split_units(html)
    assert "".join(u.raw for u in units) + tail == html
    assert sum(u.is_references for u in units) == 1
    assert all(u.body.startswith("<") for u in units)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "<p>",
                "</p>",
                "<div>",
                "</div>",
                "<img src='a>b'>",
                "text ",
                "<!-- pid:a:1 -->",
                "<h2 id=x>",
                "</h2>",
                "<br/>",
                "\n",
                "<script>x<p></script>",
                "</ol>",
                "<",
            ]
        ),
        max_size=30,
    )
)
def test_units_round_trip_on_arbitrary_markup(parts: list[str]) -> None:
    html = "".join(parts)
    units, tail = split_units(html)
    assert "".join(u.raw for u in units) + tail == html


@pytest.mark.parametrize("name", DOC_NAMES)
def test_synthetic_update_gives_every_hunk_kind(corpus_dir: Path, name: str) -> None:
    doc = _doc(corpus_dir, name)
    cand, new_id = synthetic_candidate(doc)
    diff = diff_documents(doc, cand)
    by_kind = {(h.area, h.kind, h.tag) for h in diff.hunks if not h.derived}
    assert ("article", "changed", "p") in by_kind
    assert ("article", "added", "p") in by_kind
    assert ("article", "removed", "p") in by_kind
    assert ("article", "added", "figure") in by_kind
    assert ("sources", "added", "") in by_kind
    derived = {h.id for h in diff.hunks if h.derived}
    assert {"refs", "manifest:version", "manifest:as_of", "changelog"} <= derived
    added = next(
        h for h in diff.hunks if h.area == "article" and h.kind == "added" and h.tag == "p"
    )
    assert added.pid is not None and added.pid.endswith(":5eed0001")
    assert f"[{new_id}]" in added.after_text and added.before_html == ""
    changed = next(h for h in diff.hunks if h.kind == "changed" and h.tag == "p")
    assert changed.section and changed.pid
    ops = [(w.op, w.text.strip()) for w in changed.words if w.op != "="]
    assert ops and all(op == "+" for op, _ in ops[1:])  # only words added at the end
    assert (
        "Revised in this update with newer figures."
        in "".join(t for op, t in ops if op == "+") + " "
    )
    source = diff.hunk(f"src:{new_id}")
    assert source.unverified and source.kind == "added"
    assert {f.name for f in source.fields} >= {"id", "url", "title", "verified"}


def test_alignment_by_pid_survives_reordering(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "agi-declared.o-o.html")
    units, tail = split_units(doc.article_html)
    paras = [i for i, u in enumerate(units) if u.tag == "p" and u.pid]
    order = list(range(len(units)))
    a, b = paras[0], paras[1]  # adjacent: one of them moved
    order[a], order[b] = order[b], order[a]
    cand = doc.with_article("".join(units[i].raw for i in order) + tail)
    diff = diff_documents(doc, cand)
    article = [h for h in diff.hunks if h.area == "article"]
    assert len(article) == 1 and article[0].moved and article[0].kind == "changed"
    assert article[0].pid in (units[a].pid, units[b].pid)
    assert sum(1 for hid in diff.article.hunk_ids if hid == article[0].id) == 2


def test_alignment_by_heading_id_then_position(corpus_dir: Path) -> None:
    # anthropic-leadership has headings without pids and h3 ids
    doc = _doc(corpus_dir, "anthropic-leadership.o-o.html")
    cand = _replace_body(doc, ">Co-Founders</h2>", ">Founders</h2>")
    (hunk,) = diff_documents(doc, cand).hunks
    assert (hunk.kind, hunk.tag, hunk.key, hunk.pid) == ("changed", "h2", "co-founders", None)
    assert [(w.op, w.text) for w in hunk.words] == [("-", "Co-Founders"), ("+", "Founders")]
    # a paragraph without a pid: paired by position with its changed self, not removed + added
    doc2 = doc.with_article(doc.article_html.replace("<!-- pid:overview:e5f6a7b8 -->\n", "", 1))
    cand2 = _replace_body(doc2, "The leadership team combines", "The leadership team now combines")
    (hunk2,) = diff_documents(doc2, cand2).hunks
    assert hunk2.kind == "changed" and hunk2.pid is None
    assert ("+", " now") in [(w.op, w.text) for w in hunk2.words]


def test_whitespace_only_rewrap_is_no_change(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "yc-w26-batch.o-o.html")
    cand = _replace_body(doc, "Y Combinator's Winter 2026", "Y Combinator's\n   Winter 2026")
    assert diff_documents(doc, cand).is_empty
    assert diff_documents(doc, doc).hunks == ()


def test_images_are_references_and_thumbnails_never_base64(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "ai-model-landscape.o-o.html")
    cand, _ = synthetic_candidate(doc)
    diff = diff_documents(doc, cand)
    (fig,) = [h for h in diff.hunks if h.tag == "figure"]
    assert "base64" not in fig.after_html and "oo-image:1" in fig.after_html
    assert "base64" not in json.dumps(diff.to_dict())
    (image,) = diff.images_added
    assert image is fig.images[0] and image.mime == "image/png" and image.size_bytes > 500
    assert "base64" not in repr(image)
    png = image.thumbnail_png()
    assert png is not None
    with Image.open(io.BytesIO(png)) as thumb:
        assert max(thumb.size) <= 160 and thumb.format == "PNG"
    # the image leaving again: removed, with the same thumbnail machinery
    back = diff_documents(cand, doc)
    assert len(back.images_removed) == 1 and back.summary.images_removed == 1


def test_unreadable_image_has_no_thumbnail(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "yc-w26-batch.o-o.html")
    cand = _replace_body(
        doc, "</p>", '</p>\n<figure><img src="data:image/png;base64,AAAA" alt="x"></figure>'
    )
    (image,) = diff_documents(doc, cand).images_added
    assert image.thumbnail_png() is None


def test_an_image_over_the_size_limit_is_not_decoded_for_its_thumbnail() -> None:
    """A 12000 px square PNG (small on disk) was decoded whole for a 160 px thumbnail: +144 MB,
    1.8 s, and Pillow's DecompressionBombWarning printed in the notebook."""
    import base64
    import warnings

    from oo_nb.review.images import ImageRef

    buf = io.BytesIO()
    Image.new("1", (12000, 12000)).save(buf, format="PNG")  # 18 MB in memory, not 144
    src = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    image = ImageRef("oo-image:1", "image/png", len(buf.getvalue()), "0" * 64, src)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Pillow's warning is a failure here
        assert image.thumbnail_png() is None
    assert "png image" in image.label  # the hunk still says what it is


def test_source_changes_per_field_and_dropped(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "ai-model-landscape.o-o.html")

    def change(cache: dict) -> None:
        cache["sources"][1]["title"] = "A new title"
        cache["sources"][1]["tier"] = "secondary"
        del cache["sources"][3]

    diff = diff_documents(doc, doc.edit_block("oo-source-cache", change))
    s2 = diff.hunk("src:s2")
    assert s2.kind == "changed" and {f.name: (f.before, f.after) for f in s2.fields} == {
        "title": ("LLM Leaderboard — 100+ AI models", "A new title"),
        "tier": ("primary", "secondary"),
    }
    assert diff.hunk("src:s4").kind == "removed"
    assert diff.summary.sources_dropped == ("s4",) and diff.summary.sources_changed == ("s2",)


def test_facts_added_removed_changed(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "yc-w26-batch.o-o.html")  # facts are {key, value, source}

    def change(cache: dict) -> None:
        cache["facts"][0]["value"] = "changed value"
        del cache["facts"][2]
        cache["facts"].append({"key": "new_fact", "value": "42", "source": "s1"})

    diff = diff_documents(doc, doc.edit_block("oo-source-cache", change))
    facts = {h.kind: h for h in diff.hunks if h.area == "facts"}
    assert set(facts) == {"changed", "removed", "added"}
    assert facts["changed"].fields[0].name == "value"
    assert facts["added"].after_text == "new_fact: 42"
    assert diff.summary.facts_added == 1 and diff.summary.facts_removed == 1
    # string facts (agi-declared) align by content and position
    doc2 = _doc(corpus_dir, "agi-declared.o-o.html")
    diff2 = diff_documents(
        doc2, doc2.edit_block("oo-source-cache", lambda c: c["facts"].insert(1, "A new fact."))
    )
    (hunk,) = diff2.hunks
    assert (hunk.area, hunk.kind, hunk.after_text) == ("facts", "added", "A new fact.")


def test_manifest_and_contract_fields(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "agi-declared.o-o.html")
    cand = doc.edit_block("oo-contract", lambda c: c["identity"].update(scope="A narrower scope"))
    cand = cand.edit_block("oo-manifest", lambda m: m.update(title="AGI Declared?", version=3))
    diff = diff_documents(doc, cand)
    scope = diff.hunk("contract:identity.scope")
    assert scope.decidable and scope.fields[0].after == "A narrower scope"
    assert diff.hunk("manifest:title").decidable
    assert diff.hunk("manifest:version").derived
    assert diff.summary.other_changes == 2


def test_summary_line(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "agi-declared.o-o.html")
    cand, new_id = synthetic_candidate(doc, Edits(cost_usd=0.1234))
    s = diff_documents(doc, cand).summary
    assert s.cost_usd == pytest.approx(0.1234)
    assert (s.paragraphs_added, s.paragraphs_removed, s.paragraphs_changed) == (2, 1, 1)
    assert s.sources_added == (new_id,) and s.unverified_sources == (new_id,)
    text = s.text()
    assert (
        "cost $0.1234" in text and "v2 → v3" in text and f"1 unverified source ({new_id})" in text
    )
    verified, _ = synthetic_candidate(doc, Edits(verified=True, cost_usd=0.5))
    assert diff_documents(doc, verified).summary.unverified_sources == ()
    # no cost in the entry: the run's figure
    no_cost = cand.edit_block("oo-changelog", lambda log: log["entries"][-1].pop("cost_usd"))
    assert diff_documents(doc, no_cost, {"cost_usd": 0.02}).summary.cost_usd == pytest.approx(0.02)


def test_page_outside_article_is_a_derived_hunk(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "yc-w26-batch.o-o.html")
    start = doc.text.index("<title>")
    cand = doc.replace_range(start, start + len("<title>"), "<title>New: ")
    (hunk,) = diff_documents(doc, cand).hunks
    assert hunk.area == "page" and hunk.derived and "New: " in hunk.after_text


def test_hunk_dict_is_json(corpus_dir: Path) -> None:
    doc = _doc(corpus_dir, "anthropic-leadership.o-o.html")
    cand, _ = synthetic_candidate(doc)
    data = json.loads(json.dumps(diff_documents(doc, cand).to_dict()))
    assert data["summary"]["text"].startswith("cost $0.0421")
    assert all(
        set(h) >= {"id", "kind", "before_html", "after_html", "words"} for h in data["hunks"]
    )
    assert not any(re.search(r"base64,[A-Za-z0-9+/]{40}", h["after_html"]) for h in data["hunks"])


def test_png_data_uri_is_valid() -> None:
    assert png_data_uri().startswith("data:image/png;base64,iVBOR")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c.", "d!", " ", "  ", "e?", "\n", "ff"]), max_size=40),
    st.lists(st.sampled_from(["a", "b", "c.", "d!", " ", "  ", "e?", "\n", "gg"]), max_size=40),
)
def test_word_highlights_rebuild_both_texts(a: list[str], b: list[str]) -> None:
    from oo_nb.review.words import word_diff

    before, after = " ".join(a), " ".join(b)
    ops = word_diff(before, after)
    assert "".join(w.text for w in ops if w.op != "+") == before
    assert "".join(w.text for w in ops if w.op != "-") == after
    assert all(w.text for w in ops)


def test_unkeyed_insertion_next_to_an_edit_pairs_by_similarity() -> None:
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "library" / "no-pids.o-o.html"
    doc = Document.read(fixture)
    units, tail = split_units(doc.article_html)
    raw = [u.raw for u in units]
    raw[2] = raw[2].replace("</p>", " More.</p>")
    raw.insert(2, "\n<p>Inserted paragraph.</p>")
    diff = diff_documents(doc, doc.with_article("".join(raw) + tail))
    kinds = [(h.kind, h.after_text) for h in diff.hunks]
    assert kinds == [("added", "Inserted paragraph."), ("changed", "Storage followed [s2]. More.")]


def test_markup_only_change_shows_the_html(corpus_dir: Path) -> None:
    from oo_nb.review.terminal import render_hunk

    doc = _doc(corpus_dir, "yc-w26-batch.o-o.html")
    cand = _replace_body(doc, "Computer History Museum", "<em>Computer History Museum</em>")
    (hunk,) = diff_documents(doc, cand).hunks
    assert hunk.markup_only and hunk.before_text == hunk.after_text
    assert any(w.op == "+" and "<em>" in w.text for w in hunk.words)
    text = render_hunk(hunk)
    assert "same text; the HTML changed" in text and "{+<em>Computer+}" in text


def test_diff_html_reads_as_a_person_reads_it(corpus_dir: Path) -> None:
    """``oo diff`` in a notebook (issue 27, 10 and 11): the changes a person decides in view, the
    ones that come with them folded into one line; a grown log shows its new line, a new log
    entry reads as a table, a source's fields as text; no internal words."""
    doc = Document.read(corpus_dir / "anthropic-leadership.o-o.html")
    cand, new_id = synthetic_candidate(doc)
    diff = diff_documents(doc, cand)
    out = diff_html(diff)
    folded = out.index('<details class="oo-derived-all">')
    assert all(out.index(html.escape(h.title)) < folded for h in diff.decidable)
    assert "more that come with these" in out
    shown = html.unescape(re.sub(r"<style>.*?</style>|<[^>]+>", " ", out))
    assert not re.search(r"\(follows\)|pid:|oo-manifest|oo-source-cache|\bhunk", shown)
    log = next(h for h in diff.hunks if h.area == "changelog")
    assert hunk_diff_html(log).startswith('<table class="oo-entry">')
    source = next(h for h in diff.hunks if h.id == f"src:{new_id}")
    assert '"' not in html.unescape(re.sub(r"<[^>]+>", "", hunk_diff_html(source)))
    grown = Hunk(
        "manifest:changelog", 0, "manifest", "changed", "document details: changelog",
        fields=(FieldChange(("changelog",), "changed", ["v1: first"], ["v1: first", "v2: new"]),),
    )  # fmt: skip
    assert hunk_diff_html(grown) == '<div class="oo-words"><ins>v2: new</ins></div>'
    assert json.dumps("v1: first") not in hunk_diff_html(grown)
