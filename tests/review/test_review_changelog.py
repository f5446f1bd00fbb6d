"""What a partial review writes about itself: the new changelog entry (and the manifest's own
changelog item) keep the model's words minus every citation of a source the review dropped, say
how many changes were rejected, list only the sources and sections that were kept, and leave the
older entries alone; a sentinel's new evidence cites only kept sources too."""

from __future__ import annotations

from typing import Any

from oo_nb.format.document import Document
from oo_nb.review.apply import ApplyResult
from oo_nb.review.blocks import changelog_entries
from oo_nb.review.session import ReviewSession
from tests.support.tiny_docs import page, source, updated

S1, S2, S3 = source(1), source(2), source(3)
OLD_ITEM = "v1: first look at the tides [s1]"


def _with_manifest_log(doc: Document, items: list[Any]) -> Document:
    return doc.edit_block("oo-manifest", lambda m: m.update(changelog=items))


def _with_evidence(doc: Document, evidence: str, checked: str | None) -> Document:
    def change(c: dict[str, Any]) -> None:
        c["sentinel"] = {
            "event": "a spring tide floods the harbour",
            "criteria": ["water over the quay"],
            "status": "not_occurred",
            "last_checked": checked,
            "evidence": evidence,
        }

    return doc.edit_block("oo-contract", change)


def _docs() -> tuple[Document, Document]:
    """The update drops s1 (and its citation), adds s2 and s3 each with a paragraph, and its
    summary, sentinel and evidence cite all of them."""
    doc = page([("00000001", "Rise [s1]."), ("00000002", "Fall.")], [S1])
    doc = _with_evidence(_with_manifest_log(doc, [OLD_ITEM]), "Nothing yet [s1].", None)
    entry = {
        "summary": "Added the ebb [s3]; dropped [s1].",
        "sections": ["tides"],
        "sources_added": ["s2", "s3"],
        "unverified_sources": ["s3"],
        "sources_dropped": ["s1"],
        "sentinel": {
            "status": "not_occurred",
            "evidence": "Seen [s2], and rumours [s3].",
            "signals": 2,
        },
    }
    cand = updated(
        [("00000001", "Rise."), ("00000002", "Fall [s2]."), ("00000003", "Ebb [s3].")],
        [S2, S3],
        entry=entry,
    )
    cand = _with_manifest_log(cand, [OLD_ITEM, f"v2: {entry['summary']}"])
    cand = _with_evidence(cand, "Seen [s2], and rumours [s3].", "2026-01-02")
    return doc, cand


def _review(accept: set[str]) -> tuple[ApplyResult, dict[str, Any]]:
    doc, cand = _docs()
    session = ReviewSession(doc, cand)
    for h in session.diff.decidable:
        (session.accept if h.id in accept else session.reject)(h.id)
    result = session.result()
    entries = changelog_entries(result.document.block_json("oo-changelog"))
    # the older entries as they were
    assert entries[:-1] == changelog_entries(doc.block_json("oo-changelog"))
    return result, entries[-1]


# s1's removal and s3 rejected: the fall paragraph, s2 and the sentinel fields taken
_TAKEN = {"a2", "src:s2", "contract:sentinel.evidence", "contract:sentinel.last_checked"}


def test_the_entry_cites_only_kept_sources_and_says_what_was_rejected() -> None:
    result, entry = _review(_TAKEN)
    final = result.document
    assert [s["id"] for s in final.block_json("oo-source-cache")["sources"]] == ["s1", "s2"]
    assert (
        entry["summary"]
        == "Added the ebb; dropped [s1]. (Review: 4 of 8 proposed changes rejected.)"
    )
    assert entry["sentinel"] == {
        "status": "not_occurred",
        "evidence": "Seen [s2], and rumours.",
        "signals": 2,
    }
    assert entry["review"] == {
        "accepted": 4,
        "rejected": 4,
        "edited": 0,
        "citations_removed": ["s3"],
    }
    assert entry["sources_added"] == ["s2"] and entry["unverified_sources"] == []
    assert entry["sources_dropped"] == []  # the review kept s1
    assert entry["sections"] == ["tides"]
    # the review tells the user once, though the summary and the sentinel both cited s3
    assert [n for n in result.notes if "[s3]" in n] == [
        "changelog: citation [s3] removed, that source is not kept"
    ]


def test_the_manifest_changelog_item_and_the_sentinel_evidence_follow_too() -> None:
    result, _ = _review(_TAKEN)
    manifest = result.document.block_json("oo-manifest")
    assert manifest["changelog"] == [
        OLD_ITEM,
        "v2: Added the ebb; dropped [s1]. (Review: 4 of 8 proposed changes rejected.)",
    ]
    sentinel = result.document.block_json("oo-contract")["sentinel"]
    assert sentinel["evidence"] == "Seen [s2], and rumours."  # no note in the evidence itself
    assert sentinel["last_checked"] == "2026-01-02"


def test_rejected_evidence_stays_as_it_was() -> None:
    result, _ = _review(_TAKEN - {"contract:sentinel.evidence"})
    sentinel = result.document.block_json("oo-contract")["sentinel"]
    assert sentinel["evidence"] == "Nothing yet [s1]." and sentinel["last_checked"] == "2026-01-02"


def test_everything_the_model_said_about_a_source_the_review_kept_stays() -> None:
    """s1's removal accepted, s3 taken, s2 rejected: only the citations of s1 (in the summary)
    and s2 (in the sentinel) go; the dropped list keeps s1."""
    result, entry = _review({"a1", "src:s1", "a3", "src:s3"})
    assert (
        entry["summary"]
        == "Added the ebb [s3]; dropped. (Review: 4 of 8 proposed changes rejected.)"
    )
    assert entry["sources_dropped"] == ["s1"] and entry["sources_added"] == ["s3"]
    assert entry["unverified_sources"] == ["s3"]
    assert entry["review"]["citations_removed"] == ["s1", "s2"]
    assert entry["sentinel"]["evidence"] == "Seen, and rumours [s3]."
    contract = result.document.block_json("oo-contract")
    assert contract["sentinel"]["evidence"] == "Nothing yet [s1]."  # its change was rejected


def test_an_entry_written_as_text_is_cleaned_too() -> None:
    """A changelog kept as a list of strings (older documents): the new string loses the dropped
    citation and gains the review's note; the older strings are untouched."""
    doc = page([("00000001", "Rise [s1].")], [S1])
    doc = doc.with_block("oo-changelog", ["v1: first look [s1]"])
    cand = updated([("00000001", "Rise [s1]."), ("00000002", "Ebb [s2].")], [S1, S2])
    cand = cand.edit_block("oo-source-cache", lambda c: c.update(last_updated="2026-01-01"))
    cand = cand.with_block("oo-changelog", ["v1: first look [s1]", "v2: the ebb [s2], more [s1]"])
    cand = cand.edit_block("oo-manifest", lambda m: m.update(title="Tides, revised"))
    session = ReviewSession(doc, cand)
    session.reject_all()
    session.accept("manifest:title")
    result = session.result()
    assert result.document.block_json("oo-changelog") == [
        "v1: first look [s1]",
        "v2: the ebb, more [s1] (Review: 2 of 3 proposed changes rejected.)",
    ]


def test_every_new_entry_is_cleaned_whatever_its_form() -> None:
    """An update may append more than one entry, as text or as an object, in a changelog kept as
    ``{"entries": [...]}``; each new one loses the dropped citation and says what was rejected."""
    doc = page([("00000001", "Rise [s1].")], [S1])
    doc = doc.with_block("oo-changelog", {"entries": ["v1: first look [s1]"]})
    cand = updated([("00000001", "Rise [s1]."), ("00000002", "Ebb [s2].")], [S1, S2])
    cand = cand.with_block(
        "oo-changelog",
        {
            "entries": [
                "v1: first look [s1]",
                "v2: the ebb [s2]",
                {"version": 2, "timestamp": "2026-01-02T09:00:00Z", "summary": "The ebb [s2]."},
            ]
        },
    )
    cand = cand.edit_block("oo-manifest", lambda m: m.update(title="Tides, revised"))
    session = ReviewSession(doc, cand)
    session.reject_all()
    session.accept("manifest:title")
    result = session.result()
    note = "(Review: 2 of 3 proposed changes rejected.)"
    assert result.document.block_json("oo-changelog") == {
        "entries": [
            "v1: first look [s1]",
            f"v2: the ebb {note}",
            {
                "version": 2,
                "timestamp": "2026-01-02T09:00:00Z",
                "summary": f"The ebb. {note}",
                "review": {
                    "accepted": 1,
                    "rejected": 2,
                    "edited": 0,
                    "citations_removed": ["s2"],
                },
            },
        ]
    }


def test_a_manifest_changelog_the_update_starts_or_keeps_as_objects() -> None:
    doc = page([("00000001", "Rise [s1].")], [S1])
    doc = doc.with_block(
        "oo-manifest", {k: v for k, v in doc.block_json("oo-manifest").items() if k != "changelog"}
    )
    cand = updated([("00000001", "Rise higher [s1]."), ("00000002", "Ebb [s2].")], [S1, S2])
    cand = _with_manifest_log(cand, ["v2: the ebb [s2]"])
    session = ReviewSession(doc, cand)
    session.accept("a1")
    session.reject("a2")
    session.reject("src:s2")
    note = "(Review: 2 of 3 proposed changes rejected.)"
    assert session.apply().block_json("oo-manifest")["changelog"] == [f"v2: the ebb {note}"]
    # a manifest that kept its changelog as a sentence: every item of the new list is new
    doc = doc.edit_block("oo-manifest", lambda m: m.update(changelog="see the oo-changelog block"))
    session = ReviewSession(doc, cand)
    session.accept("a1")
    session.reject("a2")
    session.reject("src:s2")
    assert session.apply().block_json("oo-manifest")["changelog"] == [f"v2: the ebb {note}"]
    # items as objects: the summary is cleaned, the rest left alone
    doc = _with_manifest_log(doc, [{"version": 1, "summary": "first look [s1]"}])
    cand = _with_manifest_log(
        cand,
        [
            {"version": 1, "summary": "first look [s1]"},
            {"version": 2, "summary": "the ebb [s2]"},
            {"version": 2, "tag": "ebb"},
        ],
    )
    session = ReviewSession(doc, cand)
    session.accept("a1")
    session.reject("a2")
    session.reject("src:s2")
    assert session.apply().block_json("oo-manifest")["changelog"] == [
        {"version": 1, "summary": "first look [s1]"},
        {"version": 2, "summary": f"the ebb {note}"},
        {"version": 2, "tag": "ebb"},
    ]


def test_the_review_note_is_written_once() -> None:
    """A summary that already carries the review's note (a proposal reviewed before) does not get
    it twice; trailing blank space does not end up inside the summary."""
    note = "(Review: 2 of 3 proposed changes rejected.)"
    doc = page([("00000001", "Rise [s1].")], [S1])
    for summary, expected in (
        (f"The ebb [s2]. {note}", f"The ebb. {note}"),
        ("The ebb [s2].\n", f"The ebb. {note}"),
    ):
        cand = updated(
            [("00000001", "Rise higher [s1]."), ("00000002", "Ebb [s2].")],
            [S1, S2],
            entry={"summary": summary},
        )
        session = ReviewSession(doc, cand)
        session.accept("a1")
        session.reject("a2")
        session.reject("src:s2")
        entry = changelog_entries(session.apply().block_json("oo-changelog"))[-1]
        assert entry["summary"] == expected


def test_sources_are_listed_in_number_order() -> None:
    """s9 before s10 (not as text sorts them), in the review's notes and the removed citations."""
    sources = [source(n) for n in range(1, 9)]
    paras = [("00000001", "Rise [s1].")]
    doc = page(paras, sources)
    cand = updated(
        [*paras, ("00000009", "Nine [s9]."), ("0000000a", "Ten [s10].")],
        [*sources, source(9), source(10)],
        entry={"summary": "Added ten [s10] and nine [s9]."},
    )
    cand = cand.edit_block("oo-manifest", lambda m: m.update(title="Tides, revised"))
    session = ReviewSession(doc, cand)
    session.reject_all()
    session.accept("manifest:title")
    session.accept("src:s9")  # sources taken without the text that cites them: not kept
    session.accept("src:s10")
    result = session.result()
    entry = changelog_entries(result.document.block_json("oo-changelog"))[-1]
    assert entry["review"]["citations_removed"] == ["s9", "s10"]
    assert [n.split(" not kept")[0] for n in result.notes if n.startswith("new source")] == [
        "new source s9",
        "new source s10",
    ]
