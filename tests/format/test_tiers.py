"""Source tiers map to a fixed vocabulary: every tier real documents use lands in a group."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from oo_nb.format.tiers import GROUPS, TIER_GROUPS, tier_group
from oo_nb.library.library import Library
from tests.conftest import CORPUS

SHARED_CORPUS = Path("/work/shared/corpus")

# The tiers of the corpus documents, FORMAT.md's list and our fixtures (21 strings); each with
# the group it must land in.
REAL_TIERS = {
    "primary": "primary",
    "primary_source": "primary",
    "official": "official",
    "vendor": "official",
    "academic_journal": "academic",
    "academic_paper": "academic",
    "news": "news",
    "secondary": "news",
    "major_outlet": "news",
    "regional_outlet": "news",
    "tech_media": "news",
    "business_media": "news",
    "financial_media": "news",
    "industry": "industry",
    "analysis": "industry",
    "tech_analysis": "industry",
    "vc_analysis": "industry",
    "technical": "industry",
    "reference": "reference",
    "tech_reference": "reference",
    "aggregator": "reference",
}


def test_the_table_uses_only_the_vocabulary() -> None:
    assert set(TIER_GROUPS.values()) <= set(GROUPS)
    assert all(key == key.lower() and " " not in key and "-" not in key for key in TIER_GROUPS)


@pytest.mark.parametrize(("tier", "group"), sorted(REAL_TIERS.items()))
def test_every_real_tier_has_its_group(tier: str, group: str) -> None:
    assert tier_group(tier) == group


def test_spelling_unknown_and_missing() -> None:
    assert tier_group(" Tech-Media ") == "news" and tier_group("Academic Journal") == "academic"
    assert tier_group("horoscope") == "other" and tier_group("primary-ish") == "other"
    assert tier_group(None) is None and tier_group("  ") is None


@pytest.mark.parametrize("folder", [CORPUS, SHARED_CORPUS])
def test_every_corpus_tier_lands_in_a_real_group(folder: Path, tmp_path: Path) -> None:
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here")
    for path in folder.glob("*.o-o.html"):
        shutil.copy(path, tmp_path)
    sources = Library(tmp_path, today=date(2026, 3, 1), workers=1).sources
    tiers = set(sources["tier"].dropna())
    assert len(tiers) >= 15  # the corpus really has many distinct tiers
    groups = sources.drop_duplicates("tier").set_index("tier")["tier_group"]
    assert not [t for t in tiers if groups[t] == "other"], "a real tier fell through to other"
    assert set(groups) >= {"primary", "official", "academic", "news", "industry", "reference"}


def test_the_sources_frame_column(tmp_path: Path) -> None:
    for path in CORPUS.glob("*.o-o.html"):
        shutil.copy(path, tmp_path)
    src = Library(tmp_path, today=date(2026, 3, 1), workers=1).sources
    column = src["tier_group"]
    assert isinstance(column.dtype, pd.CategoricalDtype)
    assert list(column.cat.categories) == list(GROUPS)
    assert (column.isna() == src["tier"].isna()).all()
    (tmp_path / "empty").mkdir()
    empty = Library(tmp_path / "empty", workers=1).sources
    assert list(empty.columns) == list(src.columns) and list(
        empty["tier_group"].cat.categories
    ) == list(GROUPS)
