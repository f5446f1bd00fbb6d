"""Issue 26: a heading written twice (two ``id="gold-bars"``) is a finding of ``oo check``: the
page's contents and every link to that id find the first one only."""

from __future__ import annotations

from pathlib import Path

from oo_nb.format.check import check_path
from oo_nb.format.document import Document


def test_a_heading_written_twice_is_reported(corpus_dir: Path, tmp_path: Path) -> None:
    doc = Document.read(corpus_dir / "ai-model-landscape.o-o.html")
    heading = '<h3 id="chatbot-arena">Chatbot Arena (Human Preference)</h3>'
    assert doc.article_html.count(heading) == 1
    target = tmp_path / "twice.o-o.html"
    twice = doc.with_article(doc.article_html.replace(heading, heading + "\n" + heading))
    target.write_bytes(twice.to_bytes())
    found = [
        (f.code, f.severity, f.message) for f in check_path(target) if f.code == "duplicate-id"
    ]
    assert found == [("duplicate-id", "warning", 'id="chatbot-arena" is used by 2 elements')]


def test_the_corpus_has_no_duplicate_id(corpus_dir: Path) -> None:
    for path in sorted(corpus_dir.glob("*.o-o.html")):
        assert not [f for f in check_path(path) if f.code == "duplicate-id"], path.name
