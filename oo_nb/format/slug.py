"""File names for new documents: ASCII slugs that are never empty and never overwrite a file.

The original kept ``[a-z0-9-]`` after lower-casing, so "Café" lost its "é" and a title in
another script gave an empty name. Here accents are transliterated (NFKD), every other run of
characters becomes one ``-``, and a title with nothing left falls back to ``doc-<hash>``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from oo_nb.format.names import DOC_SUFFIX

__all__ = ["DOC_SUFFIX", "MAX_SLUG", "candidate_paths", "slugify"]

MAX_SLUG = 60
# Letters NFKD does not decompose into ASCII.
_EXTRA = str.maketrans(
    {
        "ß": "ss",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "ø": "o",
        "Ø": "O",
        "đ": "d",
        "Đ": "D",
        "ł": "l",
        "Ł": "L",
        "þ": "th",
        "Þ": "TH",
        "ð": "d",
        "Ð": "D",
        "ı": "i",
        "&": " and ",
    }
)
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def slugify(text: str, max_len: int = MAX_SLUG) -> str:
    """``"Café & Crème — 2026!"`` → ``"cafe-and-creme-2026"``.

    At most ``max_len`` characters, cut at a word boundary when that keeps at least half of
    it. Never empty; never starts with ``index`` (the index page's name pattern, which library
    discovery skips), such slugs get a ``doc-`` prefix.
    """
    ascii_text = (
        unicodedata.normalize("NFKD", text.translate(_EXTRA)).encode("ascii", "ignore").decode()
    )
    slug = _NON_ALNUM.sub("-", ascii_text.lower()).strip("-")
    if not slug:
        slug = "doc-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    if slug.startswith("index"):
        slug = "doc-" + slug
    return _cut(slug, max_len)


def _cut(slug: str, max_len: int) -> str:
    if len(slug) <= max_len:
        return slug
    cut = slug[:max_len]
    if slug[max_len] != "-" and "-" in cut:
        head = cut.rsplit("-", 1)[0]
        if len(head) >= max_len // 2:
            cut = head
    return cut.rstrip("-")


def candidate_paths(folder: Path, slug: str, limit: int = 1000) -> Iterator[Path]:
    """Names to try in order: ``slug``, ``slug-2``, ``slug-3``… (each still ≤ MAX_SLUG).

    Callers create the first one that does not exist with an exclusive create, so a name taken
    between the check and the write is skipped, never overwritten.
    """
    yield folder / f"{slug}{DOC_SUFFIX}"
    for n in range(2, limit + 1):
        tail = f"-{n}"
        base = _cut(slug, MAX_SLUG - len(tail)) if len(slug) + len(tail) > MAX_SLUG else slug
        yield folder / f"{base}{tail}{DOC_SUFFIX}"
