"""A Document shows itself in a notebook: text/plain is the one-line repr, text/html the
sandboxed article (or index) preview; displaying never raises and `import oo_nb` stays light."""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
from pathlib import Path

from oo_nb.format.document import Document
from oo_nb.notebook.preview import ArticlePreview

HOSTILE = (
    "<p>before</p><script>alert(1)</script><img src=x onerror=alert(2)><p>after &amp; more</p>"
)


def test_bundle_is_the_repr_and_the_sandboxed_article(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "agi-declared.o-o.html")
    bundle = doc._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert bundle["text/plain"] == repr(doc) and repr(doc).startswith("<Document ")
    assert bundle["text/html"] == ArticlePreview(doc).to_html()
    assert bundle["text/html"].startswith(
        '<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" '
    )
    assert html.escape(doc.manifest.title) in html.unescape(bundle["text/html"])


def test_hostile_article_stays_inert(tmp_path: Path, corpus_dir: Path) -> None:
    doc = Document.read(shutil.copy(corpus_dir / "agi-declared.o-o.html", tmp_path)).with_article(
        HOSTILE
    )
    frame = doc._repr_mimebundle_()["text/html"]
    assert (
        "<script" not in frame and "<img" not in frame
    )  # everything is inside the srcdoc attribute
    page = html.unescape(frame.split('srcdoc="', 1)[1])
    assert "<script>alert(1)" not in page and "onerror" not in page
    assert "before" in page and "after &amp; more" in page


def test_index_documents_show_their_cards_from_memory(tmp_path: Path, corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "index.o-o.html")
    moved = Document.parse(doc.to_bytes())  # unsaved: no file behind it
    html_out = moved._repr_mimebundle_()["text/html"]
    assert html_out.startswith(
        '<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" '
    ) and "card" in html.unescape(html_out)


def test_exclude_and_broken_documents_fall_back_to_text(tmp_path: Path, corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "agi-declared.o-o.html")
    assert doc._repr_mimebundle_(exclude={"text/html"}) == {"text/plain": repr(doc)}
    assert doc._repr_mimebundle_(include={"text/plain"}) == {"text/plain": repr(doc)}
    no_article = doc.text.replace('<article id="article"', '<section id="gone"', 1)
    no_article = (
        no_article[: no_article.index("</article>", no_article.index('id="gone"'))]
        + "</section>"
        + no_article[
            no_article.index("</article>", no_article.index('id="gone"')) + len("</article>") :
        ]
    )
    broken = Document.parse(no_article.encode())
    assert broken.article_span is None
    assert broken._repr_mimebundle_() == {"text/plain": repr(broken)}


def test_importing_oo_nb_does_not_load_the_preview() -> None:
    code = (
        "import sys, oo_nb\n"
        "from oo_nb.format.document import Document\n"
        "print(sorted(m for m in ('oo_nb.notebook.preview', 'nh3') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
