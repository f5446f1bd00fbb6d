"""Whether a proposal may be written unattended (``--auto``, or the contract's ``review: "auto"``).

``unclean_reasons`` returns why it may not, one sentence per reason; an empty list means clean:
every new source verified, every new ``<a href>`` in the text a page the run read, no run warning,
within budget, no section removed, no quote unsupported. A removed section is one the proposal drops (``Candidate.sections_removed``, or
``drop_sections`` in a saved proposal's data) or any top-level section the candidate lacks; an
unsupported quote is one the run's check did not find (``unsupported_quotes``) or a fact in the
candidate's source cache whose quote is not marked found, unless the document already held it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oo_nb.agent.candidate import Candidate, unsupported_quotes
from oo_nb.agent.claims import article_reasons
from oo_nb.agent.inline_links import unseen_links
from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.format.names import SOURCE_CACHE_BLOCK
from oo_nb.format.vocab import truncate

if TYPE_CHECKING:
    from oo_nb.agent.run import UpdateResult

__all__ = ["unclean_reasons"]

# the warnings ``run.finish`` and the candidate add for what is checked here on its own (said
# once, not twice: ``claims.py`` holds new paragraphs to the same rule)
_COUNTED_ELSEWHERE = ("unverified sources", "the run spent $", "new paragraph ")


def unclean_reasons(result: UpdateResult) -> list[str]:
    """Why ``result``'s proposal must wait for review ([] when it may be written)."""
    candidate = result.candidate
    if candidate is None:
        return ["there is no proposal"]
    reasons: list[str] = []
    if candidate.unverified:
        reasons.append(
            "new source(s) not verified (URL not seen in this run's searches or fetches): "
            + ", ".join(candidate.unverified)
        )
    run = result.run
    if result.overspent:  # (the one rule: ``UpdateResult.overspent``)
        reasons.append(f"over budget: ${result.cost_usd:.4f} of ${result.budget_usd:.2f}")
    before = Document.parse(result.original)  # parsed once for both comparisons
    removed = _removed_sections(before, candidate, result.proposal_data or {})
    if removed:
        reasons.append("section(s) removed: " + ", ".join(removed))
    read = run.read_urls if run else set()  # (pages fetched: a search's hit list is no read)
    reasons += article_reasons(before, candidate.document, read, _required(before))
    links = unseen_links(before, candidate.document, read)
    if links:
        reasons.append(
            "link(s) in the new text to pages this run did not read: "
            + ", ".join(_short(u, 100) for u in links)
        )
    unsupported = _unsupported_quotes(before, candidate)
    if unsupported:
        reasons.append(
            f"{len(unsupported)} quote(s) not found in their source: "
            + "; ".join(_short(q) for q in unsupported)
        )
    warnings = [w for w in result.warnings if not w.startswith(_COUNTED_ELSEWHERE)]
    if warnings:
        reasons.append(f"{len(warnings)} run warning(s): " + "; ".join(_short(w) for w in warnings))
    return reasons


def _removed_sections(original: Document, candidate: Candidate, data: dict[str, Any]) -> list[str]:
    """Sections the proposal takes out: those it drops (the candidate's list, or
    ``drop_sections`` in the saved proposal data) and any top-level section of the document that
    the candidate lacks."""
    said = [str(s) for s in candidate.sections_removed]
    dropped = data.get("drop_sections")
    said += [str(s) for s in dropped] if isinstance(dropped, list) else []
    before = _section_ids(original)
    after = set(_section_ids(candidate.document))
    return list(dict.fromkeys([*said, *(s for s in before if s not in after)]))


def _required(doc: Document) -> tuple[str, ...]:
    try:
        return doc.contract.required_sections
    except OOError:  # a damaged contract requires nothing here (check and the review say so)
        return ()


def _section_ids(doc: Document) -> list[str]:
    return [s.id for s in doc.article.sections if s.level == 2 and s.id]


def _unsupported_quotes(original: Document, candidate: Candidate) -> list[str]:
    """Quotes of facts that the candidate holds and that were not found in their source, unless
    the document already held them so (only what this update brings counts)."""
    said = unsupported_quotes(candidate)
    before = set(_bad_quotes(original))
    new = [q for q in _bad_quotes(candidate.document) if q not in before]
    return list(dict.fromkeys([*said, *new]))


def _bad_quotes(doc: Document) -> list[str]:
    if not doc.has_block(SOURCE_CACHE_BLOCK):
        return []
    try:
        cache = doc.block_json(SOURCE_CACHE_BLOCK)
    except OOError:
        return []
    facts = cache.get("facts") if isinstance(cache, dict) else None
    out = []
    for fact in facts if isinstance(facts, list) else []:
        if isinstance(fact, dict) and fact.get("quote") and fact.get("quote_found") is not True:
            out.append(str(fact["quote"]))
    return out


def _short(text: str, width: int = 160) -> str:
    return truncate(text, width)
