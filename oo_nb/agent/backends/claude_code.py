"""The ``claude`` CLI (Claude Code) as a research backend, as the original o-o ran it, but fenced:

- it runs non-interactively on a SCRATCH COPY in a temporary folder, never on the document;
- model and the remaining budget are passed on (``--model``, ``--max-budget-usd``);
- its edits are turned into a proposal by diffing the copy's article sections (by h2 id), source
  cache and changelog against the original — then validated, sanitised and verified like any
  other proposal (URLs count as seen only when they come back from its WebSearch / WebFetch
  results or their citations, never from reading the document).

Claude Code checks its budget only after each call and can overshoot: a run that reports more than
the budget is marked ``overspent`` (kept for review, never written automatically).

The scratch folder (``oo-claude-PID-XXXX`` in the temp folder) is removed when the run ends, on
SIGTERM too (``store.sigterm``: the CLI is killed, then the folder goes); folders left by a
killed process are removed at the start of the next run (only those holding the marker the run
wrote in them, ``store.stale.mark_scratch``: the temp folder is the user's too). What Claude Code
leaves in place of the copy is read only when it is a regular file: a FIFO would block the read
forever, a device (``/dev/zero``) never ends, a link could point anywhere.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oo_nb.agent.backends.claude_child import run_child
from oo_nb.agent.backends.claude_dropped import dropped_edits, taken_edits
from oo_nb.agent.backends.claude_images import (
    IMAGES_FILE,
    images_prompt,
    read_images_file,
    web_tool_counts,
)
from oo_nb.agent.backends.claude_stream import stream_events
from oo_nb.agent.backends.conversation import collect_urls, read_urls
from oo_nb.agent.budget import Budget
from oo_nb.agent.context import AgentContext, hide_images
from oo_nb.agent.pricing import count, usage_figures
from oo_nb.agent.proposal import DROPPABLE_ID
from oo_nb.agent.quotes import PageTexts, api_texts
from oo_nb.agent.types import RunInfo
from oo_nb.errors import AgentError, BudgetExceeded, OOError
from oo_nb.format.article_model import Model, read_model
from oo_nb.format.blocks import ImagePolicy
from oo_nb.format.document import Document
from oo_nb.format.names import SOURCE_CACHE_BLOCK
from oo_nb.store.refused import keep_refused
from oo_nb.store.sigterm import cleanup_on_sigterm
from oo_nb.store.stale import mark_scratch, sweep_scratch_folders

__all__ = [
    "DROPPED_NOTE",
    "SCRATCH_PREFIX",
    "ClaudeCodeBackend",
    "parse_output",
    "proposal_from_copy",
    "read_scratch_copy",
    "split_sections",
]

SCRATCH_PREFIX = "oo-claude-"
# (each region the copy changed outside what an update takes from it: never written)
DROPPED_NOTE = "Claude Code also changed what an update does not write (dropped, not written)"
_MIN_COPY_LIMIT = 64 * 1024 * 1024  # bytes of the edited copy read back, at least

_URL = re.compile(r"https?://[^\s\"'<>)\]}\\]+")
_WS = re.compile(r"\s+")


# --------------------------------------------------------------------------- diffing
def split_sections(article: str | Model) -> dict[str, tuple[str, str]]:
    """h2 id → (heading text, body HTML up to the next h2), the sections as the page reads them
    (``article_model``, or the document's own model): a pid comment right before the next
    heading belongs to that heading; an h2 without an id is a section under the id the page
    gives it (``Model.heading_ids``), so an ``<h2>Outlook</h2>`` Claude Code adds is a new
    section, not text of the one before. (A repeated id: the first section holds it.)"""
    model = read_model(article) if isinstance(article, str) else article
    source, sections = model.source, model.sections
    out: dict[str, tuple[str, str]] = {}
    for i, section in enumerate(sections):
        end = sections[i + 1].start if i + 1 < len(sections) else len(source)
        if section.id and section.id not in out:
            out[section.id] = (section.title, source[section.heading.end : end].strip())
    return out


def _renamed(before: Model, after: Model) -> dict[str, str]:
    """new id -> old id of each section whose heading, holding no id, Claude Code renamed: the
    page names it by its text, so the new text is a new id, yet it is the section at the same
    place whose old id is gone (a rename in place, not a new section plus a removal)."""
    old, new = before.sections, after.sections
    old_ids, new_ids = {s.id for s in old}, {s.id for s in new}
    return {
        b.id: a.id
        for a, b in zip(old, new, strict=False)
        if not a.id_written and not b.id_written and a.id not in new_ids and b.id not in old_ids
    }


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _object_sources(doc: Document) -> dict[str, dict[str, Any]]:
    raw = doc.block_json(SOURCE_CACHE_BLOCK)
    items = raw.get("sources") if isinstance(raw, dict) else None
    return {s["id"]: s for s in items or [] if isinstance(s, dict) and isinstance(s.get("id"), str)}


def _facts(doc: Document) -> list[Any]:
    return [(f.text, list(f.source_ids)) for f in doc.source_cache.facts]


def _quotes(doc: Document) -> dict[str, Any]:
    """fact text -> the ``quote`` Claude Code gave it in the cache (any type: the validator
    judges it)."""
    raw = doc.block_json(SOURCE_CACHE_BLOCK)
    items = raw.get("facts") if isinstance(raw, dict) else None
    return {
        f["text"]: f["quote"]
        for f in items or []
        if isinstance(f, dict) and isinstance(f.get("text"), str) and "quote" in f
    }


def proposal_from_copy(
    original: Document, edited: Document, *, result_text: str = ""
) -> dict[str, Any]:
    """The ``submit_proposal``-shaped input that reproduces the copy's edits."""
    before = split_sections(original.article_model)
    after = split_sections(edited.article_model)
    for new_id, old_id in _renamed(original.article_model, edited.article_model).items():
        after = {old_id if sid == new_id else sid: value for sid, value in after.items()}
    sections = [
        {"id": sid, "title": title, "html": body}
        # a new section keeps its place: after the section before it in the copy
        | ({"after": [*after][k - 1]} if sid not in before and k else {})
        for k, (sid, (title, body)) in enumerate(after.items())
        if sid != "references"
        and (sid not in before or _norm(before[sid][1]) != _norm(body) or before[sid][0] != title)
    ]
    old_sources, new_sources = _object_sources(original), _object_sources(edited)
    sources = [
        {k: str(s[k]) for k in ("id", "url", "title", "tier", "accessed") if s.get(k) is not None}
        for sid, s in new_sources.items()
        if isinstance(s.get("url"), str)
        and (sid not in old_sources or old_sources[sid].get("url") != s.get("url"))
    ]
    for s in sources:
        s.setdefault("title", s.get("url", ""))
    dropped = [sid for sid in old_sources if sid not in new_sources]
    # a section the copy no longer has is a removal the reviewer decides, never silently kept
    removed = [
        sid
        for sid in before
        if sid not in after and sid != "references" and DROPPABLE_ID.match(sid)
    ]
    old_facts = {text for text, _ in _facts(original)}
    quotes = _quotes(edited)
    facts = [
        {"text": text, "source_ids": ids, **({"quote": quotes[text]} if text in quotes else {})}
        for text, ids in _facts(edited)
        if text not in old_facts
    ]
    entries_before = len(original.changelog.entries)
    latest = edited.changelog.latest
    summary = (
        latest.summary
        if latest is not None and len(edited.changelog.entries) > entries_before and latest.summary
        else (result_text.strip()[:2000] or "Update by Claude Code")
    )
    proposal: dict[str, Any] = {"summary": summary, "sections": sections}
    if sources:
        proposal["sources"] = sources
    if dropped:
        proposal["drop_sources"] = dropped
    if removed:
        proposal["drop_sections"] = removed
    if facts:
        proposal["facts"] = facts
    return proposal


# --------------------------------------------------------------------------- the CLI's output
# Only what came back from the web counts as seen: a URL in the output of Read (the document
# itself holds every link it already cites), Edit, Grep or Bash proves nothing about this run.
_WEB_TOOLS = frozenset({"WebSearch", "WebFetch"})


def _web_urls(text: str) -> set[str]:
    return {u.rstrip(".,;") for u in _URL.findall(text)}


def _search_hits(text: str) -> set[str]:
    """The URLs a WebSearch result gives as its hits: its ``Links`` list when it has one (the
    summary after it is the search model's words), else every URL (no other shape is known)."""
    links = _links_list(text)
    if links is None:
        return _web_urls(text)
    return {
        link["url"] for link in links if isinstance(link, dict) and isinstance(link.get("url"), str)
    }


def _url_fields(value: Any) -> set[str]:
    """The ``url`` fields of a tool result's structured copy (a search's hits, the page a fetch
    read), at any depth: not the URLs written inside its texts."""
    out: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            url = item.get("url")
            if isinstance(url, str) and _URL.fullmatch(url):
                out.add(url)
            stack += item.values()
        elif isinstance(item, list):
            stack += item
    return out


def _tool_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return ""


_MIN_ECHO = 8  # shorter queries hold neither a URL nor a quote (MIN_QUOTE is 12)


def _without_query(value: Any, query: str) -> Any:
    """A search result with the model's own query taken out wherever it is echoed (Claude Code's
    result starts 'Web search results for query: "…"', its structured copy has a ``query``
    field): the query is the model's words, so neither a URL nor a passage in it was read."""
    if len(query.strip()) < _MIN_ECHO:
        return value
    if isinstance(value, str):
        return value.replace(query, " ")
    if isinstance(value, list):
        return [_without_query(v, query) for v in value]
    if isinstance(value, dict):
        return {k: _without_query(v, query) for k, v in value.items() if k != "query"}
    return value


# a passage a WebFetch prompt quotes ("does the page say '…'?"): the answer may echo it
_QUOTED = re.compile(
    rf"\"([^\"]{{{_MIN_ECHO},}})\"|\u201c([^\u201d]{{{_MIN_ECHO},}})\u201d|'([^']{{{_MIN_ECHO},}})'"
)


def _without_prompt(value: Any, prompt: str) -> Any:
    """A WebFetch result with its prompt taken out wherever it is echoed, and so every passage
    and URL the prompt quotes: the prompt is the model's words, not the page's, and an answer
    that repeats it made a made-up quote "found" and a URL never fetched "seen"."""
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "prompt"}
    passages = [g for m in _QUOTED.finditer(prompt) for g in m.groups() if g]
    for said in sorted({prompt, *passages, *_URL.findall(prompt)}, key=len, reverse=True):
        value = _without_query(value, said)
    return value


def _links_list(text: str) -> list[Any] | None:
    """The ``Links: [{"title", "url"}, …]`` list of Claude Code's WebSearch result, if any."""
    start = text.find("Links: [")
    if start < 0:
        return None
    try:
        links, _end = json.JSONDecoder().raw_decode(text, start + len("Links: "))
    except ValueError:
        return None
    return links if isinstance(links, list) else None


def _search_texts(text: str, pages: PageTexts) -> None:
    """A WebSearch result as text. Claude Code's (the query, a JSON list of links, a summary
    its search model wrote): each link's title is its page's text; the summary is nobody's
    page, and counted as the last link's it let a model-written sentence "support" a fact.
    Other shapes: each URL gets the text from it up to the next URL, never another hit's."""
    links = _links_list(text)
    if links is not None:
        for link in links:
            if isinstance(link, dict) and isinstance(link.get("url"), str):
                title = link.get("title")
                pages.add(link["url"], title if isinstance(title, str) else "")
        return
    hits = list(_URL.finditer(text))
    for i, m in enumerate(hits):
        end = hits[i + 1].start() if i + 1 < len(hits) else len(text)
        pages.add(m.group(0).rstrip(".,;"), text[m.end() : end])


def parse_output(
    stdout: str, pages: PageTexts | None = None, read: set[str] | None = None
) -> tuple[dict[str, Any] | None, set[str]]:
    """The final ``result`` object (``--output-format json`` or ``stream-json``) and the URLs
    this run saw on the web: the URL a successful WebFetch read, the hits of a successful
    WebSearch (its ``Links`` list, or the ``url`` fields of its structured copy), each matched to
    its ``tool_use`` by id (a result whose call is unknown does not count), and search results and
    citations inside assistant turns. A URL merely written in a page's or a summary's text is
    not seen: the run did not read it (an advertiser's page naming the document's sources).
    ``read`` (when given) gets the pages the run read: each URL a successful WebFetch read and
    the pages assistant turns cite (``conversation.read_urls``), not a search's hits."""
    result: dict[str, Any] | None = None
    urls: set[str] = set()
    web_calls: dict[str, str] = {}  # tool_use id -> fetched URL ("" for a search)
    queries: dict[str, str] = {}  # tool_use id -> a search's query (echoed in its result)
    prompts: dict[str, str] = {}  # tool_use id -> a fetch's prompt (echoed in its answer)
    for event in stream_events(stdout):
        if event.get("type") == "result":
            result = event
        message = event.get("message")
        blocks = message.get("content") if isinstance(message, dict) else None
        if not isinstance(blocks, list):
            continue
        blocks = [b for b in blocks if isinstance(b, dict)]
        if event.get("type") == "assistant":
            urls |= collect_urls(blocks)
            if read is not None:
                read |= read_urls(blocks)
            if pages is not None:
                api_texts(blocks, pages)
            for b in blocks:
                if (
                    b.get("type") == "tool_use"
                    and b.get("name") in _WEB_TOOLS
                    and isinstance(b.get("id"), str)
                ):
                    args = b.get("input")
                    fetched = (
                        args.get("url")
                        if isinstance(args, dict) and b.get("name") == "WebFetch"
                        else None
                    )
                    web_calls[b["id"]] = fetched if isinstance(fetched, str) else ""
                    query = args.get("query") if isinstance(args, dict) else None
                    if b.get("name") == "WebSearch" and isinstance(query, str):
                        queries[b["id"]] = query
                    asked = args.get("prompt") if isinstance(args, dict) else None
                    if b.get("name") == "WebFetch" and isinstance(asked, str):
                        prompts[b["id"]] = asked
        elif event.get("type") == "user":
            web = [
                b
                for b in blocks
                if b.get("type") == "tool_result"
                and not b.get("is_error")
                and b.get("tool_use_id") in web_calls
            ]
            for b in web:
                query = queries.get(str(b["tool_use_id"]), "")
                content = _without_query(b.get("content"), query)
                content = _without_prompt(content, prompts.get(str(b["tool_use_id"]), ""))
                fetched = web_calls[str(b["tool_use_id"])]
                if fetched:
                    urls.add(fetched)
                    if read is not None:
                        read.add(fetched)
                else:
                    urls |= _search_hits(_tool_text(content))
                if pages is not None:  # the text it showed, for quote checks
                    if fetched:
                        pages.add(fetched, _tool_text(content))
                    else:
                        _search_texts(_tool_text(content), pages)
            # the structured copy of a lone tool result (search hits with their URLs)
            if web and len([b for b in blocks if b.get("type") == "tool_result"]) == 1:
                one = str(web[0]["tool_use_id"])
                copy = _without_query(event.get("tool_use_result"), queries.get(one, ""))
                urls |= _url_fields(_without_prompt(copy, prompts.get(one, "")))
    if result is None:
        try:
            whole = json.loads(stdout)
            result = whole if isinstance(whole, dict) else None
        except json.JSONDecodeError:
            pass
    return result, urls


_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFDIR: "a folder",
}


def _not_regular(mode: int) -> str | None:
    return None if stat.S_ISREG(mode) else _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def read_scratch_copy(path: Path, limit: int) -> bytes:
    """The bytes of the copy Claude Code edited, when it is still a regular file of at most
    ``limit`` bytes; anything else (a FIFO, device, socket, link or folder in its place) is
    refused without being opened for reading."""
    try:
        kind = _not_regular(os.lstat(path).st_mode)
    except FileNotFoundError:
        raise AgentError(f"Claude Code removed the scratch copy {path.name}") from None
    if kind is None:
        # O_NONBLOCK: were it swapped for a FIFO after the lstat, open would not wait for a writer
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:  # swapped for a link (ELOOP) or made unreadable meanwhile
            raise AgentError(
                f"Claude Code's scratch copy {path.name} cannot be read: {exc.strerror}; not read"
            ) from None
        try:
            st = os.fstat(fd)
            kind = _not_regular(st.st_mode)
            if kind is None:
                if st.st_size > limit:
                    raise AgentError(
                        f"Claude Code left a scratch copy of {st.st_size} bytes (limit {limit}); not read"
                    )
                with os.fdopen(os.dup(fd), "rb") as fh:
                    data = fh.read(limit + 1)
                if len(data) > limit:
                    raise AgentError(
                        f"Claude Code's scratch copy grew over {limit} bytes; not read"
                    )
                return data
        finally:
            os.close(fd)
    raise AgentError(
        f"Claude Code left {kind} in place of the scratch copy {path.name}: refused, not read"
    )


def _count_web_tools(stdout: str, run: RunInfo) -> None:
    """Claude Code's result holds no search or fetch counts: count its WebSearch / WebFetch
    tool uses (a reported count, when there is one, is kept when higher)."""
    searches, fetches = web_tool_counts(stdout)
    run.usage = dataclasses.replace(
        run.usage,
        web_searches=max(run.usage.web_searches, searches),
        web_fetches=max(run.usage.web_fetches, fetches),
    )


class ClaudeCodeBackend:
    name = "claude-code"

    def __init__(
        self,
        *,
        model: str,
        doc_path: Path,
        command: str = "claude",
        max_turns: int = 40,
        timeout_s: float = 3600.0,
    ) -> None:
        self.model = model
        self.doc_path = Path(doc_path)
        self.command = command
        self.max_turns = max_turns
        self.timeout_s = timeout_s

    def new_run(self, budget_usd: float) -> RunInfo:
        return RunInfo(backend=self.name, model=self.model, budget_usd=budget_usd)

    def prompt(
        self,
        ctx: AgentContext,
        name: str,
        budget_usd: float,
        images: ImagePolicy | None = None,
    ) -> str:
        focus = (
            f"Research what changed since {ctx.as_of.isoformat()}."
            if ctx.as_of
            else "This is its first update."
        )
        lines = [
            f"Update the o-o living document ./{name} in this folder. Today is {ctx.today.isoformat()}. {focus}",
            "Follow the research intent of the update contract inside the file (the oo-contract JSON block), with these rules:",
            '- Edit only the content of <article id="article"> and the oo-source-cache and oo-changelog JSON blocks. '
            "Do not change the manifest, the contract, the CSS, the scripts or the shell code: the harness sets version and date.",
            "- One <h2 id=…> per section; keep the <!-- pid:… --> comments of paragraphs you keep; cite every claim as [sN].",
            f"- New sources go into oo-source-cache with ids from {ctx.next_source_id} on (id, url, title, tier, accessed); "
            "only URLs you actually found with WebSearch or WebFetch.",
            "- New facts go into oo-source-cache facts as objects {text, source_ids, quote}: quote is a verbatim "
            "sentence or two from a page you fetched or a search result you saw that supports the fact "
            "(it is checked against what you read).",
            "- Append one entry to oo-changelog summarising what changed.",
            f"- Your budget is ${budget_usd:.2f}: a few targeted searches, fetch only what you cite.",
        ]
        if images is not None:
            lines += images_prompt(images.allow, images.max_per_article)
        if ctx.blocked_domains:
            lines.append("- Never use: " + ", ".join(ctx.blocked_domains) + ".")
        if ctx.sentinel:
            lines.append(
                "- This is a SENTINEL document: first check whether its event has happened; stay concise until it has."
            )
        return "\n".join(lines)

    def run(
        self, ctx: AgentContext, *, budget: Budget, run: RunInfo, validate: Callable[[Any], Any]
    ) -> Any:
        exe = shutil.which(self.command)
        if exe is None:
            raise AgentError(f"the `{self.command}` command (Claude Code) is not on PATH")
        original = Document.read(self.doc_path)
        allowance = max(budget.remaining_usd, 0.0)
        scratch_parent = Path(tempfile.gettempdir())
        sweep_scratch_folders(scratch_parent, SCRATCH_PREFIX)  # left by killed runs
        with (
            cleanup_on_sigterm(),
            tempfile.TemporaryDirectory(
                prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=scratch_parent
            ) as tmp,
        ):
            mark_scratch(Path(tmp))  # the sweep removes only folders marked so
            copy = Path(tmp) / self.doc_path.name
            copy.write_bytes(original.to_bytes())
            (Path(tmp) / IMAGES_FILE).write_text("[]\n")  # Edit changes files, never creates them
            cmd = [
                exe,
                "-p",
                self.prompt(ctx, copy.name, allowance, original.contract.images),
                "--output-format",
                "stream-json",
                "--verbose",
                "--model",
                self.model,
                "--max-budget-usd",
                f"{allowance:.2f}",
                "--max-turns",
                str(self.max_turns),
                "--no-session-persistence",
                "--allowedTools",
                "WebSearch",
                "WebFetch",
                "Read",
                "Edit",
            ]
            proc = run_child(cmd, cwd=tmp, timeout_s=self.timeout_s)
            result, urls = parse_output(proc.stdout, run.pages, run.read_urls)
            self._account(result, urls, budget, run)
            _count_web_tools(proc.stdout, run)
            self._check(proc, result, run)
            images, image_warnings = read_images_file(Path(tmp), read_scratch_copy)
            run.warnings.extend(image_warnings)
            limit = max(_MIN_COPY_LIMIT, 8 * len(original.to_bytes()))
            try:
                data = read_scratch_copy(copy, limit)
            except AgentError as exc:  # the run was paid for: say what it cost
                raise AgentError(
                    f"{exc.message} (cost ${run.cost_usd:.4f})", cost_usd=run.cost_usd
                ) from None
            try:
                edited = Document.parse(data, path=copy)
                proposal = proposal_from_copy(
                    original, edited, result_text=str((result or {}).get("result") or "")
                )
                for section in proposal["sections"]:  # its figures as the model saw them
                    section["html"] = hide_images(section["html"], ctx.image_refs)
                if images:
                    proposal["images"] = images
                # what it changed that no update writes: dropped, and the reviewer told so
                dropped = dropped_edits(original, edited)
            except OOError as exc:
                raise AgentError(
                    f"Claude Code left the scratch copy unreadable: {exc} (cost ${run.cost_usd:.4f})",
                    cost_usd=run.cost_usd,
                ) from None
        if not proposal["sections"] and not proposal.get("drop_sections"):
            dropped += taken_edits(original, proposal)  # nothing is written: none of it either
            also = f"; it changed only what an update does not write: {' | '.join(dropped)}"
            raise AgentError(
                f"Claude Code changed no article section{also if dropped else ''} "
                f"(cost ${run.cost_usd:.4f})",
                cost_usd=run.cost_usd,
            )
        run.warnings += [f"{DROPPED_NOTE}: {where}" for where in dropped]
        try:
            return validate(proposal)
        except AgentError as exc:  # paid for: say what it cost, and keep what it found
            why = str(exc)  # (with the field it names: "key 'sections[0].title': ...")
            kept = keep_refused(self.doc_path, proposal, reason=why, cost_usd=run.cost_usd)
            raise AgentError(
                f"Claude Code's edits were refused: {why} (cost ${run.cost_usd:.4f}); "
                f"what it proposed is kept in {kept}",
                cost_usd=run.cost_usd,
            ) from None

    def _account(
        self, result: dict[str, Any] | None, urls: set[str], budget: Budget, run: RunInfo
    ) -> None:
        run.seen_urls |= urls
        if not result:
            return
        usage = result.get("usage")
        run.usage = usage_figures(usage if isinstance(usage, dict) else None)
        run.requests = count(result.get("num_turns"))
        cost = result.get("total_cost_usd")
        run.cost_usd = (
            float(cost)
            if isinstance(cost, (int, float)) and not isinstance(cost, bool)
            else math.nan
        )
        if not math.isfinite(run.cost_usd) or run.cost_usd < 0:
            # none, NaN, Infinity or below 0 is no cost: unknown, so charged the whole allowance
            # (a non-finite number would also make the changelog unwritable, the research lost)
            run.warnings.append(
                f"Claude Code reported a cost of {cost!r}, which is not a cost: charged the whole budget "
                f"(${budget.limit_usd:.2f})"
            )
            run.cost_usd = budget.limit_usd
        budget.spent_usd = run.cost_usd
        if budget.spent_usd > budget.limit_usd + 1e-9:
            run.overspent = True
            run.warnings.append(
                f"Claude Code spent ${run.cost_usd:.4f}, over the ${budget.limit_usd:.2f} budget (it checks only after each call)"
            )

    def _check(
        self, proc: subprocess.CompletedProcess[str], result: dict[str, Any] | None, run: RunInfo
    ) -> None:
        cost = run.cost_usd
        if result is None:
            tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-3:]
            raise AgentError(
                f"Claude Code exited with code {proc.returncode} and no result: {' | '.join(tail) or 'no output'} (cost unknown)",
                cost_usd=cost,
            )
        subtype = str(result.get("subtype") or "")
        if subtype == "error_max_budget_usd":
            raise BudgetExceeded(
                f"budget reached: Claude Code stopped at its budget (cost ${cost:.4f})",
                cost_usd=cost,
            )
        if subtype == "error_max_turns":
            raise AgentError(
                f"Claude Code hit its turn limit ({self.max_turns}) (cost ${cost:.4f})",
                cost_usd=cost,
            )
        if subtype != "success" or result.get("is_error"):
            raise AgentError(
                f"Claude Code failed ({subtype or 'error'}) (cost ${cost:.4f})", cost_usd=cost
            )
