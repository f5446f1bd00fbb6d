"""The review widget's plain-text repr stays a few lines however large the proposal: a
candidate with hundreds of unverified sources (or an absurd source id) is summed up, not
listed, in what notebooks save and nbval compares."""

from __future__ import annotations

from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.notebook.review_widget import ReviewWidget
from tests.support.tiny_docs import page, source, updated


def test_the_repr_of_a_huge_proposal_stays_short(tmp_path: Path) -> None:
    original = page([("aaaaaaa1", "Old [s1]")], [source(1)])
    path = tmp_path / "big.o-o.html"
    path.write_bytes(original.to_bytes())
    many = [source(1), *({**source(n), "verified": False} for n in range(2, 200))]
    odd = {**source(1300), "id": "s" + "9" * 5000, "verified": False}
    candidate = updated([("aaaaaaa1", "New [s1] [s2]")], [*many, odd])
    widget = ReviewWidget(Document.read(path), candidate)
    text = repr(widget)
    assert len(text) < 2000, text[:300]
    assert "199 unverified sources" in text  # the count is whole
    assert "s2, s3" in text  # the first ones are named
