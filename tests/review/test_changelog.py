"""The changelog entry written after a partial review: it cites no source the review dropped,
says that parts were rejected, and is dated in the document's own form."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from oo_nb.format.vocab import citation_ids
from oo_nb.review.blocks import changelog_entries
from oo_nb.review.session import ReviewSession

NEW_URL = "https://example.org/agi-claim"


def _section_html(
    doc: Document, sid: str, *, revise: bool = False, extra: str = ""
) -> tuple[str, str]:
    section = next(s for s in doc.article.sections if s.id == sid)
    paras = [p for p in doc.article.paragraphs if p.section == sid and p.pid]
    html = "".join(
        f"<!-- {p.pid} -->\n{p.html.replace('</p>', ' Revised.</p>', 1) if revise and i == 0 else p.html}\n"
        for i, p in enumerate(paras)
    )
    return section.title, html + extra


def agi_candidate(corpus_dir: Path, **extra: Any) -> tuple[Document, Document]:
    """agi-declared with a new paragraph citing a new source s20, a revised paragraph elsewhere
    citing nothing new, and a summary and sentinel evidence that cite s20."""
    doc = Document.read(corpus_dir / "agi-declared.o-o.html")
    title_a, html_a = _section_html(
        doc, "status", extra="<p>A lab claimed AGI in a blog post [s20].</p>\n"
    )
    title_b, html_b = _section_html(doc, "what-would-constitute-agi", revise=True)
    raw: dict[str, Any] = {
        "summary": "Added a lab's AGI claim [s20]; revised the criteria section.",
        "sections": [
            {"id": "status", "title": title_a, "html": html_a},
            {"id": "what-would-constitute-agi", "title": title_b, "html": html_b},
        ],
        "sources": [{"id": "s20", "url": NEW_URL, "title": "AGI claim", "accessed": "2026-11-29"}],
        "sentinel": {
            "status": "not_occurred",
            "evidence": "Only a blog claim so far [s20], not a credible declaration [s3].",
        },
        **extra,
    }
    run = RunInfo(backend="replay", model="m", cost_usd=0.05, seen_urls={NEW_URL})
    return doc, build_candidate(doc, validate_proposal(raw), run, today=date(2026, 11, 29)).document


def _reject_new_source(session: ReviewSession) -> None:
    """Accept every change except the paragraph that cites s20 and s20 itself."""
    session.accept_all()
    for h in session.diff.decidable:
        if h.id == "src:s20" or (h.area == "article" and "[s20]" in h.after_text):
            session.reject(h.id)


def test_partial_review_changelog_cites_no_dropped_source(corpus_dir: Path) -> None:
    doc, cand = agi_candidate(corpus_dir)
    new_entry = changelog_entries(cand.block_json("oo-changelog"))[-1]
    assert (
        "[s20]" in new_entry["summary"] and "[s20]" in new_entry["sentinel"]["evidence"]
    )  # the gap's setup
    session = ReviewSession(doc, cand)
    _reject_new_source(session)
    final = session.apply()
    kept = {s.id for s in final.source_cache.sources}
    assert "s20" not in kept and final.manifest.version == doc.manifest.version + 1
    entry = changelog_entries(final.block_json("oo-changelog"))[-1]
    texts = [
        entry["summary"],
        entry["sentinel"]["evidence"],
        *map(str, final.block_json("oo-manifest")["changelog"]),
    ]
    for text in texts:
        assert set(citation_ids(text)) <= kept, text
    assert "[s3]" in entry["sentinel"]["evidence"]  # a citation of a kept source stays
    assert "revised the criteria section" in entry["summary"]
    assert entry["review"]["rejected"] >= 1 and "rejected" in entry["summary"].lower()
    assert entry["sections"] == ["what-would-constitute-agi"]  # the rejected section is not listed
    assert entry.get("sources_added", []) == [] and "s20" not in entry.get("unverified_sources", [])
    assert (
        "s20" not in final.to_bytes().decode().split("oo-changelog", 1)[1].split("</script>", 1)[0]
    )


def test_everything_accepted_keeps_the_models_summary(corpus_dir: Path) -> None:
    doc, cand = agi_candidate(corpus_dir)
    session = ReviewSession(doc, cand)
    session.accept_all()
    entry = changelog_entries(session.apply().block_json("oo-changelog"))[-1]
    assert entry["summary"] == "Added a lab's AGI claim [s20]; revised the criteria section."
