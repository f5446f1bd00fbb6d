"""Documents that still run the original o-o page script, and the text that script turns into markup.

Every document the original o-o wrote carries one page script (the "Binder JS" of early files, the
``OO:JS`` section of marker files; later copies add a theme button, index files a search and a
sort). Read from its code, these are ALL the places where it hands text to the HTML parser, and
the document text that feeds each:

1. Table of contents, on load: ``toc.innerHTML = '<strong>Contents</strong><br>' + '<a href="#' +
   h.id + '"' + cls + '>' + h.textContent + '</a>'`` for every ``#article h2, #article h3`` (at
   any depth, not only top-level ones). Fed by each h2/h3 heading's TEXT CONTENT, i.e. its text
   with entities already decoded (``&lt;img&gt;`` in the file is ``<img>`` there), and by its
   ``id`` inside a double-quoted attribute (a ``"`` ends it).
2. Citation links, on load when an element ``#references`` exists: ``p.innerHTML =
   p.innerHTML.replace(/\\[s(\\d+)\\]/g, '<a href="#sN" class="cite">[sN]</a>')`` for every ``p``
   in the article. Text is re-escaped by the serialisation, but a ``[sN]`` inside an ATTRIBUTE of
   an element in a paragraph gets a link with its own quotes pasted into the attribute: the rest
   of that attribute and the following ones are then read as markup (as script where the browser
   does not escape ``<`` in attributes on serialisation: Chromium before 138, Safari).
3. Contract panel, on a click of the version badge: ``panel.innerHTML = '<dl>' + ... + '</dl>'``
   from the first ``#oo-contract`` element's JSON: ``identity.subject``, ``scope``, ``audience``,
   ``tone`` (each when truthy, as JavaScript turns it into a string: a list joins its items with
   commas), every item of ``research.intents`` and of ``research.required_sections`` (when the
   value is a non-empty list), and ``budget.max_cost_usd.toFixed(2)`` (digits only: no risk).
   The constant strings (``<em>No contract found.</em>``, the theme button's SVG icons) carry no
   document text.

Not sinks: the manifest's ``title``, ``as_of`` and ``version`` go to ``textContent``; pid comments
become ``data-pid`` through ``setAttribute``; the source cache, the changelog and the manifest's
changelog sit below ``window.stop()`` (or are never read) and are never shown; the index page's
script only compares ``textContent``. An article element with an id such as ``oo-contract`` would
shadow the real block; the sanitiser refuses those ids (``RESERVED_ID_PREFIXES``).

oo_nb's own page script writes all of these as text. Until a document is migrated (``oo sync DIR
--migrate``), what oo_nb writes into it must not carry ``<``, ``>`` or an entity that decodes to
one into those places: agent-written headings (every level: cheap, and a level may change) and
attribute citation marks are made inert with look-alike characters (``inert_heading_text``,
``inert_fragment``); contract edits holding such values are refused (``oo_nb.edit.contract``);
``oo check`` and ``oo audit`` report what a document already holds (``injection_risks``, the
library's digest through ``article_risks`` and ``contract_risks``).
"""

from __future__ import annotations

import html as html_lib
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.article_model import Model, Node
from oo_nb.format.blocks import Contract
from oo_nb.format.document import Document
from oo_nb.format.names import CONTRACT_BLOCK
from oo_nb.format.vocab import truncate
from oo_nb.skin import sync_advice

__all__ = [
    "ORIGINAL_CITATION",
    "OUR_SCRIPT_SIGNATURE",
    "InjectionRisk",
    "article_risks",
    "carries_markup",
    "contract_risks",
    "has_our_script",
    "heading_risks",
    "inert_fragment",
    "inert_heading_text",
    "injection_risks",
    "legacy_script_hint",
    "runs_original_script",
]

# The first line of oo_nb's shared page script (template/common.js): every page we render or
# migrate carries it, an original o-o page never does.
OUR_SCRIPT_SIGNATURE = "/* oo_nb page script"
_SIGNATURE_BYTES = OUR_SCRIPT_SIGNATURE.encode()
_STAR = OUR_SCRIPT_SIGNATURE.index("*")
_HOPS = 64  # "*" looked at in the bytes before one search of the text settles it


def legacy_script_hint() -> str:
    """What ``oo check`` and the audit add to an ``html-injection`` finding (the fix as the caller
    types it: ``skin``)."""
    return f"it runs the original o-o page script; `{sync_advice('DIR', 'migrate')}` replaces it"


# Sink 3: the contract values the panel concatenates into HTML.
_CONTRACT_TEXTS = ("subject", "scope", "audience", "tone")
_CONTRACT_LISTS = ("intents", "required_sections")
# Sink 1: the headings the table of contents reads.
_TOC_HEADINGS = ("h2", "h3")
_FIRST = operator.itemgetter(0)
_MARKUP_CHARS = re.compile("[<>&]")  # what text must hold to carry markup (``carries_markup``)
# Sink 2: what the citation pass replaces: its own regular expression /\[s(\d+)\]/g, lower case
# only. Not vocab.CITATION (what oo_nb's page links, "[S3]" too): "[S3]" in an attribute is no
# risk under the original script, and marking it would change the text for nothing.
ORIGINAL_CITATION = re.compile(r"\[s([0-9]+)\]")
# Look-alikes that read the same and are never markup. Single angle quotation marks rather than
# the full-width forms: every Latin font has them (cp1252), while "\uff1c" needs a CJK font and
# showed as empty boxes with Debian's default fonts. A WORD JOINER (invisible) after "&" or "["
# keeps the text as it reads and stops a character reference or a citation mark from forming.
_INERT = str.maketrans({"<": "\u2039", ">": "\u203a"})
_JOINER = "\u2060"
_LONGEST_REFERENCE = 40  # characters: longer than any named or numeric character reference
_TAG = re.compile(r"(<[^>]*>)")
_START_TAG = re.compile(r"<[A-Za-z][^>]*>")
_HEADING = re.compile(r"(<h([1-6])\b[^>]*>)(.*?)(</h\2\s*>)", re.IGNORECASE | re.DOTALL)
_ATTRIBUTE = re.compile(r'(\s[^\s"\'>/=]+=)"([^"]*)"')
_URL_ATTRIBUTES = frozenset({"href", "src"})


@dataclass(frozen=True)
class InjectionRisk:
    where: str  # "contract scope", "contract intents[2]", "heading #recent-developments"
    text: str
    reason: str = ""  # what makes it markup; derived from the text when empty

    @property
    def field(self) -> str:
        """``where`` without a list position: the same value moved in its list is the same risk."""
        return re.sub(r"\[\d+\]$", "", self.where)

    @property
    def cause(self) -> str:
        return self.reason or _markup_reason(self.text)

    @property
    def shown(self) -> str:
        return repr(truncate(self.text, 60))

    def describe(self) -> str:
        return f"{self.where} {self.cause} ({self.shown}), which the original page script writes as HTML"


def runs_original_script(doc: Document) -> bool:
    """True for a document (not an index page) whose page is not driven by oo_nb's script."""
    return doc.kind == "document" and not has_our_script(doc)


def has_our_script(doc: Document) -> bool:
    """Whether the page part carries oo_nb's script (searched in place: no copy of the page).

    A document read from a file is searched in its bytes, hopping from one "*" to the next
    (memchr: an original page has a handful, ours a few dozen) where a search for the whole
    signature in the text reads 1-4 characters a nanosecond. UTF-8 keeps ASCII text as it is
    and never puts an ASCII byte inside another character, so the signature is in the bytes
    where it is in the text."""
    if not doc.decoded_from_bytes:
        return _signature_in_page(doc)
    data, text, html = doc.to_bytes(), doc.text, doc.html
    first = len(text[: html.start].encode())  # the page's first byte (the header is short)
    # the page ends at byte html.end at the earliest (a character is one byte or more) and at
    # html.end + the bytes beyond one that every character of the file takes, at the latest
    last = html.end + len(data) - len(text)
    star = data.find(b"*", first + _STAR, last)
    for _ in range(_HOPS):
        if star < 0:
            return False
        at = star - _STAR
        if data.startswith(_SIGNATURE_BYTES, at):
            # surely inside the page, or near its end in a file with wider characters: ask the text
            return at + len(_SIGNATURE_BYTES) <= html.end or _signature_in_page(doc)
        star = data.find(b"*", star + 1, last)
    return _signature_in_page(doc)  # a page full of "*": one search of the text


def _signature_in_page(doc: Document) -> bool:
    return doc.text.find(OUR_SCRIPT_SIGNATURE, doc.html.start, doc.html.end) != -1


# ----------------------------------------------------------------------------- the rule
def carries_markup(text: str) -> bool:
    """Whether ``text``, handed to the HTML parser, is more than text: a ``<`` or ``>``, or a
    character reference that decodes to one (``&lt;``, ``&#60``, ``&LT``...)."""
    if "<" in text or ">" in text:
        return True
    return "&" in text and any(c in html_lib.unescape(text) for c in "<>")


def _markup_reason(text: str) -> str:
    if "<" in text:
        return "holds '<'"
    if ">" in text:
        return "holds '>'"
    return "holds a character reference that decodes to '<' or '>'"


def inert_heading_text(text: str) -> str:
    """``text`` with ``<``/``>`` swapped for look-alikes (‹ ›), and an invisible word joiner
    after the ``&`` of every character reference that would decode to one: it reads the same
    and stays text when the original page script re-reads it as HTML."""
    text = text.translate(_INERT)
    if "&" not in text:
        return text
    out = []
    for i, char in enumerate(text):
        out.append(char)
        if char == "&" and html_lib.unescape(text[i : i + _LONGEST_REFERENCE])[:1] in "<>":
            out.append(_JOINER)
    return "".join(out)


# ----------------------------------------------------------------------------- agent output
def inert_fragment(fragment: str) -> tuple[str, list[str]]:
    """A sanitised fragment made safe for the original page script, and what was changed.

    The text of every heading (h1-h6) gets ``inert_heading_text``; a citation mark ``[sN]`` in an
    attribute becomes ``%5BsN%5D`` in a URL and ``[`` + word joiner + ``sN]`` elsewhere (reads
    the same), so the citation pass finds none. Everything else is left byte for byte. Expects
    the sanitiser's output (attributes double-quoted, ``<`` and ``>`` escaped inside them)."""
    headings = 0
    attributes = 0

    def heading(m: re.Match[str]) -> str:
        nonlocal headings
        parts = _TAG.split(m.group(3))
        for i in range(0, len(parts), 2):  # even positions: text between tags
            text = html_lib.unescape(parts[i])
            inert = inert_heading_text(text)
            if inert != text:
                parts[i] = html_lib.escape(inert, quote=False)
        inner = "".join(parts)
        if inner != m.group(3):
            headings += 1
        return m.group(1) + inner + m.group(4)

    def attribute(m: re.Match[str]) -> str:
        nonlocal attributes
        value = html_lib.unescape(m.group(2))
        if not ORIGINAL_CITATION.search(value):
            return m.group(0)
        attributes += 1
        in_url = m.group(1).strip().rstrip("=").lower() in _URL_ATTRIBUTES
        mark = "%5Bs{}%5D" if in_url else "[" + _JOINER + "s{}]"
        value = ORIGINAL_CITATION.sub(lambda c: mark.format(c.group(1)), value)
        return f'{m.group(1)}"{html_lib.escape(value, quote=True)}"'

    out = _HEADING.sub(heading, fragment)
    out = _START_TAG.sub(lambda t: _ATTRIBUTE.sub(attribute, t.group(0)), out)
    changed = []
    if headings:
        changed.append(f"'<', '>' or '&' in {headings} heading(s)")
    if attributes:
        changed.append(f"a citation mark [sN] in {attributes} attribute(s)")
    return out, changed


# ----------------------------------------------------------------------------- what a page holds
def injection_risks(doc: Document) -> list[InjectionRisk]:
    """Values the original page script would turn into markup; empty for documents on our script."""
    if not runs_original_script(doc):
        return []
    risks: list[InjectionRisk] = []
    try:  # the raw JSON, as the script reads it: a value oo_nb finds invalid is still shown
        contract = doc.block_json(CONTRACT_BLOCK)
    except OOError:
        contract = None  # unreadable or missing: reported as such by whoever asked
    if isinstance(contract, dict):
        risks += contract_risks(contract)
    if doc.article_span is not None and doc.article_html.strip():
        risks += article_risks(doc.article_model)
    return risks


def contract_risks(contract: Contract | Mapping[str, Any]) -> list[InjectionRisk]:
    """The contract values the panel shows (sink 3) that carry markup, read as the page script
    reads them (a value's JavaScript string; lists only when they are lists)."""
    raw = contract.raw if isinstance(contract, Contract) else contract
    identity = _object(raw.get("identity"))
    research = _object(raw.get("research"))
    values = [identity.get(key) for key in _CONTRACT_TEXTS]
    for key in _CONTRACT_LISTS:
        items = research.get(key)
        if isinstance(items, list):
            values += items
    try:  # every value a string (or none): one look at them all, no markup in most contracts
        joined = "".join([value for value in values if value is not None])
    except TypeError:
        joined = "<"  # some other value: read each below
    if "<" not in joined and ">" not in joined and "&" not in joined:
        return []
    risks = []  # (a risk made only for a value that carries markup)
    for key in _CONTRACT_TEXTS:
        value = identity.get(key)
        if _js_truthy(value) and carries_markup(text := _js_string(value)):
            risks.append(InjectionRisk(f"contract {key}", text))
    for key in _CONTRACT_LISTS:
        items = research.get(key)
        if isinstance(items, list):
            for i, item in enumerate(items):
                if carries_markup(text := _js_string(item)):
                    risks.append(InjectionRisk(f"contract {key}[{i}]", text))
    return risks


def article_risks(model: Model) -> list[InjectionRisk]:
    """What the table of contents (sink 1) and the citation pass (sink 2) would turn into
    markup in the article's model: h2/h3 text and ids, attributes inside paragraphs."""
    # (position in the article, then in its paragraph, then among the element's attributes)
    found: list[tuple[tuple[int, int, int], list[InjectionRisk]]] = [
        ((h.start, -1, 0), heading_risks(h.attr("id") or "", _markup_text(model.source, h)))
        for name in _TOC_HEADINGS
        for h in model.elements(name)
    ]
    if "[s" in model.source:  # (most articles: only the headings need reading)
        # An attribute with a mark is rare: each element's attributes are looked at (the model
        # keeps its elements by name), not each paragraph's nodes, and a marked one is reported
        # under every paragraph it sits in.
        for nodes in model.named.values():
            for node in nodes:
                if not node.attrs:
                    continue
                for k, a in enumerate(node.attrs):
                    if "[s" not in a.value or not ORIGINAL_CITATION.search(a.value):
                        continue
                    risk = InjectionRisk(
                        f"attribute {a.name}= in a paragraph",
                        a.value,
                        "holds a citation mark [sN]: the citation pass pastes a link into it, "
                        "and the rest of the attribute becomes markup",
                    )
                    up = node.parent
                    while up is not None:
                        if up.name == "p":
                            found.append(((up.start, node.start, k), [risk]))
                        up = up.parent
    found.sort(key=_FIRST)
    return [risk for _, risks in found for risk in risks]


def _markup_text(source: str, node: Node) -> str:
    """``node.text`` where it could carry markup; "" when the source inside the element holds no
    "<", ">" or "&", from which alone its text could get one (most headings: not joined)."""
    return node.text if _MARKUP_CHARS.search(source, node.open_end, node.close_start) else ""


def heading_risks(hid: str, text: str) -> list[InjectionRisk]:
    """The risks of one h2/h3 heading (sink 1), from its id and its text content."""
    risks = []
    if carries_markup(text):
        risks.append(InjectionRisk(f"heading #{hid}", " ".join(text.split())))
    if '"' in hid:
        risks.append(
            InjectionRisk(
                "heading id", hid, "holds '\"', which ends the table of contents link's attribute"
            )
        )
    return risks


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _js_truthy(value: Any) -> bool:
    return isinstance(value, (list, dict)) or value not in (None, False, "", 0)


def _js_string(value: Any) -> str:
    """``'' + value`` in JavaScript, for a JSON value."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join("" if item is None else _js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)
