"""The model repeats the API key into its proposal: where it could land in the document, the
echoes to try, and a scan of each place for any of them.

The echo goes into every field a proposal writes (section title and html, a source's title,
a fact, the summary, an image caption and alt text); the scan reads the written document back
by place: headings, paragraphs, References, figures (article) and the manifest, source cache,
facts and changelog (blocks). A place leaks when it holds the whole key or ``MIN_ECHO``
characters in a row of its random part, in any case."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

from oo_nb.format.document import Document
from oo_nb.format.names import CHANGELOG_BLOCK, MANIFEST_BLOCK, SOURCE_CACHE_BLOCK
from oo_nb.redaction import MIN_ECHO

__all__ = ["PLACES", "VARIANTS", "echo_found", "inject", "leaking_places", "random_part"]

PLACES = (
    "headings",
    "paragraphs",
    "References",
    "figures",
    "manifest",
    "cache",
    "facts",
    "changelog",
)
_PREFIX = re.compile(r"sk-ant-[a-z]+[0-9]*-", re.IGNORECASE)


def random_part(key: str) -> str:
    m = _PREFIX.match(key)
    return key[m.end() :] if m else key


VARIANTS: dict[str, Callable[[str], str]] = {
    "exact": lambda key: key,
    "partial": lambda key: random_part(key)[3 : 3 + MIN_ECHO + 4],  # 16 characters of the middle
    "case-changed": lambda key: key.swapcase(),
}


def inject(echo: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``research_scenario(proposal=…)`` hook writing ``echo`` into every field."""

    def rewrite(proposal: dict[str, Any]) -> dict[str, Any]:
        p = copy.deepcopy(proposal)
        section = p["sections"][0]
        sid = p["sources"][0]["id"]
        section["title"] = f"Recent developments ({echo})"
        section["html"] = (
            f"<p>The key {echo} was mentioned [{sid}].</p><ul><li>and again: {echo}</li></ul>"
            f'<p><a href="https://example.org/?q={echo}">link</a> <span title="{echo}">x</span></p>'
        )
        p["sources"][0]["title"] = f"Report quoting {echo}"
        p["facts"] = [{"text": f"The token is {echo}.", "source_ids": [sid]}]
        p["summary"] = f"Added recent developments; key {echo}."
        for image in p.get("images") or []:
            image["caption"], image["alt"] = f"Chart {echo}", f"alt {echo}"
        return p

    return rewrite


def echo_found(text: str, key: str) -> bool:
    """Does ``text`` hold ``key``, or ``MIN_ECHO`` characters of its random part, in any case?"""
    low, part = text.lower(), random_part(key).lower()
    if key.lower() in low:
        return True
    return any(part[i : i + MIN_ECHO] in low for i in range(len(part) - MIN_ECHO + 1))


def _places(doc: Document) -> dict[str, str]:
    article = doc.article_html
    refs_at = article.find('id="references"')
    body, refs = (article, "") if refs_at < 0 else (article[:refs_at], article[refs_at:])
    headings = "".join(re.findall(r"<h[1-6]\b.*?</h[1-6]\s*>", body, re.DOTALL | re.IGNORECASE))
    figures = "".join(re.findall(r"<figure\b.*?</figure\s*>", body, re.DOTALL | re.IGNORECASE))
    cache = doc.block_json(SOURCE_CACHE_BLOCK)
    facts = cache.pop("facts", None) if isinstance(cache, dict) else None
    return {
        "headings": headings,
        "paragraphs": body,
        "References": refs,
        "figures": figures,
        "manifest": doc.block_text(MANIFEST_BLOCK),
        "cache": json.dumps(cache, ensure_ascii=False),
        "facts": json.dumps(facts, ensure_ascii=False),
        "changelog": doc.block_text(CHANGELOG_BLOCK),
    }


def leaking_places(doc: Document, key: str) -> list[str]:
    """The places of ``doc`` where ``key`` (or an echo of it) is found."""
    return [place for place, text in _places(doc).items() if echo_found(text, key)]
