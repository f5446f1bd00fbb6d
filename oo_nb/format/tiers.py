"""Source tiers in a small fixed vocabulary: ``tier_group``.

A source's ``tier`` is free text (FORMAT.md: "not an enum"); eight real o-o documents use 21
distinct strings for a handful of ideas. ``TIER_GROUPS`` is the one table that maps them (after
lower-casing and turning spaces and hyphens into ``_``) to ``GROUPS``. A tier the table does not
know is ``other``; a source without a tier has no group (NA in the frames).

The groups:
- primary: the subject's own words or data (its site, a results page, a leaderboard it runs)
- official: governments, agencies, standards bodies, a company's own product pages (vendor)
- academic: journals, papers, preprints
- news: press and media of any kind, and second-hand coverage (``secondary``)
- industry: analysts, trade bodies, investors, practitioners' technical write-ups
- reference: encyclopaedias, documentation, aggregators and statistics sites
- other: anything else
"""

from __future__ import annotations

__all__ = ["GROUPS", "TIER_GROUPS", "tier_group"]

GROUPS = ("primary", "official", "academic", "news", "industry", "reference", "other")

# tier (normalised) -> group. The first block is every tier seen in real documents (the corpus,
# FORMAT.md's list and the demo); the second, common spellings of the
# same ideas that agents write.
TIER_GROUPS: dict[str, str] = {
    # seen in real documents
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
    # common variants
    "first_party": "primary",
    "dataset": "primary",
    "government": "official",
    "regulator": "official",
    "regulatory": "official",
    "press_release": "official",
    "company": "official",
    "standards": "official",
    "academic": "academic",
    "journal": "academic",
    "paper": "academic",
    "preprint": "academic",
    "peer_reviewed": "academic",
    "research": "academic",
    "media": "news",
    "press": "news",
    "newspaper": "news",
    "wire": "news",
    "trade_press": "industry",
    "trade_body": "industry",
    "analyst": "industry",
    "encyclopedia": "reference",
    "encyclopaedia": "reference",
    "wiki": "reference",
    "documentation": "reference",
    "database": "reference",
    "other": "other",
}


def _normal(tier: str) -> str:
    return "_".join(tier.strip().lower().replace("-", " ").split())


def tier_group(tier: str | None) -> str | None:
    """The group of a free-text tier: ``other`` when unknown, None when there is no tier."""
    if tier is None or not tier.strip():
        return None
    return TIER_GROUPS.get(_normal(tier), "other")
