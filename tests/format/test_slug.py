from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from oo_nb.format.slug import MAX_SLUG, candidate_paths, slugify

SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def test_accents_are_transliterated_and_runs_become_one_dash() -> None:
    assert slugify("Café & Crème — 2026!") == "cafe-and-creme-2026"
    assert slugify("  --Hello,   World!!  ") == "hello-world"
    assert slugify("Straße in Łódź, Ørsted") == "strasse-in-lodz-orsted"
    assert slugify("Ñandú: the rhea") == "nandu-the-rhea"


def test_the_original_would_have_lost_these() -> None:
    # `tr ' ' '-' | sed 's/[^a-z0-9-]//g'`: "Q&A" -> "qa", "a / b" -> "a--b"
    assert slugify('Q&A: "AI"') == "q-and-a-ai"
    assert slugify("A / B / C") == "a-b-c"


def test_never_empty() -> None:
    cjk = slugify("日本語の文書")
    assert re.fullmatch(r"doc-[0-9a-f]{8}", cjk)
    assert slugify("日本語の文書") == cjk  # stable
    assert slugify("中文文档") != cjk
    assert re.fullmatch(r"doc-[0-9a-f]{8}", slugify("!!! ---"))
    assert re.fullmatch(r"doc-[0-9a-f]{8}", slugify(""))


def test_at_most_sixty_characters_cut_at_a_word() -> None:
    title = (
        "The long and winding history of the transatlantic telegraph cable and its many failures"
    )
    slug = slugify(title)
    assert len(slug) <= MAX_SLUG
    assert title.lower().replace(" ", "-").startswith(slug)
    assert not slug.endswith("-")
    one_word = slugify("x" * 100)
    assert one_word == "x" * 60


def test_index_names_are_avoided() -> None:
    # index*.o-o.html is the library page's pattern: discovery skips it
    assert slugify("Index funds") == "doc-index-funds"
    assert slugify("index") == "doc-index"
    assert slugify("Indexing") == "doc-indexing"


def test_candidate_paths_never_repeat_and_stay_short(tmp_path: Path) -> None:
    names = [
        p.name for _, p in zip(range(4), candidate_paths(tmp_path, "solar-storms"), strict=False)
    ]
    assert names == [
        "solar-storms.o-o.html",
        "solar-storms-2.o-o.html",
        "solar-storms-3.o-o.html",
        "solar-storms-4.o-o.html",
    ]
    long = "a" * 60
    second = list(zip(range(12), candidate_paths(tmp_path, long), strict=False))[-1][1]
    assert second.name == "a" * 57 + "-12.o-o.html"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_gives_a_safe_slug(text: str) -> None:
    slug = slugify(text)
    assert SLUG.match(slug), slug
    assert 0 < len(slug) <= MAX_SLUG
    assert not slug.startswith("index")
