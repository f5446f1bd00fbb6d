"""Decisions and the final document: nothing accepted gives the original bytes, everything
accepted gives the candidate, and every mix stays consistent (citations resolve, no orphan new
source, References match the sources, the version moves only when something was accepted)."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

from oo_nb.errors import OOError, ValidationError
from oo_nb.format.document import Document
from oo_nb.review.session import ReviewSession
from oo_nb.review.units import split_units
from oo_nb.store import store
from tests.conftest import DOC_NAMES
from tests.support.review_samples import synthetic_candidate


def _setup(corpus_dir: Path, name: str) -> tuple[Document, Document, str, ReviewSession]:
    doc = Document.read(corpus_dir / name)
    cand, new_id = synthetic_candidate(doc)
    return doc, cand, new_id, ReviewSession(doc, cand)


def _hunk(session: ReviewSession, kind: str, tag: str = "p") -> str:
    return next(
        h.id
        for h in session.hunks
        if h.area == "article" and h.kind == kind and h.tag == tag and not h.derived
    )


def _ref_ids(doc: Document) -> list[str]:
    return [r.source_id or f"s{r.position}" for r in doc.article.references]


def _sections(doc: Document) -> tuple[dict[str, str], dict[str, int]]:
    """Where each pid'd unit sits (its h2 id) and how many units each h2 holds."""
    units, _ = split_units(doc.article_html)
    where = {u.pid: u.section for u in units if u.pid and u.tag != "h2"}
    size: dict[str, int] = {}
    for u in units:
        if u.tag == "h2":
            size.setdefault(u.section, 0)
        elif u.section in size:
            size[u.section] += 1
    return where, size


def _assert_sections_whole(final: Document, original: Document, candidate: Document) -> None:
    """A new or removed section is one piece: no text under a heading neither version put it
    under, and no heading left with nothing under it."""
    where_f, size_f = _sections(final)
    where_o, size_o = _sections(original)
    where_c, size_c = _sections(candidate)
    for pid, sec in where_f.items():
        assert sec in (where_o.get(pid), where_c.get(pid)), (
            f"{pid} sits under {sec!r}, where neither version had it"
        )
    for sec, n in size_f.items():
        assert n or size_o.get(sec) == 0 or size_c.get(sec) == 0, (
            f"section {sec!r} is an empty heading"
        )


def _assert_consistent(
    final: Document,
    original: Document,
    new_id: str,
    accepted_any: bool,
    candidate: Document | None = None,
) -> None:
    if candidate is not None:
        _assert_sections_whole(final, original, candidate)
    art = final.article
    cache_ids = [s.id for s in final.source_cache.sources]
    refs = _ref_ids(final)
    cited = set(art.cited_ids)
    assert cited <= set(cache_ids) | set(refs), "every citation resolves"
    assert set(cache_ids) <= set(refs), "every source has its reference"
    if original.source_cache.sources:
        assert set(refs) == set(cache_ids), "References match the sources"
    if new_id in cache_ids:
        assert new_id in cited, "no orphan new source"
    dup_final = {p for p, n in Counter(art.pids).items() if n > 1}
    dup_orig = {p for p, n in Counter(original.article.pids).items() if n > 1}
    assert dup_final <= dup_orig, "no pid appears twice"
    version = original.manifest.version
    assert final.manifest.version == (version + 1 if accepted_any else version)


@pytest.mark.parametrize("name", DOC_NAMES)
def test_nothing_accepted_is_the_original_bytes(corpus_dir: Path, name: str) -> None:
    doc, _, _, session = _setup(corpus_dir, name)
    assert session.apply().to_bytes() == doc.to_bytes()  # pending counts as rejected
    session.reject_all()
    result = session.result()
    assert result.document.to_bytes() == doc.to_bytes() and not result.changed


@pytest.mark.parametrize("name", DOC_NAMES)
def test_everything_accepted_is_the_candidate(corpus_dir: Path, name: str) -> None:
    _, cand, _, session = _setup(corpus_dir, name)
    session.accept_all()
    assert session.apply().to_bytes() == cand.to_bytes()
    assert session.counts() == {"pending": 0, "accept": 5, "reject": 0, "edit": 0}


@pytest.mark.parametrize("name", DOC_NAMES)
def test_every_mix_of_decisions_is_consistent(corpus_dir: Path, name: str, tmp_path: Path) -> None:
    doc, cand, new_id, session = _setup(corpus_dir, name)
    ids = [h.id for h in session.diff.decidable]
    assert len(ids) == 5
    target = tmp_path / name
    target.write_bytes(doc.to_bytes())
    for n, flags in enumerate(itertools.product((True, False), repeat=len(ids))):
        for hid, ok in zip(ids, flags, strict=True):
            (session.accept if ok else session.reject)(hid)
        final = session.apply()
        _assert_consistent(final, doc, new_id, any(flags), cand)
        if n % 7 == 0:  # the store accepts it and reads back the same bytes
            written = store.write_document(
                final.with_path(target), expected=target.read_bytes(), action="review"
            )
            assert written.read_bytes() == final.to_bytes()


def test_only_the_changed_paragraph(corpus_dir: Path) -> None:
    doc, cand, new_id, session = _setup(corpus_dir, "ai-model-landscape.o-o.html")
    session.reject_all()
    session.accept(_hunk(session, "changed"))
    result = session.result()
    final = result.document
    assert "Revised in this update with newer figures." in final.article_html
    assert "A new finding reported" not in final.article_html
    assert (
        "Frontier models represent the highest-capability" in final.article_html
    )  # removal rejected
    assert "<figure" not in final.article_html
    assert new_id not in [s.id for s in final.source_cache.sources]
    assert len(final.article.references) == len(doc.article.references)
    entry = final.changelog.latest
    assert entry is not None and entry.version == 2
    assert entry.extra["review"] == {"accepted": 1, "rejected": 4, "edited": 0}
    assert entry.extra["sources_added"] == []
    assert final.source_cache.last_updated == cand.source_cache.last_updated
    assert (result.accepted, result.rejected, result.edited) == (1, 4, 0)


def test_new_source_follows_its_citing_paragraph(corpus_dir: Path) -> None:
    _, _, new_id, session = _setup(corpus_dir, "agi-declared.o-o.html")
    para = _hunk(session, "added")
    # the source accepted but its only citing paragraph rejected: no orphan
    session.reject_all()
    session.accept(f"src:{new_id}")
    session.accept(_hunk(session, "changed"))
    result = session.result()
    assert new_id not in [s.id for s in result.document.source_cache.sources]
    assert any(new_id in note and "not kept" in note for note in result.notes)
    # the paragraph accepted, its source rejected: the citation must resolve, so it stays
    session.reject(f"src:{new_id}")
    session.accept(para)
    result = session.result()
    assert new_id in [s.id for s in result.document.source_cache.sources]
    assert new_id in _ref_ids(result.document)
    assert any(new_id in note and "cites it" in note for note in result.notes)
    assert result.document.changelog.latest is not None
    assert result.document.changelog.latest.extra["sources_added"] == [new_id]


def test_dropped_source_stays_while_kept_text_cites_it(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    # the candidate drops s4's paragraph and s4
    cand = doc.with_article(doc.article_html.replace(" [s4]", "", 1))
    cand = cand.edit_block(
        "oo-source-cache", lambda c: c.update(sources=[s for s in c["sources"] if s["id"] != "s4"])
    )
    session = ReviewSession(doc, cand)
    assert {h.id for h in session.diff.decidable} == {"a1", "src:s4"}
    session.accept("src:s4")
    session.reject("a1")  # the paragraph keeps citing [s4]
    result = session.result()
    assert "s4" in [s.id for s in result.document.source_cache.sources]
    assert any("s4" in n for n in result.notes)
    session.accept("a1")
    assert "s4" not in [s.id for s in session.apply().source_cache.sources]


def test_edit_is_sanitised_and_validated(corpus_dir: Path) -> None:
    _, _, new_id, session = _setup(corpus_dir, "anthropic-leadership.o-o.html")
    hid = _hunk(session, "changed")
    start = session.editor_text(hid)
    # a paragraph is edited as its text: no <p> to keep balanced
    assert not start.startswith("<p>") and "Revised in this update" in start
    clean = session.edit(hid, '<p onclick="x()">Edited by hand [s1].<script>alert(1)</script></p>')
    assert clean == "<p>Edited by hand [s1].</p>"
    assert session.decision(hid) == "edit" and session.editor_text(hid) == "Edited by hand [s1]."
    final = session.apply()
    assert (
        "Edited by hand [s1]." in final.article_html and "<script>alert" not in final.article_html
    )
    pid = session.hunk(hid).pid
    assert (
        pid is not None and f"<!-- {pid} -->\n<p>Edited by hand" in final.article_html
    )  # pid kept
    with pytest.raises(ValidationError, match=r"cites s99"):
        session.edit(hid, "<p>Claims [s99].</p>")
    with pytest.raises(ValidationError, match="empty"):
        session.edit(hid, "<script>only</script>")
    assert session.decision(hid) == "edit"  # a refused edit leaves the previous one
    session.edit(hid, f"<p>Now citing the new source [{new_id}].</p>")
    assert new_id in [s.id for s in session.apply().source_cache.sources]


def test_edit_keeps_images_and_headings(corpus_dir: Path) -> None:
    doc, _cand, _, session = _setup(corpus_dir, "yc-w26-batch.o-o.html")
    fig = _hunk(session, "added", "figure")
    text = session.editor_text(fig)
    assert "oo-image:1" in text and "base64" not in text
    session.edit(fig, text.replace("Figures by quarter.", "Figures by quarter, revised."))
    final = session.apply()
    assert "Figures by quarter, revised." in final.article_html
    assert final.article.figures[0].src_kind == "data" and final.article.figures[0].bytes > 500
    # a section heading edited stays an h2 with its id (the sanitiser alone would demote it)
    cand2 = doc.with_article(doc.article_html.replace(">Overview</h2>", ">Overview of W26</h2>", 1))
    s2 = ReviewSession(doc, cand2)
    (h,) = s2.diff.decidable
    s2.edit(h.id, '<h2 id="overview">Batch overview</h2>')
    assert '<h2 id="overview">Batch overview</h2>' in s2.apply().article_html
    assert [s.id for s in s2.apply().article.sections][:1] == ["overview"]


def test_moved_paragraph(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "agi-declared.o-o.html")
    html = doc.article_html
    a = html.index("<!-- pid:status:e5f6a7b8 -->")
    b = html.index("<!-- pid:status:c9d0e1f2 -->")
    c = html.index("<!-- pid:status:a3b4c5d6 -->")
    cand = doc.with_article(html[:a] + html[b:c] + html[a:b] + html[c:])
    session = ReviewSession(doc, cand)
    (hunk,) = session.diff.decidable
    assert hunk.moved
    session.accept(hunk.id)
    assert session.apply().to_bytes() == cand.to_bytes()
    session.reject(hunk.id)
    assert session.apply().to_bytes() == doc.to_bytes()
    session.edit(hunk.id, "<p>Moved and edited.</p>")
    final = session.apply().article_html
    assert final.count("pid:status:e5f6a7b8") + final.count("pid:status:c9d0e1f2") == 2
    assert final.index("Moved and edited.") < final.index("pid:status:a3b4c5d6")


def test_fields_and_facts_decided_one_by_one(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    cand = doc.edit_block(
        "oo-contract", lambda c: c["identity"].update(scope="New scope", tone="Dry")
    )

    def facts(cache: dict) -> None:
        cache["facts"].append({"key": "k1", "value": "v1", "source": "s1"})
        del cache["facts"][0]

    cand = cand.edit_block("oo-source-cache", facts)
    session = ReviewSession(doc, cand)
    ids = {h.id for h in session.diff.decidable}
    assert {"contract:identity.scope", "contract:identity.tone", "fact:1", "fact:2"} == ids
    session.reject_all()
    session.accept("contract:identity.tone")
    session.accept(next(h.id for h in session.hunks if h.area == "facts" and h.kind == "added"))
    final = session.apply()
    assert (final.contract.scope, final.contract.tone) == (doc.contract.scope, "Dry")
    keys = [f.key for f in final.source_cache.facts]
    assert keys[-1] == "k1" and len(keys) == len(doc.source_cache.facts) + 1


def test_derived_hunks_cannot_be_decided(corpus_dir: Path) -> None:
    _, _, _, session = _setup(corpus_dir, "agi-declared.o-o.html")
    with pytest.raises(OOError, match="comes with the other decisions"):
        session.accept("refs")
    with pytest.raises(OOError, match="no change"):
        session.reject("nope")
    with pytest.raises(ValidationError, match="only article text"):
        session.edit(next(h.id for h in session.diff.decidable if h.area == "sources"), "<p>x</p>")


@pytest.mark.parametrize("name", ["yc-w26-batch.o-o.html", "ai-model-landscape.o-o.html"])
def test_candidates_from_the_agent_pipeline(corpus_dir: Path, name: str) -> None:
    """A candidate made by ``build_candidate`` (its own References list and pid handling), not
    by hand: every mix of decisions still gives a consistent document."""
    from datetime import date

    from oo_nb.agent.candidate import build_candidate
    from oo_nb.agent.proposal import validate_proposal
    from oo_nb.agent.types import RunInfo

    doc = Document.read(corpus_dir / name)
    article = doc.article
    section = next(s for s in article.sections if s.level == 2 and s.id != "references")
    paras = [p for p in article.paragraphs if p.section == section.id and p.pid]
    new_id = f"s{len(doc.source_cache.sources) + 1}"
    html = (
        "".join(
            f"<!-- {p.pid} -->\n{p.html.replace('</p>', ' Revised.</p>') if i == 0 else p.html}\n"
            for i, p in enumerate(paras)
            if i != 1
        )
        + f"<p>A new paragraph [{new_id}].</p>\n"
    )
    proposal = validate_proposal(
        {
            "summary": "pipeline update",
            "sections": [{"id": section.id, "title": section.title, "html": html}],
            "sources": [
                {
                    "id": new_id,
                    "url": "https://example.org/new",
                    "title": "New",
                    "accessed": "2026-11-29",
                }
            ],
        }
    )
    run = RunInfo(backend="replay", model="m", cost_usd=0.05, seen_urls={"https://example.org/new"})
    cand = build_candidate(doc, proposal, run, today=date(2026, 11, 29)).document
    session = ReviewSession(doc, cand)
    ids = [h.id for h in session.diff.decidable]
    assert f"src:{new_id}" in ids and len(ids) >= 3
    for flags in itertools.product((True, False), repeat=len(ids)):
        for hid, ok in zip(ids, flags, strict=True):
            (session.accept if ok else session.reject)(hid)
        final = session.apply()
        _assert_consistent(final, doc, new_id, any(flags), cand)
        if all(flags):
            assert final.to_bytes() == cand.to_bytes()


def test_heading_edits_hold_one_heading_and_paragraph_edits_never_nest_headings() -> None:
    from oo_nb.errors import ValidationError as _ValidationError
    from tests.conftest import CORPUS as _CORPUS

    doc = Document.read(_CORPUS / "yc-w26-batch.o-o.html")
    html = doc.article_html
    at = html.index('<h2 id="references">')
    added = (
        '<h2 id="outlook">Outlook</h2>\n<!-- pid:outlook:0011aabb -->\n<p>Next batch [s1].</p>\n'
    )
    cand = doc.with_article(html[:at] + added + html[at:])
    s = ReviewSession(doc, cand)
    heading = next(h for h in s.diff.hunks if h.editable and h.tag == "h2")
    with pytest.raises(_ValidationError, match="one <h2>"):
        s.edit(heading.id, '<h2 id="outlook">A</h2><p>x</p><h2>B</h2>')
    assert (
        s.edit(heading.id, '<h2 id="outlook">Looking ahead</h2>')
        == '<h2 id="outlook">Looking ahead</h2>'
    )
    para = next(h for h in s.diff.hunks if h.editable and h.tag == "p")
    clean = s.edit(para.id, '<h2 id="x">A</h2><p>para [s1]</p><h2>B</h2>')
    assert "<h2" not in clean and "para [s1]" in clean


_OUTLOOK = (
    '<!-- pid:outlook:00000000 -->\n<h2 id="outlook">Outlook</h2>\n'
    "<!-- pid:outlook:0011aabb -->\n<p>Next batch [s1].</p>\n"
    "<!-- pid:outlook:0022ccdd -->\n<p>Demo day moves [s2].</p>\n"
)


def _new_section_session() -> tuple[Document, Document, ReviewSession, str, list[str]]:
    from tests.conftest import CORPUS as _CORPUS

    doc = Document.read(_CORPUS / "yc-w26-batch.o-o.html")
    html = doc.article_html
    at = html.index('<h2 id="references">')
    cand = doc.with_article(html[:at] + _OUTLOOK + html[at:])
    s = ReviewSession(doc, cand)
    heading = next(h.id for h in s.diff.decidable if h.tag == "h2")
    body = [h.id for h in s.diff.decidable if h.tag == "p"]
    assert len(body) == 2
    return doc, cand, s, heading, body


def test_a_new_sections_body_follows_its_heading() -> None:
    doc, cand, s, heading, body = _new_section_session()
    # heading rejected, paragraph accepted: the paragraph must not land in the section before
    s.reject(heading)
    s.accept(body[0])
    s.reject(body[1])
    result = s.result()
    assert (
        "Next batch" not in result.document.article_html
        and "outlook" not in result.document.article_html
    )
    assert result.document.to_bytes() == doc.to_bytes() and not result.changed
    assert any("'outlook' not added" in n and "heading was not accepted" in n for n in result.notes)
    # heading accepted, whole body rejected: no empty heading before References
    s.accept(heading)
    s.reject(body[0])
    result = s.result()
    assert 'id="outlook"' not in result.document.article_html
    assert result.document.to_bytes() == doc.to_bytes()
    assert any("none of the text under its heading" in n for n in result.notes)
    # heading and one paragraph: the section with that paragraph
    s.accept(body[1])
    final = s.apply()
    assert 'id="outlook"' in final.article_html and "Demo day moves" in final.article_html
    assert "Next batch" not in final.article_html
    for flags in itertools.product((True, False), repeat=3):
        for hid, ok in zip([heading, *body], flags, strict=True):
            (s.accept if ok else s.reject)(hid)
        _assert_sections_whole(s.apply(), doc, cand)


def test_an_edited_heading_counts_as_accepted_for_its_section() -> None:
    _, _, s, heading, body = _new_section_session()
    s.edit(heading, '<h2 id="outlook">Looking ahead</h2>')
    s.accept(body[0])
    final = s.apply().article_html
    assert final.index("Looking ahead") < final.index("Next batch") < final.index('id="references"')


def test_a_removed_section_is_decided_whole() -> None:
    """Issue 12: a section removed whole is one change (no heading left over no text, no text
    left under no heading); an edit of it stands once, where the section was."""
    from tests.conftest import CORPUS as _CORPUS

    doc = Document.read(_CORPUS / "yc-w26-batch.o-o.html")
    units, tail = split_units(doc.article_html)
    h2s = [i for i, u in enumerate(units) if u.tag == "h2"]
    first, second = h2s[0], h2s[1]  # drop the first section, heading and body
    assert second - first >= 3
    cand = doc.with_article(
        "".join(u.raw for i, u in enumerate(units) if not first <= i < second) + tail
    )
    s = ReviewSession(doc, cand)
    (heading,) = [h.id for h in s.diff.decidable if h.area == "article"]
    for ok in (True, False):
        (s.accept if ok else s.reject)(heading)
        _assert_sections_whole(s.apply(), doc, cand)
    s.accept(heading)
    assert s.apply().article_html == cand.article_html
    s.reject(heading)
    assert s.apply().article_html == doc.article_html
    s.edit(heading, '<h2 id="overview">Overview</h2><p>Shorter now.</p>')
    final = s.apply().article_html
    assert final.count("Shorter now.") == 1 and units[first + 1].body not in final


def test_accept_all_and_reject_all_keep_an_edit(corpus_dir: Path) -> None:
    _, _, _, session = _setup(corpus_dir, "anthropic-leadership.o-o.html")
    hid = _hunk(session, "changed")
    clean = session.edit(hid, "<p>My own wording [s1].</p>")
    assert session.accept_all() == 1
    assert session.choice(hid).decision == "edit" and session.choice(hid).html == clean
    assert session.counts() == {"pending": 0, "accept": 4, "reject": 0, "edit": 1}
    assert "My own wording [s1]." in session.apply().article_html
    assert session.reject_all() == 1
    assert session.counts() == {"pending": 0, "accept": 0, "reject": 4, "edit": 1}
    assert "My own wording [s1]." in session.apply().article_html
    session.reject(hid)  # deciding the hunk itself drops the edit
    assert session.reject_all() == 0 and not session.result().changed


def test_a_kept_fact_keeps_its_new_source(corpus_dir: Path) -> None:
    """A new source cited by an accepted fact is not an orphan, even when no kept article text
    cites it: the fact and its source both stay. Rejecting the source itself still drops the
    fact that rested on it alone."""
    from tests.review.test_changelog import agi_candidate

    doc, cand = agi_candidate(
        corpus_dir, facts=[{"text": "A lab claimed AGI in a blog post.", "source_ids": ["s20"]}]
    )
    session = ReviewSession(doc, cand)
    fact = next(h.id for h in session.diff.decidable if h.area == "facts")
    para = next(
        h.id for h in session.diff.decidable if h.area == "article" and "[s20]" in h.after_text
    )
    session.accept_all()
    session.reject(para)
    result = session.result()
    final = result.document
    assert "s20" not in final.article.cited_ids
    assert "s20" in [s.id for s in final.source_cache.sources] and "s20" in _ref_ids(final)
    assert [f.source_ids for f in final.source_cache.facts if "blog post" in f.text] == [("s20",)]
    assert not any("not kept" in n for n in result.notes)
    assert (
        set(final.article.cited_ids)
        <= set(_ref_ids(final))
        == {s.id for s in final.source_cache.sources}
    )
    entry = final.changelog.latest
    assert entry is not None and entry.extra["sources_added"] == ["s20"]
    session.reject(fact)  # neither text nor a fact cites it now: the orphan goes
    assert "s20" not in [s.id for s in session.apply().source_cache.sources]
    session.accept(fact)
    session.reject("src:s20")
    final = session.apply()
    assert "s20" not in [s.id for s in final.source_cache.sources]
    assert not any("blog post" in f.text for f in final.source_cache.facts)


def test_every_mix_with_a_fact_on_a_new_source(corpus_dir: Path) -> None:
    """Every decision mix over a candidate whose new source is cited by text, a fact, the
    summary and the sentinel evidence: citations resolve, References match the cache, a new
    source stays only while kept text or a kept fact cites it, no fact names a missing source,
    and the changelog cites only kept sources."""
    from oo_nb.format.vocab import citation_ids
    from oo_nb.review.blocks import changelog_entries
    from tests.review.test_changelog import agi_candidate

    doc, cand = agi_candidate(
        corpus_dir, facts=[{"text": "A lab claimed AGI in a blog post.", "source_ids": ["s20"]}]
    )
    session = ReviewSession(doc, cand)
    ids = [h.id for h in session.diff.decidable]
    assert len(ids) == 4
    for flags in itertools.product((True, False), repeat=len(ids)):
        for hid, ok in zip(ids, flags, strict=True):
            (session.accept if ok else session.reject)(hid)
        final = session.apply()
        kept = {s.id for s in final.source_cache.sources}
        fact_ids = {i for f in final.source_cache.facts for i in f.source_ids}
        assert set(final.article.cited_ids) <= kept == set(_ref_ids(final)), flags
        assert fact_ids <= kept, flags
        if "s20" in kept:
            assert "s20" in set(final.article.cited_ids) | fact_ids, flags
        if any(flags):
            entry = changelog_entries(final.block_json("oo-changelog"))[-1]
            assert set(citation_ids(f"{entry['summary']} {entry['sentinel']}")) <= kept, flags


def test_an_edit_under_a_rejected_new_heading_keeps_the_section() -> None:
    """An edit is never overwritten: a hand-edited paragraph of a new section whose heading was
    rejected keeps its heading (accepted, with a note) instead of being dropped."""
    _, _, s, heading, body = _new_section_session()
    s.reject(heading)
    s.edit(body[0], "<p>Next batch, edited by hand [s1].</p>")
    s.reject(body[1])
    result = s.result()
    final = result.document.article_html
    assert 'id="outlook"' in final and "edited by hand" in final
    assert (
        final.index('id="outlook"') < final.index("edited by hand") < final.index('id="references"')
    )
    assert "Demo day moves" not in final
    assert result.edited == 1 and result.accepted >= 1
    assert any("'outlook' added although its heading was rejected" in n for n in result.notes)
    # an edited heading over a body wholly rejected is kept too (the edit is the user's)
    s.edit(heading, '<h2 id="outlook">Looking ahead</h2>')
    s.reject(body[0])
    result = s.result()
    assert "Looking ahead" in result.document.article_html
    assert any("no text under it: you edited its heading" in n for n in result.notes)


def test_an_edit_is_inert_on_a_page_with_the_original_script(corpus_dir: Path) -> None:
    """The original page script re-reads headings (and attributes in paragraphs) as HTML
    (format/legacy_script.py): a hand edit gets the same look-alikes as agent output."""
    from oo_nb.format.legacy_script import injection_risks

    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    cand = doc.with_article(doc.article_html.replace(">Overview</h2>", ">Overview of W26</h2>", 1))
    session = ReviewSession(doc, cand)
    (h,) = session.diff.decidable
    shown = session.edit(h.id, '<h2 id="overview">Overview &lt;img src=x onerror=alert(1)&gt;</h2>')
    assert shown == '<h2 id="overview">Overview \u2039img src=x onerror=alert(1)\u203a</h2>'
    assert injection_risks(session.apply()) == []


def test_a_heading_edit_keeps_the_sections_level_and_id_whatever_was_typed() -> None:
    """Issue 13: an edited `<h2 id="tariffs">` came back as an `<h3>`. However the heading is
    typed (as an h2, an h3, bare words), it stays the section's h2 with its id, and the section's
    text accepted under it stays under it."""
    _, _, s, heading, body = _new_section_session()
    for typed in (
        '<h2 id="outlook">Looking ahead</h2>',
        "<h3>Looking ahead</h3>",
        "<h2>Looking <em>ahead</em></h2>\n",
        "Looking ahead",
        "  Looking <b>ahead</b>  ",
    ):
        clean = s.edit(heading, typed)
        assert clean.startswith('<h2 id="outlook">Looking ') and clean.endswith("</h2>"), typed
        s.accept(body[0])
        result = s.result()
        final = result.document.article_html
        assert "<h3>Looking" not in final and "<h3 " not in final[final.index("outlook") :], typed
        assert final.index('<h2 id="outlook">Looking') < final.index("Next batch"), typed
        assert [x.id for x in result.document.article.sections][-2:] == ["outlook", "references"]
        assert not any("no text" in n or "none of the text" in n for n in result.notes), (
            result.notes
        )
    for bad in (
        "<h2>A</h2><p>more text</p>",
        "<p>A paragraph</p>",
        "<h3>A</h3><h3>B</h3>",
        '<h2 id="elsewhere">Looking ahead</h2>',
    ):
        with pytest.raises(ValidationError, match="heading"):
            s.edit(heading, bad)
    assert s.choice(heading).html is not None and "Looking" in s.choice(heading).html


def test_a_plain_text_edit_stays_a_paragraph_with_its_citations(corpus_dir: Path) -> None:
    _, _, _, session = _setup(corpus_dir, "anthropic-leadership.o-o.html")
    hid = _hunk(session, "changed")
    pid = session.hunk(hid).pid
    clean = session.edit(hid, "Typed as plain text, a < b & c [s1].\n\nA second one [s2].")
    assert clean == "<p>Typed as plain text, a &lt; b &amp; c [s1].</p>\n<p>A second one [s2].</p>"
    final = session.apply()
    assert f"<!-- {pid} -->\n<p>Typed as plain text" in final.article_html
    (para,) = [p for p in final.article.paragraphs if "plain text" in p.text]
    assert para.tag == "p" and para.pid == pid  # a paragraph, under its own pid
    assert ("s1", pid) in {(c.source_id, c.pid) for c in final.article.citations}
    # inline HTML typed in the text stays in the paragraph
    assert session.edit(hid, "Now <em>stressed</em> [s1].") == "<p>Now <em>stressed</em> [s1].</p>"
    assert session.editor_text(hid) == "Now <em>stressed</em> [s1]."


def test_check_edit_says_what_cleaning_removes_and_decides_nothing(corpus_dir: Path) -> None:
    _, _, _, session = _setup(corpus_dir, "anthropic-leadership.o-o.html")
    hid = _hunk(session, "changed")
    check = session.check_edit(hid, 'Text [s1] <b onclick="x()">bold</b><script>alert(1)</script>')
    assert check.clean == "<p>Text [s1] <b>bold</b></p>"
    assert check.removed == (
        "<script> with everything in it",
        "onclick= (no script runs in a document)",
    )
    assert session.decision(hid) == "pending"
    assert session.check_edit(hid, "Only text [s1].").removed == ()


def test_a_rejected_source_cited_by_accepted_text_is_a_conflict(corpus_dir: Path) -> None:
    _, _, new_id, session = _setup(corpus_dir, "anthropic-leadership.o-o.html")
    session.accept_all()
    assert session.conflicts() == ()
    session.reject(f"src:{new_id}")
    (conflict,) = session.conflicts()
    assert conflict.source_id == new_id and conflict.citing == ("a2",)
    assert conflict.question.startswith(f"You rejected the new source {new_id} (")
    assert "pid:" not in conflict.question and "a2" not in conflict.question
    session.resolve(conflict, keep=False)  # the text citing it goes instead
    assert session.decision("a2") == "reject" and session.conflicts() == ()
    assert new_id not in [s.id for s in session.apply().source_cache.sources]
    session.accept("a2")
    session.resolve(session.conflicts()[0], keep=True)  # or the source stays, as decided now
    assert session.decision(f"src:{new_id}") == "accept" and session.conflicts() == ()


def test_an_accepted_source_removal_that_kept_text_cites_is_a_conflict(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    cand = doc.with_article(doc.article_html.replace(" [s4]", "", 1))
    cand = cand.edit_block(
        "oo-source-cache", lambda c: c.update(sources=[s for s in c["sources"] if s["id"] != "s4"])
    )
    session = ReviewSession(doc, cand)
    session.accept("src:s4")
    assert len(session.conflicts()) == 1  # undecided text is kept as it was: it cites s4 still
    session.reject("a1")
    (conflict,) = session.conflicts()
    assert "accepted removing source s4" in conflict.question
    assert conflict.drop_label == "Accept the text without the citation"
    session.resolve(conflict, keep=False)
    assert session.decision("a1") == "accept" and session.conflicts() == ()


@pytest.mark.parametrize(
    ("typed", "clean"),
    [
        # pid comments copied with the text go, as a browser ends them (the edit gets its own)
        ("<!-- pid:a:0011aabb -->\nText [s1].", "<p>Text [s1].</p>"),
        ("<!-- pid:a:0011aabb --!>Text [s1].", "<p>Text [s1].</p>"),
        # an attribute value is text, whatever it holds
        (
            '<p title="<!-- pid:a:0011aabb -->">Text [s1].</p>',
            '<p title="&lt;!-- pid:a:0011aabb --&gt;">Text [s1].</p>',
        ),
    ],
)
def test_an_edit_loses_its_copied_pids_and_nothing_else(
    corpus_dir: Path, typed: str, clean: str
) -> None:
    _, _, _, session = _setup(corpus_dir, "anthropic-leadership.o-o.html")
    check = session.check_edit(_hunk(session, "changed"), typed)
    assert (check.clean, check.removed) == (clean, ())
