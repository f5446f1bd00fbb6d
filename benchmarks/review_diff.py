"""Review figures on a 150 KB article with 60 paragraphs (target: the diff in <= 100 ms):
a typical update, every paragraph rewritten, applying mixed decisions, building the widget; and
the widget for a proposal adding 300 and 1,200 sources, or 1,200 sections (target: built in
<= 2 s; it builds a group's changes only when the group is opened, 50 at a time, and 40
sections' groups at a time)."""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from oo_nb.format.document import Document
from oo_nb.review.diff import diff_documents
from oo_nb.review.session import ReviewSession
from tests.support.corpus import corpus_dir
from tests.support.review_samples import (
    many_sections_candidate,
    many_sources_candidate,
    synthetic_article_document,
    synthetic_candidate,
)

CORPUS = corpus_dir()  # OO_CORPUS, else tests/fixtures/corpus
TARGET_MS = 100.0
WIDGET_TARGET_MS = 2000.0


def median_ms(fn: Callable[[], Any], n: int = 15) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def full_diff(a: Document, b: Document) -> int:
    """The diff with every hunk's word highlights computed (they are lazy otherwise)."""
    diff = diff_documents(a, b)
    return sum(len(h.words) for h in diff.hunks)


def _five_edits(m: re.Match[str]) -> str:
    words = m.group(0).split(" ")
    for k in range(1, 6):
        i = k * len(words) // 6
        words[i] = "changed"
    return " ".join(words)


def main() -> None:
    base = synthetic_article_document(Document.read(CORPUS / "ai-model-landscape.o-o.html"))
    html = base.article_html
    paragraphs = len(re.findall(r"<p>", html))
    typical, _ = synthetic_candidate(base)
    rewritten = base.with_article(
        re.sub(r"(<p>\w+ \w+ )(\w+)", lambda m: m.group(1) + "revised", html)
    )
    # five edits spread through every paragraph: the common head/tail shortcut cannot help
    spread = base.with_article(re.sub(r"<p>[^<]*</p>", _five_edits, html))
    print(
        f"article: {len(html.encode()):,} bytes, {paragraphs} paragraphs, {len(base.to_bytes()):,} bytes in the file"
    )
    t_typical = median_ms(lambda: full_diff(base, typical))
    hunks = len(diff_documents(base, typical).hunks)
    print(
        f"diff, typical update ({hunks} hunks)             {t_typical:7.1f} ms  ({t_typical / TARGET_MS:.2f} x target)"
    )
    t_all = median_ms(lambda: full_diff(base, rewritten))
    hunks = len(diff_documents(base, rewritten).hunks)
    print(
        f"diff, every paragraph's 3rd word ({hunks} hunks) {t_all:7.1f} ms  ({t_all / TARGET_MS:.2f} x target)"
    )
    t_spread = median_ms(lambda: full_diff(base, spread), n=7)
    print(
        f"diff, every paragraph edited in 5 places      {t_spread:7.1f} ms  ({t_spread / TARGET_MS:.2f} x target)"
    )
    t_same = median_ms(lambda: full_diff(base, base))
    print(f"diff, identical documents                     {t_same:7.1f} ms")

    def mixed() -> None:
        session = ReviewSession(base, typical)
        for n, hunk in enumerate(session.diff.decidable):
            (session.accept if n % 2 == 0 else session.reject)(hunk.id)
        session.apply()

    print(f"diff + apply, half the changes accepted       {median_ms(mixed):7.1f} ms")
    try:
        from oo_nb.notebook.review_widget import ReviewWidget
    except ImportError:  # pragma: no cover - ipywidgets is a dependency
        return
    t_widget = median_ms(lambda: ReviewWidget(base, rewritten), n=3)
    print(f"review widget built, {paragraphs} hunks (no kernel)     {t_widget:7.1f} ms")
    t_typical_widget = median_ms(lambda: ReviewWidget(base, typical), n=5)
    print(f"review widget built, typical update             {t_typical_widget:7.1f} ms")
    for n in (300, 1200):
        many_sources(base, n)
    sections = many_sections_candidate(base, 1200)
    t_sections = median_ms(lambda: ReviewWidget(base, sections), n=3)
    print(
        "review widget built, 1,200 new sections".ljust(48)
        + f"{t_sections:7.1f} ms  ({t_sections / WIDGET_TARGET_MS:.2f} x target)"
    )


def many_sources(base: Document, n: int) -> None:
    """The widget for a proposal adding ``n`` sources: built, the sources group opened (one
    page), a group decision, and every change built (what building used to do)."""
    from ipywidgets.widgets import widget as widget_module

    from oo_nb.notebook.review_widget import ReviewWidget

    cand = many_sources_candidate(base, n)
    t_build = median_ms(lambda: ReviewWidget(base, cand), n=3)
    before = len(widget_module._instances)
    w = ReviewWidget(base, cand)
    models = len(widget_module._instances) - before
    group = next(g for g in w.groups if g.name == "Sources")
    t = time.perf_counter()
    group.toggle_open()
    t_open = (time.perf_counter() - t) * 1e3
    assert group.accept_button is not None
    t = time.perf_counter()
    group.accept_button.click()
    t_group = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    for g in w.groups:
        g.show_more(upto=len(g.ids) - 1)
    t_all = (time.perf_counter() - t) * 1e3
    label = f"{n:,} new sources"
    print(
        f"review widget built, {label}".ljust(48) + f"{t_build:7.1f} ms  "
        f"({t_build / WIDGET_TARGET_MS:.2f} x target; {models:,} widget models)"
    )
    print(f"  open the sources group (one page of 50)       {t_open:7.1f} ms")
    print(f"  Accept group ({len(group.ids):,} changes)".ljust(48) + f"{t_group:7.1f} ms")
    print(
        f"  then every change built (the old way)         {t_all:7.1f} ms  "
        f"({t_all / t_build:.0f} x the build)"
    )


if __name__ == "__main__":
    main()
