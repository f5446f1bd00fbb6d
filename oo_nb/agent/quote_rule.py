"""Whether a quote is specific enough to support its fact. Found on a page is not enough: "the
company said" is on every news page, and marked an unrelated claim as found (issue 28).

The rule: the quote has at least ``SPECIFIC_MIN`` characters (after ``normalise``); when the fact
states numbers, the quote holds at least one of them (digits only: "4,000" is 4000, "33%" is
33); and the quote holds at least one of the fact's names (capitalised words), or, for a fact
without names, one of its longer words (a word matches by its first ``_STEM`` letters, so
"Europe" supports "European"). Measured on the quoted facts of the demo documents (5 of 5
accepted) and on every fact of the demo and corpus documents quoted by its own text (0 of 48
refused): see tests/agent/test_quote_rule.py.
"""

from __future__ import annotations

import re

from oo_nb.agent.quotes import normalise

__all__ = ["SPECIFIC_MIN", "too_generic"]

SPECIFIC_MIN = 20
_STEM = 5
_LONG_WORD = 5
_NUMBER = re.compile(r"(?<![^\W\d_])\d+(?:[,.]\d+)*")  # not the 1 of "s1" or "Q1"
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# capitalised only because they begin a sentence or a title, not names
_NOT_NAMES = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "but",
        "by",
        "for",
        "from",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "since",
        "than",
        "that",
        "the",
        "their",
        "there",
        "these",
        "this",
        "those",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "why",
        "with",
    ]
)


def _numbers(text: str) -> set[str]:
    return {re.sub(r"[,.](?=\d{3}\b)", "", n).rstrip(".,") for n in _NUMBER.findall(text)}


def _stems(words: list[str]) -> set[str]:
    return {w.lower()[:_STEM] for w in words}


def _names(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w[0].isupper() and w.lower() not in _NOT_NAMES]


def too_generic(quote: str, fact: str) -> str | None:
    """Why ``quote`` cannot support ``fact`` (None when it can), in words for a warning."""
    said = normalise(quote)
    if len(said) < SPECIFIC_MIN:
        return f"shorter than {SPECIFIC_MIN} characters"
    numbers = _numbers(fact)
    if numbers and not numbers & _numbers(said):
        return "holds none of the fact's numbers (" + ", ".join(sorted(numbers)) + ")"
    anchors = _names(fact) or [w for w in _WORD.findall(fact) if len(w) >= _LONG_WORD]
    if anchors and not _stems(anchors) & _stems(_WORD.findall(said)):
        return "names nothing the fact names"
    return None
