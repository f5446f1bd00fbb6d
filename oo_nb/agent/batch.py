"""``update-all --batch``: every stale document's research through the Message Batches API.

A research conversation may need more than one request (pause_turn continuations, the re-prompt,
a correction, a wrap-up), so the batch runs in rounds: each round sends the next request of every
unfinished conversation as one batch, polls until it ends, and feeds each result to its
conversation — the same state machine as the live backend, with batch prices (tokens at 50%).

A batch that cannot be seen through (the deadline passes, polling or reading results fails, the
user interrupts) is cancelled: otherwise its requests run on and are billed while we report
them as failed. A cancel does not undo requests already done, so each such document fails with
the bound of its request (what may still be billed), and that bound counts in the reported cost.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import anthropic

from oo_nb.agent.backends.anthropic import AnthropicBackend, api_failure_text
from oo_nb.agent.backends.conversation import Conversation
from oo_nb.agent.run import (
    Prepared,
    UpdateOptions,
    _validator,
    finish_keeping,
    new_budget,
    write_result,
)
from oo_nb.agent.types import LibraryUpdate
from oo_nb.errors import AgentError

__all__ = ["batchable", "run_batch"]


def _error_text(result: Any) -> str:
    err = getattr(result, "error", None)
    inner = getattr(err, "error", None)
    kind = getattr(inner, "type", None) or getattr(err, "type", None) or result.type
    message = getattr(inner, "message", None) or ""
    return f"{kind}: {message}".rstrip(": ")


def batchable(todo: list[Prepared]) -> None:
    """Raise ``AgentError`` unless every document of ``todo`` can go into a batch. Asked before
    their research is claimed: a batch that cannot run must not hold (nor touch) any claim."""
    if any(p.agent != "anthropic" for p in todo):
        raise AgentError(
            "--batch needs the anthropic agent (set ANTHROPIC_API_KEY; replay and claude-code cannot batch)"
        )


def run_batch(
    todo: list[Prepared],
    opts: UpdateOptions,
    *,
    yes: bool,
    bar: Any,
    out: LibraryUpdate,
    poll_interval: float = 10.0,
    max_wait_s: float = 24 * 3600.0,
    auto: bool | None = None,
) -> str | None:
    """Run ``todo`` through batches; results and failures go into ``out``. Returns the first
    batch id (for the record)."""
    batchable(todo)
    run = BatchRun(
        todo, opts, yes=yes, bar=bar, out=out, poll_interval=poll_interval, max_wait_s=max_wait_s
    )
    run.auto = auto
    return run.run()


_Entry = tuple[Prepared, AnthropicBackend, Conversation]


class BatchRun:
    """One ``update-all --batch``: a conversation per document, sent in rounds of one batch each.

    ``run`` -> ``_send`` (create, ``_wait``, read the results) -> ``_receive`` (``_feed`` each
    result to its conversation). Every document ends in ``_settle``: its result written, or its
    failure recorded with what it cost. A batch that cannot be seen through is ``_abandon``-ed."""

    def __init__(
        self,
        todo: list[Prepared],
        opts: UpdateOptions,
        *,
        yes: bool,
        bar: Any,
        out: LibraryUpdate,
        poll_interval: float = 10.0,
        max_wait_s: float = 24 * 3600.0,
    ) -> None:
        self.opts, self.yes, self.bar, self.out = opts, yes, bar, out
        self.auto: bool | None = None  # --auto; None: each contract's `review` decides
        self.poll_interval, self.max_wait_s = poll_interval, max_wait_s
        validate = _validator()
        self.convs = {f"doc-{i:04d}": self._start(p, validate) for i, p in enumerate(todo)}
        self.finished: set[str] = set()
        self.first = next(iter(self.convs.values()))[1]  # its client and settings serve them all
        self.first_id: str | None = None
        self.batch: Any = None  # the current batch, as last seen

    def _start(self, prep: Prepared, validate: Any) -> _Entry:
        backend = AnthropicBackend(
            model=prep.model, api_key=self.opts.api_key, base_url=self.opts.base_url
        )
        run = backend.new_run(prep.budget_usd)
        run.batch = True
        budget = new_budget(prep, backend, run, batch=True)
        conv = backend.conversation(prep.ctx, budget=budget, run=run, validate=validate)
        return prep, backend, conv

    def _conv(self, cid: str) -> Conversation:
        return self.convs[cid][2]

    def run(self) -> str | None:
        """Every document settled; the first batch id."""
        rounds = self.first.settings.max_requests
        with self.first.client() as client:
            for _round in range(rounds):
                params = self._next_requests()
                if not params:
                    break
                results = self._send(client, params)
                if results is None:  # the batch failed: its documents are settled
                    return self.first_id
                self._receive(results, list(params))
        for cid in self.convs:
            if cid not in self.finished:
                self._settle(cid, self._conv(cid).fail(f"no proposal after {rounds} batch rounds"))
        return self.first_id

    def _next_requests(self) -> dict[str, dict[str, Any]]:
        """The next request of every unfinished conversation, by custom id."""
        params: dict[str, dict[str, Any]] = {}
        for cid, (_prep, _backend, conv) in self.convs.items():
            if cid in self.finished:
                continue
            try:
                params[cid] = conv.next_request()
            except AgentError as exc:
                self._settle(cid, exc)
        return params

    def _send(
        self, client: anthropic.Anthropic, params: dict[str, dict[str, Any]]
    ) -> list[Any] | None:
        """One batch seen through: its results, or None when it failed (its documents settled)."""
        sent = list(params)
        requests = [{"custom_id": cid, "params": p} for cid, p in params.items()]
        self.batch = None
        try:
            self.batch = client.messages.batches.create(requests=requests)  # type: ignore[arg-type]
            self.first_id = self.first_id or self.batch.id
            if not self._wait(client):
                why = f"batch {self.batch.id} did not end within {self.max_wait_s:.0f} s"
                self._abandon(client, sent, why)
                return None
            return list(client.messages.batches.results(self.batch.id))
        except anthropic.AnthropicError as exc:
            self._failed(client, sent, exc)
            return None
        except BaseException:
            # Interrupted while waiting (Ctrl-C in a notebook): do not leave the batch billing.
            if self.batch is not None and self.batch.processing_status != "ended":
                with contextlib.suppress(anthropic.AnthropicError):
                    client.messages.batches.cancel(self.batch.id)
            raise

    def _wait(self, client: anthropic.Anthropic) -> bool:
        """Poll until the batch ends (True) or the deadline passes (False)."""
        deadline = time.monotonic() + self.max_wait_s
        while self.batch.processing_status != "ended":
            if time.monotonic() > deadline:
                return False
            time.sleep(self.poll_interval)
            self.batch = client.messages.batches.retrieve(self.batch.id)
        return True

    def _failed(self, client: anthropic.Anthropic, sent: list[str], exc: Exception) -> None:
        """The API failed: abandon the batch, or fail its documents when it was never created."""
        why = self._api_failure(exc)
        if self.batch is not None:
            self._abandon(client, sent, why)
            return
        if isinstance(exc, anthropic.APITimeoutError | anthropic.APIConnectionError):
            # the create may have reached the API although no answer came back
            why += "; the batch may have been created: look for it in the Console and cancel it"
        for cid in sent:
            self._settle(cid, self._conv(cid).fail(why))

    def _receive(self, results: list[Any], sent: list[str]) -> None:
        for item in results:
            self._feed(item)
        answered = {item.custom_id for item in results}
        for cid in sent:  # a request the results did not mention
            if cid not in self.finished and cid not in answered:
                failure = self._conv(cid).fail("the batch returned no result for this document")
                self._settle(cid, failure)

    def _feed(self, item: Any) -> None:
        """One result to its conversation; the document is settled when that ends it."""
        cid = item.custom_id
        if cid not in self.convs or cid in self.finished:
            return
        conv = self._conv(cid)
        if item.result.type != "succeeded":
            what = f"the batch request {item.result.type} ({_error_text(item.result)})"
            self._settle(cid, conv.fail(what))
            return
        try:
            conv.on_response(item.result.message)
        except AgentError as exc:
            self._settle(cid, exc)
            return
        if conv.done:
            self._settle(cid)

    def _settle(
        self, cid: str, error: AgentError | None = None, *, pending_usd: float = 0.0
    ) -> None:
        """Write the document's result, or record its failure. ``pending_usd``: what an abandoned
        request may still cost (counted as spent)."""
        prep, backend, conv = self.convs[cid]
        self.finished.add(cid)
        self.bar.update(1)
        if error is None:
            try:
                result = finish_keeping(prep, self.opts, backend.name, conv.run, conv.result)
                self.out.results.append(write_result(result, yes=self.yes, auto=self.auto))
                return
            except AgentError as exc:
                error = exc
        self.out.failures[prep.path] = str(error.with_file(str(prep.path)))
        self.out.failure_costs[prep.path] = conv.budget.spent_usd + pending_usd
        self.out.failure_budgets[prep.path] = prep.budget_usd

    def _abandon(self, client: anthropic.Anthropic, sent: list[str], why: str) -> None:
        """Cancel the batch unless it ended; fail what it carried, with its bounds."""
        state, billed = self._cancel(client)
        for cid in sent:
            conv = self._conv(cid)
            bound = conv.last_plan.bound_usd if conv.last_plan is not None else 0.0
            text = f"{why}; {state}, but its request for this document {billed}, up to ${bound:.4f}"
            self._settle(cid, conv.fail(text), pending_usd=bound)

    def _cancel(self, client: anthropic.Anthropic) -> tuple[str, str]:
        """Cancel the batch unless it ended: what became of it, and what its requests may cost."""
        batch_id = self.batch.id
        if self.batch.processing_status == "ended":
            return (
                f"batch {batch_id} had ended but its results could not be read",
                "may have been billed",
            )
        try:
            client.messages.batches.cancel(batch_id)
            state = f"batch {batch_id} was cancelled"
        except anthropic.AnthropicError as exc:
            failed = self._api_failure(exc)
            state = f"batch {batch_id} could not be cancelled ({failed}): cancel it in the Console"
        return state, "may still be billed"

    def _api_failure(self, exc: Exception) -> str:
        return api_failure_text(exc, retries=self.first.max_retries, where=self.first.base_url)
