"""What the model sees: the contract, the manifest, the article as compact HTML (section ids, pid
comments and ``[sN]`` kept; images, CSS, browser script and shell left out), the source cache, the
recent changelog, today's date and the as-of focus — and the system prompt with the rules.

The whole file is never sent: embedded images alone can be most of its bytes. Each embedded image
becomes ``<img src="oo-image:N" alt=…>`` (its figure and caption stay), and ``image_refs`` maps the
placeholder back to the original ``src`` so a section the model rewrites can keep its figures.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from datetime import date
from html import escape as html_escape
from typing import Any

from oo_nb.agent.link_notes import link_notes
from oo_nb.agent.proposal import DROPPABLE_ID
from oo_nb.agent.sections import SVG_PLACEHOLDER, UNSEEN_TAGS, is_required
from oo_nb.errors import AgentError, OOError
from oo_nb.format.article_model import VOID, Model, Node, read_model
from oo_nb.format.document import Document
from oo_nb.format.model_edits import IMG_START, spliced
from oo_nb.format.names import IMAGE_REF_PREFIX, SOURCE_CACHE_BLOCK
from oo_nb.format.vocab import CITATION, PID

__all__ = [
    "IMAGE_PLACEHOLDER",
    "AgentContext",
    "build_context",
    "compact_article",
    "contract_view",
    "hide_images",
    "next_source_id",
    "restore_images",
    "system_prompt",
]

IMAGE_PLACEHOLDER = IMAGE_REF_PREFIX  # src of an image the model sees: oo-image:N
RECENT_CHANGES = 3
_KEEP_ATTRS = {
    "id",
    "class",
    "href",
    "alt",
    "src",
    "title",
    "colspan",
    "rowspan",
    "data-pid",
    "lang",
}
_SOURCE_ID = re.compile(r"^s(\d+)$")
_BLANK_LINES = re.compile(r"\n\s*\n+")
# Procedure steps about reading or editing the file: our harness does that, the model must not.
_FILE_STEPS = re.compile(
    r"oo-manifest|oo-source-cache|oo-changelog|Edit tool|entire file|window\.stop|inside the <article",
    re.IGNORECASE,
)
_REFS_OMITTED = "<!-- references list omitted: it is rebuilt from the source cache -->"


@dataclass(frozen=True)
class AgentContext:
    """Everything one update run sends the model, plus what the harness needs to read the answer."""

    system: str
    user: str
    title: str
    today: date
    as_of: date | None
    next_source_id: str
    blocked_domains: tuple[str, ...]
    prefer_domains: tuple[str, ...]
    require_https: bool
    sentinel: bool
    model: str | None  # the contract's model, if it names one
    budget_usd: float
    image_refs: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def size_bytes(self) -> int:
        return len(self.system.encode("utf-8")) + len(self.user.encode("utf-8"))

    def with_budget(self, budget_usd: float) -> AgentContext:
        """The same context telling the model ``budget_usd`` (the effective budget, e.g. from
        ``--budget``) instead of the contract's."""
        if budget_usd == self.budget_usd:
            return self
        old = _budget_line(self.next_source_id, self.budget_usd)
        if old not in self.user:  # pragma: no cover - build_context always writes it
            raise AgentError("the update prompt has no budget line to change")
        user = self.user.replace(old, _budget_line(self.next_source_id, budget_usd), 1)
        return dataclasses.replace(self, user=user, budget_usd=budget_usd)


def _budget_line(next_source_id: str, budget_usd: float) -> str:
    return f"Next free source id: {next_source_id}. Budget for this update: ${budget_usd:.2f}."


# --------------------------------------------------------------------------- the article
def compact_article(
    article: str | Model, *, keep_references: bool = True
) -> tuple[str, dict[str, str]]:
    """The article (its HTML, or the document's model) without images (placeholders), scripts,
    styles, inline styles or event handlers; whitespace collapsed. Pid comments, ids, classes,
    links and ``[sN]`` stay; a heading without an id shows the one the page gives it (the id the
    agent names its section by). Without ``keep_references`` the References list (the one the
    page numbers: ``article_model``) is left out (the cache has it). Written from the article
    model, so the model sees what a browser builds."""
    model = read_model(article) if isinstance(article, str) else article
    if not model.source.strip():
        return "", {}
    omit = None if keep_references else model.reference_list()
    refs: dict[str, str] = {}
    out: list[str] = []
    # a stack of nodes and the end tags still to write, not recursion: an article may nest
    # thousands of elements deep
    todo: list[Node | str] = list(reversed(model.root.children))
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        children = _write_compact(item, omit, refs, out, model.heading_ids)
        if children is not None:
            todo.append(f"</{item.name}>")
            todo.extend(reversed(children))
    return _BLANK_LINES.sub("\n", "".join(out)).strip() + "\n", refs


def _write_compact(
    node: Node,
    omit: Node | None,
    refs: dict[str, str],
    out: list[str],
    heading_ids: dict[Node, str],
) -> list[Node] | None:
    """``node``'s start (all of a leaf) written as the model is to see it, onto ``out``; the
    children to write next, then its end tag (None: nothing more of it)."""
    if node.kind == "text":
        out.append(html_escape(node.data, quote=False))
        return None
    if node.kind == "comment":
        if PID.match(node.data):  # a pid as every reader reads one, not any "pid:" note
            out.append(f"<!--{node.data}-->")
        return None
    name = node.name
    if node is omit:
        out.append(_REFS_OMITTED)
        return None
    if name in UNSEEN_TAGS:
        return None
    if name == "svg":
        out.append(SVG_PLACEHOLDER)
        return None
    # an h2 or h3 without an id: the one the page script gives it
    given = heading_ids.get(node) if not node.attr("id") else None
    attrs = [f' id="{html_escape(given)}"'] if given else []
    for a in node.attrs or ():
        if a.name not in _KEEP_ATTRS or (given and a.name == "id"):
            continue
        value = a.value
        if name == "img" and a.name == "src" and (value.startswith("data:") or len(value) > 300):
            key = f"{IMAGE_PLACEHOLDER}{len(refs) + 1}"
            refs[key] = value
            value = key
        attrs.append(f' {a.name}="{html_escape(value)}"')
    out.append(f"<{name}{''.join(attrs)}>")
    return None if name in VOID else node.children


# --------------------------------------------------------------------------- source ids
def next_source_id(doc: Document) -> str:
    """The first ``sN`` above every id in the cache and every ``[sN]`` in the article."""
    numbers = [0]
    try:
        for source in doc.source_cache.sources:
            m = _SOURCE_ID.match(source.id)
            if m:
                numbers.append(int(m.group(1)))
    except OOError:  # a damaged cache still leaves the article's ids
        pass
    if doc.article_span is not None:
        numbers.extend(int(m.group(1)[1:]) for m in CITATION.finditer(doc.article_html))
    return f"s{max(numbers) + 1}"


# --------------------------------------------------------------------------- prompts
def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def contract_view(raw: dict[str, Any]) -> dict[str, Any]:
    """The contract minus what the prompt already says: the role, the sentinel text, procedure
    steps about reading or editing the file, and the budget (the prompt states the effective
    one, which ``--budget`` may override)."""
    view = {k: v for k, v in raw.items() if k != "budget"}
    instructions = raw.get("instructions")
    if isinstance(instructions, dict):
        kept = {k: v for k, v in instructions.items() if k not in ("role", "sentinel", "procedure")}
        steps = instructions.get("procedure")
        if isinstance(steps, list):
            kept["procedure"] = [
                s for s in steps if not (isinstance(s, str) and _FILE_STEPS.search(s))
            ]
        view["instructions"] = kept
    return view


def system_prompt(
    *,
    sentinel: str | None,
    prefer_domains: tuple[str, ...],
    blocked_domains: tuple[str, ...],
    require_https: bool,
    images_allowed: bool,
    max_images: int,
) -> str:
    rules = [
        "You are the research agent of an o-o living document: a long-lived research article that is "
        "updated on a schedule. You do not edit files. You research with the web_search and web_fetch "
        "tools, then hand back the update by calling the `submit_proposal` tool exactly once, at the "
        "end. Never write the proposal as plain text. The harness applies it, bumps the version and "
        "as-of date, records sources and the changelog, and a human may review it.",
        "The contract's `procedure` was written for an agent that edits the file in place: follow "
        "its research intent, but ignore its steps about reading or editing the file, the manifest, "
        "the source cache or the changelog — `submit_proposal` replaces all of that.",
        "Focus on what changed since the as-of date. Keep what is still true; correct what is "
        "outdated; do not pad. If little changed, say so in `summary` and change little.",
        "`sections`: only the sections you change or add. `id` is the section's h2 id (an existing "
        "id replaces that whole section; a new id is inserted before References), `title` the heading "
        "text, `html` the section body WITHOUT its <h2>. Use <h3 id=…> for subsections, <p>, <ul>, "
        "<ol>, <table>, <figure>. No scripts, styles, event handlers or forms. Never send the "
        "`references` section: the References list follows the sources.",
        "`drop_sections`: ids of sections to remove whole (heading and text) when one no longer "
        "serves the scope; a human reviews each removal. Never a section the contract requires, "
        "never `references`; a removed section's sources stay unless you also drop them.",
        "Keep the `<!-- pid:SECTION:HEX -->` comment in front of every paragraph you keep or lightly "
        "edit, unchanged; new paragraphs need no pid comment (one is generated).",
        "Cite every claim inline as [sN], where sN is a source id: an existing id from the source "
        "cache, or a new id for a new source (start at the next free id given below). Each new "
        "source needs `url`, `title`, `tier` (primary, official, news, academic_journal, …) and "
        "`accessed` (today). A new source's URL must be one that appeared in your web_search results "
        "or that you fetched in this conversation: unseen URLs are flagged as unverified. Put "
        "ids of sources that are dead or superseded in `drop_sources` (only if no longer cited).",
        "`facts`: short standalone facts worth keeping for the next update, each with its source ids "
        "and a `quote`: one or two sentences copied verbatim from a page you fetched or a search "
        "result you saw in this conversation that supports the fact. Quotes are checked against "
        "the text of the fact's own sources; a quote that is not there is flagged to the reviewer.",
        "Be efficient: a few targeted searches, fetch only pages you will cite. Your budget is "
        "limited and the tools may stop being offered; when they are, submit with what you have.",
    ]
    if prefer_domains:
        rules.append(
            "Prefer these domains when they carry the information: "
            + ", ".join(prefer_domains)
            + "."
        )
    if blocked_domains:
        rules.append(
            "Never use these domains (they are blocked): " + ", ".join(blocked_domains) + "."
        )
    if require_https:
        rules.append("Only https:// sources are accepted.")
    if images_allowed and max_images > 0:
        rules.append(
            f'Existing images appear as <img src="{IMAGE_PLACEHOLDER}N">: to keep one in a section you rewrite, '
            "keep its whole <figure> with that src unchanged. To add an image, list it in `images` "
            "(direct image URL from a page you saw, the page URL, caption, alt, layout, section id); "
            f"the harness downloads, resizes and embeds it. At most {max_images} images per article."
        )
    else:
        rules.append("Do not add images (`images` must be empty).")
    if sentinel:
        rules.append(
            "This is a SENTINEL document. It watches for one event: " + sentinel.strip() + " First "
            "check whether the event has happened since the as-of date. Set `sentinel.status` to "
            "`occurred`, `not_occurred` or `unknown` with `evidence` (and cite it). While it has not "
            "occurred, keep the article concise (the Status section first); when it has, give full "
            "coverage: who, what definition, what evidence, the response, who disputes it."
        )
    return "\n\n".join(f"- {r}" if i else r for i, r in enumerate(rules))


def build_context(doc: Document, *, today: date, budget_usd: float | None = None) -> AgentContext:
    """The system prompt and the first user message for an update of ``doc``. ``budget_usd``:
    the effective budget when it overrides the contract's (``--budget``)."""
    if doc.kind != "document":
        raise AgentError("the library index page has no article to update", file=doc.file)
    manifest, contract = doc.manifest, doc.contract
    cache_raw = doc.block_json(SOURCE_CACHE_BLOCK)
    log = doc.changelog
    cache = doc.source_cache
    # The references list repeats the cache; keep it only when the cache cannot stand in for it.
    keep_refs = not cache.sources or any(
        src.form == "string" or not src.url for src in cache.sources
    )
    article, refs = compact_article(doc.article_model, keep_references=keep_refs)
    sentinel_text = None
    if contract.sentinel is not None:
        s = contract.sentinel
        sentinel_text = s.event or "the event described in the scope."
        if s.criteria:
            sentinel_text += " Criteria: " + "; ".join(s.criteria) + "."
        if s.structured:
            sentinel_text += f" Last recorded status: {s.status}."
    nxt = next_source_id(doc)
    system = system_prompt(
        sentinel=sentinel_text,
        prefer_domains=contract.prefer_domains,
        blocked_domains=contract.deny_domains,
        require_https=contract.require_https,
        images_allowed=contract.images.allow,
        max_images=contract.images.max_per_article,
    )
    as_of = manifest.as_of
    if as_of is None:
        focus = "This is the document's FIRST update: research the subject from scratch within the scope."
    else:
        days = (today - as_of).days
        focus = (
            f"Last updated {as_of.isoformat()} ({days} days ago). Research what changed SINCE "
            f"{as_of.isoformat()} and update the article accordingly."
        )
    recent = [
        {"version": e.version, "date": e.timestamp, "summary": e.summary}
        for e in log.entries[-RECENT_CHANGES:]
    ]
    manifest_view = {
        "title": manifest.title,
        "version": manifest.version,
        "as_of": as_of.isoformat() if as_of else "",
        "update_every_days": manifest.cadence_days,
    }
    user = "\n".join(
        [
            f'Today is {today.isoformat()}. Update the living document "{manifest.title}".',
            focus,
            _budget_line(nxt, contract.max_cost_usd if budget_usd is None else budget_usd),
            "",
            f"<manifest>{_compact(manifest_view)}</manifest>",
            f"<contract>{_compact(contract_view(contract.raw))}</contract>",
            f"<source_cache>{_compact(cache_raw)}</source_cache>",
            f"<recent_changelog>{_compact(recent)}</recent_changelog>",
            *_removable_line(doc),
            "<article>",
            article.rstrip("\n"),
            "</article>",
            *link_notes(doc),
            "",
            "Research, then call submit_proposal once with your update.",
        ]
    )
    return AgentContext(
        system=system,
        user=user,
        title=manifest.title,
        today=today,
        as_of=as_of,
        next_source_id=nxt,
        blocked_domains=contract.deny_domains,
        prefer_domains=contract.prefer_domains,
        require_https=contract.require_https,
        sentinel=contract.sentinel is not None,
        model=contract.model,
        budget_usd=contract.max_cost_usd if budget_usd is None else budget_usd,
        image_refs=refs,
    )


def _removable_line(doc: Document) -> list[str]:
    """When the contract lists required sections: the article's sections it no longer requires
    (say after `oo contract DOC --remove section "X"`), which the model may propose to remove."""
    required = doc.contract.required_sections
    if not required:
        return []
    loose = [
        f"{s.id} ({s.title})"
        for s in doc.article.sections
        if s.level == 2
        and s.id != "references"
        and s.title.strip().lower() != "references"  # the page's list, whatever its id
        and DROPPABLE_ID.match(s.id)  # never offer what drop_sections cannot name
        and not is_required(required, s.id, s.title)
    ]
    if not loose:
        return []
    return [
        "Sections the contract no longer requires: "
        + "; ".join(loose)
        + ". You may propose removing one with `drop_sections` if it no longer serves the scope."
    ]


def hide_images(html: str, refs: dict[str, str]) -> str:
    """``html`` with each image ``src`` the document already holds (a value of ``refs``) put
    back as its ``oo-image:N`` placeholder: a backend that edits the whole file (Claude Code)
    then proposes what the model sees, so the size caps count what it wrote, not the figures
    the document had (one image of the size the image policy allows fills a section's cap).
    ``restore_images`` puts them back after validation, as for the API backend."""
    return _swap_image_srcs(html, {src: key for key, src in refs.items()})


def restore_images(proposal: Any, refs: dict[str, str]) -> Any:
    """Put the original ``src`` back where the model kept an ``oo-image:N`` placeholder (after
    validation, so the size caps apply to what the model wrote). Unknown placeholders stay and
    are dropped by the sanitiser."""
    if not refs or not getattr(proposal, "sections", None):
        return proposal
    sections = tuple(
        dataclasses.replace(s, html=_swap_image_srcs(s.html, refs)) for s in proposal.sections
    )
    return dataclasses.replace(proposal, sections=sections)


def _swap_image_srcs(html: str, swaps: dict[str, str]) -> str:
    """``html`` with each ``<img>`` element's ``src`` that ``swaps`` holds replaced by its value
    there. Read through the article model, as ``compact_article`` made the placeholders: not the
    text "<img" in an attribute value, a comment or raw text, not a ``data-src``; the value as a
    browser reads it (character references decoded, the first of a repeated ``src``). A splice
    at the value's span: every other byte stays."""
    if not swaps or not IMG_START.search(html):
        return html
    edits: dict[int, tuple[int, str]] = {}
    for img in read_model(html).elements("img"):
        src = next((a for a in img.attrs or () if a.name == "src"), None)
        new = swaps.get(src.value) if src is not None else None
        if src is None or new is None:
            continue
        value = html_escape(new)  # (a URL's "&" and quotes, written as the attribute reads them)
        quoted = src.value_end < src.end  # its closing quote follows the value
        edits[src.value_start] = (src.value_end, value if quoted else f'"{value}"')
    return spliced(html, edits)
