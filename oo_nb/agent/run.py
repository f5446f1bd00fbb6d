"""One update, orchestrated: freshness gate → context → backend → validated proposal → candidate.

Nothing here writes a document except ``write_result``, and that only through the store: without
``yes`` the candidate is saved as the pending proposal (the document's bytes do not change); with
``yes`` it replaces the document (history kept) unless the run went over its budget, in which
case it is kept for review with a warning whatever the flags say.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from oo_nb.agent.budget import Budget, estimate_tokens
from oo_nb.agent.context import AgentContext, build_context, restore_images
from oo_nb.agent.freshness import Freshness, freshness
from oo_nb.agent.pricing import price_for
from oo_nb.agent.types import ResearchInterrupted, RunInfo
from oo_nb.errors import AgentError, ConflictError, LockedError, OOError, redact
from oo_nb.format.article_script import script_markup
from oo_nb.format.document import Document
from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.format.scrub import scrub_document
from oo_nb.format.vocab import truncate
from oo_nb.skin import (
    check_advice,
    force_advice,
    review_advice,
    saved_advice,
    update_all_advice,
)
from oo_nb.store import clock
from oo_nb.store.library_trust import review_auto_problem

if TYPE_CHECKING:
    from oo_nb.agent.backends import Backend
    from oo_nb.agent.candidate import Candidate
    from oo_nb.store.proposals import ProposalInfo

__all__ = [
    "AGENTS",
    "Freshness",
    "Prepared",
    "UpdateOptions",
    "UpdateResult",
    "aprepare_update",
    "begin",
    "choose_agent",
    "finish",
    "freshness",
    "gate",
    "keep_earlier_proposal",
    "make_backend",
    "new_budget",
    "prepare_update",
    "restore_images",
    "run_dict",
    "write_result",
]

AGENTS = ("anthropic", "claude-code", "replay")
# "awaiting": not researched, because an earlier proposal still awaits review; "busy": not
# researched, because another run is researching it
Status = Literal["proposed", "skipped", "awaiting", "busy", "planned"]


@dataclass
class UpdateOptions:
    force: bool = False
    model: str | None = None
    budget_usd: float | None = None
    agent: str | None = None  # None: the API with a key, else a cassette, else Claude Code
    base_url: str | None = None
    cassette: Path | None = None
    dry_run: bool = False
    stream: bool = False
    today: date | None = None
    fetch_image: Callable[[str], bytes] | None = None  # default: https download (not for replays)
    download_images: bool = True
    api_key: str | None = None  # for tests and embedding; the CLI reads only the environment
    claude_command: str = "claude"
    record: Path | None = None  # write this run's API exchanges to a cassette (never the key)
    progress: Callable[[str], None] | None = None  # told each research step as it happens
    # told the agent's name once research begins (after every gate and the agent's choice), so
    # "researching…" is never said before "fresh: not researched again" or "no API key"
    on_start: Callable[[str], None] | None = None
    # the research's deadline in seconds (every request and retry); None: the backend's default
    # (600 s for the API, 3600 s for claude-code, whose runs are longer)
    timeout_s: float | None = None
    # cache_control breakpoints on every request (False: none; for comparing what caching saves)
    prompt_cache: bool = True


@dataclass
class UpdateResult:
    path: Path
    status: Status
    message: str
    original: bytes
    agent: str
    model: str
    budget_usd: float
    freshness: Freshness | None = None
    run: RunInfo | None = None
    candidate: Candidate | None = None
    warnings: list[str] = field(default_factory=list)
    auto_write: bool = False  # may --yes write it? (False when the run overspent)
    written: Path | None = None
    pending: Path | None = None
    not_saved: str = ""  # why the proposal could not be saved for review (its research is lost)
    plan: dict[str, Any] = field(default_factory=dict)  # dry run: what would be sent
    # what a saved proposal stores to rebuild the candidate on review (agent/pending.py)
    proposal_data: dict[str, Any] | None = None
    review: str = "always"  # the contract's `review`: "auto" makes --auto this document's default
    # why an --auto run kept the proposal for review instead of writing it (agent/clean.py)
    kept_because: list[str] = field(default_factory=list)
    # this run's claim on the document's research (store/research_claim), let go once written
    claim: Any = field(default=None, repr=False, compare=False)

    def release_claim(self) -> None:
        claim, self.claim = self.claim, None
        if claim is not None:
            claim.release()

    @property
    def cost_usd(self) -> float:
        return self.run.cost_usd if self.run else 0.0

    @property
    def overspent(self) -> bool:
        """The run spent past this document's budget (flagged by the backend, or by its cost)."""
        return self.run is not None and (self.run.overspent or self.run.cost_usd > self.budget_usd)

    @property
    def outcome(self) -> str:
        """What happened to the document, in the words every report uses: a proposal written
        without review is "written", one saved for review "proposed" (also when it could not be
        saved: the message says so), nothing due "fresh"; else the status."""
        if self.status == "proposed":
            return "written" if self.written is not None else "proposed"
        return "fresh" if self.status == "skipped" else self.status

    def summary(self) -> str:
        """One line: the document, what happened to it, the cost, what the update said."""
        cost = f" (cost ${self.cost_usd:.4f})" if self.cost_usd else ""
        said = self.message.splitlines()[0] if self.message else ""
        said = truncate(said.removeprefix(f"{self.path.name}: "), 160)
        return f"{self.path.name}: {self.outcome}{cost}: {said}"

    def __repr__(self) -> str:  # not the dataclass dump: it holds the file's bytes
        return f"<UpdateResult {self.summary()}>"


# --------------------------------------------------------------------------- backends
def choose_agent(
    requested: str | None,
    doc_path: Path | None = None,
    *,
    cassette: Path | None = None,
    claude_command: str = "claude",
) -> str:
    """The agent asked for (``--agent``, else ``OO_AGENT``), else as o-o would: the API with a
    key; without one, the document's recorded cassette when it has one, else Claude Code when
    ``claude`` is on PATH (the original o-o's own default), else replay (whose error then names
    every way to run)."""
    import shutil

    from oo_nb.agent.models import requested_agent

    # OO_AGENT sets the default (binder/start sets "replay" when there is no key)
    requested = requested_agent(requested)
    if requested:
        if requested not in AGENTS:
            raise AgentError(f"unknown agent {requested!r} (choose {', '.join(AGENTS)})")
        return requested
    from oo_nb.agent.cassettes import find_cassette
    from oo_nb.agent.models import has_api_key

    if has_api_key():
        return "anthropic"
    if cassette is not None or (doc_path is not None and find_cassette(doc_path) is not None):
        return "replay"
    return "claude-code" if shutil.which(claude_command) else "replay"


def make_backend(agent: str, opts: UpdateOptions, model: str, doc_path: Path) -> Backend:
    from oo_nb.agent.backends.conversation import AgentSettings

    settings = AgentSettings(model=model, stream=opts.stream, prompt_cache=opts.prompt_cache)
    deadline: dict[str, Any] = {} if opts.timeout_s is None else {"deadline_s": opts.timeout_s}
    if agent == "anthropic":
        from oo_nb.agent.backends.anthropic import AnthropicBackend

        if opts.record is None:
            return AnthropicBackend(
                model=model,
                api_key=opts.api_key,
                base_url=opts.base_url,
                settings=settings,
                **deadline,
            )
        import httpx2

        from oo_nb.agent.backends.recording import RecordingTransport

        recorder = RecordingTransport()
        backend = AnthropicBackend(
            model=model,
            api_key=opts.api_key,
            base_url=opts.base_url,
            settings=settings,
            http_client=httpx2.Client(transport=recorder),
            **deadline,
        )
        backend.recorder = recorder
        return backend
    if opts.record is not None:
        raise AgentError(
            f"--record needs the anthropic agent (a live or mock endpoint), not {agent}"
        )
    if agent == "replay":
        from oo_nb.agent.backends.replay import ReplayBackend
        from oo_nb.agent.cassettes import find_cassette

        cassette = opts.cassette or find_cassette(doc_path)
        if cassette is None:
            raise AgentError(_no_way_to_run(opts), file=str(doc_path))
        return ReplayBackend(cassette, model=model, settings=settings, document=doc_path.name)
    from oo_nb.agent.backends.claude_code import ClaudeCodeBackend

    claude = ClaudeCodeBackend(model=model, command=opts.claude_command, doc_path=doc_path)
    if opts.timeout_s is not None:
        claude.timeout_s = opts.timeout_s
    return claude


def _no_way_to_run(opts: UpdateOptions) -> str:
    """Why the replay agent (chosen when nothing else can run) has nothing to replay."""
    return (
        "no API key (ANTHROPIC_API_KEY), no recorded cassette for this document and no "
        f"`{opts.claude_command}` command (Claude Code) on PATH: set ANTHROPIC_API_KEY, "
        "install Claude Code and use --agent claude-code, or pass --cassette FILE"
    )


def _validator() -> Callable[[Any], Any]:
    from oo_nb.agent.proposal import validate_proposal

    return validate_proposal


# --------------------------------------------------------------------------- the update
@dataclass
class Prepared:
    """A document read and, unless it is fresh, its context built, before any request."""

    path: Path
    doc: Document
    original: bytes
    today: date
    fresh: Freshness
    agent: str
    model: str
    budget_usd: float
    claim: Any = None  # the research claim ``gate`` took (None: not taken)
    built: AgentContext | None = field(default=None, repr=False)
    # the research run once it began: what it cost so far when update-all is interrupted
    research: RunInfo | None = field(default=None, repr=False)

    @property
    def ctx(self) -> AgentContext:
        """The context; built when first needed (the prompt states the budget this run has)."""
        if self.built is None:
            self.built = build_context(self.doc, today=self.today, budget_usd=self.budget_usd)
        return self.built

    def release_claim(self) -> None:
        claim, self.claim = self.claim, None
        if claim is not None:
            claim.release()

    def result(self, status: Status, message: str = "") -> UpdateResult:
        return UpdateResult(
            self.path,
            status,
            message,
            self.original,
            self.agent,
            self.model,
            self.budget_usd,
            self.fresh,
            review=self.doc.contract.review,
        )


def begin(path: str | Path, opts: UpdateOptions) -> Prepared:
    """Read the document and build the context (no request yet; for a fresh document only when
    it is needed). Raises ``OOError`` for input that cannot be updated."""
    p = Path(path)
    original = p.read_bytes() if p.is_file() else b""
    if not original:
        raise AgentError("no such document (or empty)", file=str(p))
    doc = Document.parse(original, path=p)
    if doc.kind != "document":
        raise AgentError(
            f"this is the library index page, not a document: use `{update_all_advice(p.parent)}`",
            file=str(p),
        )
    if doc.article_span is not None:
        # an edit is a splice at the model's node boundaries: where the model and a browser
        # read the markup differently it could cut what the page shows (before any request)
        unread = doc.article_model.unmodelled_markup()
        if unread:
            at, what = unread[0]
            line = doc.line_of(doc.article_span.start + at)
            raise AgentError(
                f"the article holds markup a browser reads otherwise than oo_nb: {what} (line "
                f"{line}{f', and {len(unread) - 1} more' if len(unread) > 1 else ''}); an "
                f"update could cut into it: change it by hand first (`{check_advice(p)}` "
                "lists it)",
                file=str(p),
                line=line,
            )
    today = opts.today or clock.today()
    budget = opts.budget_usd if opts.budget_usd is not None else doc.contract.max_cost_usd
    from oo_nb.agent.models import resolve_model

    prep = Prepared(
        p,
        doc,
        original,
        today,
        freshness(doc, today),
        choose_agent(opts.agent, p, cassette=opts.cassette, claude_command=opts.claude_command),
        resolve_model(opts.model, doc.contract.model),
        budget,
    )
    if opts.force or not prep.fresh.fresh:  # to be researched: what it needs is checked now
        if not math.isfinite(budget) or budget <= 0:
            raise AgentError(
                f"the budget is ${budget:.2f}: nothing can be spent (set --budget or the contract's budget)",
                file=str(p),
            )
        prep.ctx  # noqa: B018  (built now: a document it cannot be built for fails here)
    # else ``gate`` settles it as fresh without research (as update-all does from the library
    # cache, unread), and its context (90 % of the 8.7 ms reading a document took) is not built
    return prep


def fresh_message(path: Path, fresh: Freshness) -> str:
    return f"{path.name} is {fresh.describe()}; next due {fresh.due}. {force_advice()}"


def _awaiting_message(path: Path, waiting: ProposalInfo) -> str:
    review = review_advice(path, stale=waiting.stale)
    if waiting.stale:
        review = f"the document changed since it was made; {review} reviews it against the file"
    return (
        f"{path.name}: proposal awaiting review since {waiting.made} "
        f"({review}); not researched again. {force_advice('research')}"
    )


def gate(prep: Prepared, opts: UpdateOptions, *, claim: bool = True) -> UpdateResult | None:
    """The review gate, the freshness gate and the dry run: a result when no research should
    happen. A proposal awaiting review is not paid for twice (a cron run would otherwise research
    again every time until someone reviews); ``--force`` researches, setting it aside. With
    ``claim`` the research is claimed when it is to happen (``_claim``): another run's claim
    is a result too."""
    fresh = prep.fresh
    if not opts.force:
        from oo_nb.store.proposals import awaiting_review

        waiting = awaiting_review(prep.path)
        if waiting is not None and waiting.damaged:  # nobody can review it: say how to go on
            return prep.result(
                "awaiting",
                f"{prep.path.name}: the proposal awaiting review is damaged ({waiting.damaged}); "
                f"not researched again. `{saved_advice(prep.path, 'discard', PENDING_PROPOSAL)}` "
                "removes it. " + force_advice("research"),
            )
        if waiting is not None:
            return prep.result("awaiting", _awaiting_message(prep.path, waiting))
    if fresh.fresh and not opts.force:
        return prep.result("skipped", fresh_message(prep.path, fresh))
    if not opts.dry_run:
        if claim:  # --force too: it researches fresh documents and sets a proposal aside,
            # never what another run is researching now (that would be paid twice)
            return _claim(prep, force=opts.force)
        if opts.force:  # a history folder that is a link is refused now, before the research
            # is paid for, not when its proposal is saved (the claim checks it otherwise)
            from oo_nb.store.history_place import check_history_folder

            check_history_folder(prep.path)
        return None
    from oo_nb.agent.backends.conversation import AgentSettings

    result = prep.result("planned")
    s = AgentSettings(model=prep.model)
    b = Budget(prep.budget_usd, price_for(prep.model), cache_writes=opts.prompt_cache)
    try:
        plan = b.plan(
            estimate_tokens(prep.ctx.system, prep.ctx.user),
            max_tokens=s.max_tokens,
            min_tokens=s.min_tokens,
            searches=s.searches_per_request,
            fetches=s.fetches_per_request,
            require_research=True,  # as the real first request: research, else refuse
        )
        result.plan = {
            "searches": plan.searches,
            "fetches": plan.fetches,
            "max_tokens": plan.max_tokens,
            "bound_usd": round(plan.bound_usd, 4),
        }
    except AgentError as exc:
        result.plan = {"error": exc.message}
    size = prep.ctx.size_bytes
    result.message = (
        f"dry run: would update {prep.path.name} ({fresh.describe()}) with {prep.agent}, model {prep.model}, "
        f"budget ${prep.budget_usd:.2f}; first request ≈ {size:,} bytes of context "
        f"({100 * size / max(len(prep.original), 1):.0f}% of the file). Nothing was sent or written; the plan "
        f"prices the prompt by its character estimate (an upper bound), where a live run first asks the API "
        f"for the exact count and may afford more."
    )
    if prep.agent == "replay":  # said "with replay" where the run then failed
        from oo_nb.agent.cassettes import find_cassette

        if (opts.cassette or find_cassette(prep.path)) is None:
            result.message += f" But the run would fail: {_no_way_to_run(opts)}."
    return result


def _claim(prep: Prepared, *, force: bool = False) -> UpdateResult | None:
    """Claim the document's research (``store.research_claim``): None when this run may go on,
    else the result of a run that researches nothing because another run is at it (``force``
    or not: the other run's research is not paid for twice). Without ``force``, looked at again
    once claimed: a run that just finished has saved its proposal by then."""
    from oo_nb.store.proposals import awaiting_review
    from oo_nb.store.research_claim import claim_research

    claim = claim_research(prep.path)
    if isinstance(claim, str):
        return prep.result(  # no "--force" advice: it would not research now either
            "busy",
            f"{prep.path.name}: being researched by another run ({claim}); not researched again.",
        )
    waiting = None if force else awaiting_review(prep.path)
    if waiting is not None:
        claim.release()
        return prep.result("awaiting", _awaiting_message(prep.path, waiting))
    prep.claim = claim
    return None


def new_budget(prep: Prepared, backend: Backend, run: RunInfo, *, batch: bool = False) -> Budget:
    b = Budget(prep.budget_usd, price_for(backend.model), batch=batch)
    if not b.price.known:
        run.warnings.append(
            f"model {backend.model!r} is not in the price table: priced at the highest known rates"
        )
    return b


def record_quotes(run: RunInfo, proposal: Any) -> None:
    """Check the proposal's quotes against the pages this run read (kept with the proposal as
    verdicts, not pages) and say which quotes were refused."""
    from oo_nb.agent.quotes import quote_hits

    facts = getattr(proposal, "facts", ())
    run.quote_hits = quote_hits([f.quote for f in facts if f.quote], run.pages)
    run.citations = list(run.pages.citations)
    for problem in getattr(proposal, "quote_problems", ()):
        run.warnings.append(f"quote refused: {problem}")
    if run.pages.clipped:
        run.warnings.append(
            "the run read more text than is kept for quote checks: quotes from the rest count as not found"
        )


def article_script_notes(doc: Document) -> list[str]:
    """What the review says of markup already in the article that can run script (``oo check``'s
    ``article-script``): the update keeps it where it is (it was there before, and may be the
    author's), and the reviewer is told, whichever sections change."""
    if doc.article_span is None:
        return []
    found = script_markup(doc.article_model)
    if not found:
        return []
    at, what = found[0]
    more = f", and {len(found) - 1} more" if len(found) > 1 else ""
    return [
        f"the article already holds markup that can run script in the reader's browser: {what} "
        f"(line {doc.line_of(doc.article_span.start + at)}{more}); this update keeps it as it is: "
        f"remove it by hand if you did not write it (`{check_advice(doc.file or 'DOC')}` lists it)"
    ]


def finish(
    prep: Prepared, opts: UpdateOptions, backend_name: str, run: RunInfo, proposal: Any
) -> UpdateResult:
    """The validated proposal → candidate document and the result (nothing written)."""
    from oo_nb.agent.candidate import build_candidate
    from oo_nb.agent.pending import proposal_data

    submitted = proposal
    proposal = restore_images(proposal, prep.ctx.image_refs)
    record_quotes(run, proposal)
    repaired = getattr(proposal, "repaired", ())
    if repaired:
        run.warnings.append(
            "the proposal held text that is not valid Unicode (lone surrogates), replaced with "
            f"U+FFFD in: {', '.join(repaired)}; check those places in the review"
        )
    fetch = opts.fetch_image
    if fetch is None and opts.download_images and not run.recorded:
        from oo_nb.agent.image_fetch import fetch_image_https

        fetch = fetch_image_https
    now, seed = clock.now(), secrets.token_hex(16)
    candidate = build_candidate(
        prep.doc, proposal, run, today=prep.today, fetch_image=fetch, now=now, pid_seed=seed
    )
    candidate.document, found = scrub_document(candidate.document)
    if found:  # the model repeated the key (or part of it): never written, and said so
        candidate.warnings.append(
            f"the proposal held the API key or a configured credential (or part of one) in "
            f"{found} place(s): replaced by [redacted]"
        )
    result = prep.result("proposed")
    result.run, result.candidate = run, candidate
    result.claim, prep.claim = prep.claim, None  # held until the proposal is saved or written
    result.proposal_data = proposal_data(
        submitted,
        prep.ctx.image_refs,
        today=prep.today,
        now=now,
        run=run,
        candidate=candidate,
        downloads=fetch is not None,
        pid_seed=seed,
    )
    warnings = [
        redact(w) for w in dict.fromkeys([*run.warnings, *candidate.warnings])
    ]  # server text may echo a key
    if candidate.unverified:
        warnings.append(
            "unverified sources (URL not seen in this run's search or fetch results): "
            + ", ".join(candidate.unverified)
        )
    warnings += article_script_notes(prep.doc)
    if run.recorded:
        warnings.insert(0, "RECORDED run (replayed from a cassette): not live research")
    result.auto_write = not (run.overspent or run.foreign_recording)
    if run.overspent:
        warnings.append(
            f"the run spent ${run.cost_usd:.4f}, over its ${prep.budget_usd:.2f} budget (the API reported more "
            "than bounded): the proposal is kept for review and will not be written automatically"
        )
    result.warnings = warnings
    label = f"{backend_name}{' (recorded)' if run.recorded else ''}"
    result.message = (
        f"{prep.path.name}: proposal v{candidate.version} from {label}, model {run.model}, "
        f"{run.requests} request(s), {run.usage.web_searches} search(es), {run.usage.web_fetches} fetch(es), "
        f"cost ${run.cost_usd:.4f} of ${prep.budget_usd:.2f}"
    )
    return result


def finish_keeping(
    prep: Prepared, opts: UpdateOptions, backend_name: str, run: RunInfo, proposal: Any
) -> UpdateResult:
    """``finish``; when building the candidate fails, whatever the cause (a bug, a document it
    cannot take), the paid proposal is kept in the history and the ``AgentError`` says where and
    what the run cost: research paid for is never lost to a traceback."""
    from oo_nb.store.refused import keep_refused

    try:
        return finish(prep, opts, backend_name, run, proposal)
    except Exception as exc:  # (any: the money is spent whichever it is)
        reason = exc.message if isinstance(exc, OOError) else f"{type(exc).__name__}: {exc}"
        data = proposal.to_json() if hasattr(proposal, "to_json") else proposal
        kept = keep_refused(prep.path, data, reason=reason, cost_usd=run.cost_usd)
        raise AgentError(
            f"the proposal could not be made into a candidate ({reason[:300]}); what it proposed "
            f"is kept in {kept} (cost so far ${run.cost_usd:.4f})",
            cost_usd=run.cost_usd,
            file=str(prep.path),
        ) from exc


def prepare_update(
    path: str | Path, opts: UpdateOptions | None = None, *, backend: Backend | None = None
) -> UpdateResult:
    """Run the research for one document and build the candidate. Writes nothing. Raises
    ``AgentError`` (message with the cost so far) when the run fails."""
    opts = opts or UpdateOptions()
    prep = begin(path, opts)
    early = gate(prep, opts)
    if early is not None:
        return early
    run: RunInfo | None = None
    try:
        backend = backend or make_backend(prep.agent, opts, prep.model, prep.path)
        run = backend.new_run(prep.budget_usd)
        run.on_progress = opts.progress
        budget = new_budget(prep, backend, run)
        _started(backend, opts)
        outcome = "proposal"
        try:
            proposal = backend.run(prep.ctx, budget=budget, run=run, validate=_validator())
        except AgentError as exc:
            outcome = f"failed: {exc.message}"
            raise exc.with_file(str(prep.path)) from None
        except KeyboardInterrupt:
            outcome = "interrupted"
            raise
        finally:
            _save_recording(backend, opts, prep, run, outcome)
        return finish_keeping(prep, opts, backend.name, run, proposal)
    except KeyboardInterrupt:
        # one line, as update-all says it: a kernel's Interrupt showed ~20 lines of subprocess
        # frames and no word of what was written or spent
        raise _interrupted(prep, run) from None
    finally:
        prep.release_claim()  # a failed run; a finished one's claim went to its result


def _interrupted(prep: Prepared, run: RunInfo | None) -> ResearchInterrupted:
    """The interrupt of one document's research (nothing is written before ``write_result``),
    said as update-all says it for each document it stopped."""
    import signal

    from oo_nb.agent.interrupt import Stop, stopped_message

    said = stopped_message(
        Stop((), signal.SIGINT),  # Ctrl-C, a kernel's Interrupt (SIGTERM: store.sigterm's)
        None if run is None else run.cost_usd,
        claude_code=prep.agent == "claude-code",
    )
    return ResearchInterrupted(f"{prep.path.name}: {said}")


def _started(backend: Any, opts: UpdateOptions) -> None:
    """Tell ``opts.on_start`` that research begins, once the backend can run: one that needs a
    key says it has none here, before anything is said to be researched."""
    ready = getattr(backend, "ready", None)
    if ready is not None:
        ready()
    if opts.on_start is not None:
        opts.on_start(backend.name)


def _save_recording(
    backend: Any, opts: UpdateOptions, prep: Prepared, run: RunInfo, outcome: str
) -> None:
    recorder = getattr(backend, "recorder", None)
    if recorder is None or opts.record is None:
        return
    recorder.save(
        opts.record,
        label=f"recorded from {urlsplit(backend.base_url).hostname or 'an endpoint'}",
        document=prep.path.name,
        model=backend.model,
        outcome=outcome,
        cost_usd=round(run.cost_usd, 6),
    )
    backend.http_client.close()


async def aprepare_update(
    path: str | Path,
    opts: UpdateOptions | None = None,
    *,
    backend: Any = None,
    prep: Prepared | None = None,
    configure: Callable[[Any], None] | None = None,
    research_slot: Any = None,
) -> UpdateResult:
    """``prepare_update`` on the async client (update-all); candidate building runs in a thread.
    ``prep`` skips reading the document again; ``configure`` adjusts the backend (shared client);
    ``research_slot`` (an ``asyncio.Semaphore``) is held only while the research runs, so the
    next document's requests go out while this one's candidate is built."""
    import asyncio
    import contextlib

    opts = opts or UpdateOptions()
    if prep is None:
        prep = begin(path, opts)
    early = gate(prep, opts)  # update-all gated it up front, without claiming it (fds)
    if early is not None:
        return early
    try:
        backend = backend or make_backend(prep.agent, opts, prep.model, prep.path)
        if configure is not None:
            configure(backend)
        run = backend.new_run(prep.budget_usd)
        run.on_progress = opts.progress
        budget = new_budget(prep, backend, run)
        validate = _validator()
        try:
            async with research_slot or contextlib.nullcontext():
                prep.research = run  # begun: an interrupt from here reports what it cost
                if hasattr(backend, "arun"):
                    proposal = await backend.arun(
                        prep.ctx, budget=budget, run=run, validate=validate
                    )
                else:
                    proposal = await asyncio.to_thread(
                        backend.run, prep.ctx, budget=budget, run=run, validate=validate
                    )
        except AgentError as exc:
            raise exc.with_file(str(prep.path)) from None
        return await asyncio.to_thread(finish_keeping, prep, opts, backend.name, run, proposal)
    finally:
        prep.release_claim()


# --------------------------------------------------------------------------- writing
def run_dict(result: UpdateResult) -> dict[str, Any]:
    """The run as plain JSON for the pending proposal and the review (no secrets)."""
    run = result.run
    out: dict[str, Any] = {
        "agent": result.agent,
        "model": result.model,
        "budget_usd": result.budget_usd,
    }
    if run is not None:
        out.update(run.changelog_fields())
        out.update(
            requests=run.requests,
            recorded=run.recorded,
            overspent=run.overspent,
            seen_urls=sorted(run.seen_urls),
            citations=[list(c) for c in run.citations],
        )
    if result.candidate is not None:
        out["unverified"] = list(result.candidate.unverified)
        out["version"] = result.candidate.version
        if result.candidate.sections_removed:
            out["sections_removed"] = list(result.candidate.sections_removed)
    out["warnings"] = list(result.warnings)
    return out


def write_result(result: UpdateResult, *, yes: bool, auto: bool | None = False) -> UpdateResult:
    """Without ``yes``: save the pending proposal (the document is untouched). With ``yes``:
    write the candidate through the store, unless the run overspent (then: pending + warning).
    With ``auto`` (None: the contract's ``review`` decides): write it when it is clean
    (``agent/clean.py``), else keep it for review with ``kept_because`` saying why.
    When the proposal cannot be saved either, ``not_saved`` says why (and a warning, loudly)."""
    try:
        _refuse_after_interrupt(result)
        return _write_result(result, yes=yes, auto=auto)
    finally:
        result.release_claim()  # saved, written or lost: the next run may research


def _refuse_after_interrupt(result: UpdateResult) -> None:
    """update-all was interrupted (``agent.interrupt``): nothing is written or saved after it."""
    from oo_nb.agent import interrupt

    if interrupt.requested() and result.status == "proposed" and result.candidate is not None:
        raise AgentError(
            f"interrupted before it was written or saved: nothing written; its research is lost "
            f"(cost ${result.cost_usd:.4f})",
            cost_usd=result.cost_usd,
            file=str(result.path),
        )


def _write_result(result: UpdateResult, *, yes: bool, auto: bool | None) -> UpdateResult:
    from oo_nb.store.store import write_document

    if result.status != "proposed" or result.candidate is None:
        return result
    asked = auto is None and result.review == "auto" and not yes  # by the contract alone
    if asked and (unconfirmed := review_auto_problem(result.path)):
        result.kept_because = [unconfirmed]  # proposed, as without it (``store.library_trust``)
        asked = False
    if not yes and (auto or asked):
        from oo_nb.agent.clean import unclean_reasons

        result.kept_because = unclean_reasons(result)
        yes = not result.kept_because
    beyond = _beyond_scope(result) if yes and result.auto_write else []
    if beyond:  # what the review would refuse is not written unattended either
        result.kept_because += beyond
        result.warnings.append(
            "not written: the proposal goes beyond an update's scope ("
            + "; ".join(beyond)
            + f"); it is saved, and `{review_advice(result.path)}` shows why it cannot be "
            "accepted"
        )
        _save_pending_keeping_previous(result)
        return result
    if yes and result.auto_write:
        try:
            result.written = write_document(
                result.candidate.document,
                expected=result.original,
                action="update",
                scrub_secrets=True,
            )
        except (ConflictError, LockedError) as exc:
            # The research is paid for: keep it for review instead of asking for a second run.
            result.warnings.append(
                f"not written: {exc.message}; the proposal is saved, review it with "
                f"`{review_advice(result.path)}`"
            )
            _save_pending_keeping_previous(result)
            return result
        # An earlier unreviewed proposal was paid for too: set it aside, never delete it.
        keep_earlier_proposal(result.path, result.warnings)
        return result
    _save_pending_keeping_previous(result)
    return result


def _beyond_scope(result: UpdateResult) -> list[str]:
    """The review's own check (``format/update_scope``: scripts, ``javascript:`` links, changes
    outside the article and the blocks...), run on the write paths too: --yes and --auto wrote
    a ``javascript:`` link in a new References entry that the review refused."""
    from oo_nb.format.update_scope import scope_problems

    assert result.candidate is not None
    original = Document.parse(result.original, path=result.path)
    return scope_problems(original, result.candidate.document)


def keep_earlier_proposal(path: Path, warnings: list[str]) -> Path | None:
    """Set an unreviewed ``pending.json`` aside as ``pending-<ns>.json`` and say so in
    ``warnings`` (how to list and review it)."""
    from oo_nb.store.proposals import set_aside_pending

    try:
        kept = set_aside_pending(path)
    except OOError as exc:  # e.g. the lock is held: the earlier proposal stays where it is
        warnings.append(
            f"an earlier unreviewed proposal could not be set aside ({exc.message}); it is still "
            f"the current one: `{review_advice(path)}` opens it"
        )
        return None
    if kept is not None:
        warnings.append(_kept_note(path, kept))
    return kept


def _kept_note(path: Path, kept: Path) -> str:
    return (
        f"an earlier unreviewed proposal was kept as {kept.name}: `{saved_advice(path, 'list')}` "
        f"shows it, `{saved_advice(path, 'pick', kept.name)}` picks it for review"
    )


def _save_pending_keeping_previous(result: UpdateResult) -> Path | None:
    """Save the proposal for review; an unreviewed earlier one is kept beside it, not lost (both
    under the document's lock, so concurrent updates of one document each keep theirs). When it
    cannot be saved, ``result.not_saved`` and a warning say so: the run must not claim it was."""
    from oo_nb.store.store import save_proposal

    assert result.candidate is not None
    try:
        # The proposal's data, never the candidate: the review rebuilds it (agent/pending.py).
        saved = save_proposal(
            result.path,
            None if result.proposal_data is not None else result.candidate.document,
            run_dict(result),
            result.original,
            proposal=result.proposal_data,
        )
    except (OOError, OSError) as exc:
        reason = exc.message if isinstance(exc, OOError) else f"{exc.strerror or exc}"
        result.not_saved = reason
        result.warnings.append(
            f"the proposal was NOT saved ({reason}): its research (${result.cost_usd:.4f}) is lost"
        )
        return None
    if saved.set_aside is not None:
        result.warnings.append(_kept_note(result.path, saved.set_aside))
    result.pending = saved.path
    return saved.path
