"""Documents that still run the original o-o page script.

That script writes the contract panel and the table of contents with ``innerHTML`` from the
contract's values and the headings' text (FORMAT.md §7), so a ``<`` in any of them becomes markup
in the reader's browser, scripts included. oo_nb's own page script writes them as text. Until a
document is migrated (``oo sync DIR --migrate``), what oo_nb writes into it must not carry a ``<``
into those places; this module finds the places and makes agent-written heading text inert.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from oo_nb.format.blocks import Contract
from oo_nb.format.document import Document

__all__ = [
    "LEGACY_SCRIPT_HINT",
    "OUR_SCRIPT_SIGNATURE",
    "InjectionRisk",
    "contract_risks",
    "has_our_script",
    "heading_risks",
    "inert_heading_text",
    "injection_risks",
    "runs_original_script",
]

# The first line of oo_nb's shared page script (template/common.js): every page we render or
# migrate carries it, an original o-o page never does.
OUR_SCRIPT_SIGNATURE = "/* oo_nb page script"
LEGACY_SCRIPT_HINT = "it runs the original o-o page script; `oo sync DIR --migrate` replaces it"
# What the original injects as HTML (FORMAT.md §7): the identity values and research lists shown
# in the contract panel, and every heading's text in the table of contents.
_CONTRACT_TEXTS = ("subject", "scope", "audience", "tone")
_CONTRACT_LISTS = ("intents", "required_sections")
# Look-alikes that read the same and are never markup.
_INERT = str.maketrans({"<": "\uff1c", ">": "\uff1e"})


@dataclass(frozen=True)
class InjectionRisk:
    where: str  # "contract scope", "heading #recent-developments"
    text: str

    def describe(self) -> str:
        shown = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return f"{self.where} holds '<' ({shown!r}), which the original page script writes as HTML"


def runs_original_script(doc: Document) -> bool:
    """True for a document (not an index page) whose page is not driven by oo_nb's script."""
    return doc.kind == "document" and not has_our_script(doc)


def has_our_script(doc: Document) -> bool:
    """Whether the page part carries oo_nb's script (searched in place: no copy of the page)."""
    return doc.text.find(OUR_SCRIPT_SIGNATURE, doc.html.start, doc.html.end) != -1


def injection_risks(doc: Document) -> list[InjectionRisk]:
    """Values the original page script would turn into markup; empty for documents on our script."""
    if not runs_original_script(doc):
        return []
    headings = ((s.id, s.title) for s in doc.article.sections)
    return contract_risks(doc.contract) + heading_risks(headings)


def contract_risks(contract: Contract) -> list[InjectionRisk]:
    """The contract values (identity texts, intents, sections) holding a ``<``."""
    risks = [
        InjectionRisk(f"contract {key}", str(getattr(contract, key))) for key in _CONTRACT_TEXTS
    ]
    for key in _CONTRACT_LISTS:
        risks += [
            InjectionRisk(f"contract {key}[{i}]", value)
            for i, value in enumerate(getattr(contract, key))
        ]
    return [r for r in risks if "<" in r.text]


def heading_risks(headings: Iterable[tuple[str, str]]) -> list[InjectionRisk]:
    """The headings (id, text) whose text holds a ``<``."""
    return [InjectionRisk(f"heading #{hid}", text) for hid, text in headings if "<" in text]


def inert_heading_text(text: str) -> str:
    """Heading text with ``<``/``>`` swapped for full-width look-alikes (for pages on the
    original script, where a heading's text is re-read as HTML)."""
    return text.translate(_INERT)
