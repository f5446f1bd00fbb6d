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
from oo_nb.agent.run import Prepared, UpdateOptions, _validator, finish, new_budget, write_result
from oo_nb.agent.types import LibraryUpdate
from oo_nb.errors import AgentError

__all__ = ["run_batch"]


def _error_text(result: Any) -> str:
    err = getattr(result, "error", None)
    inner = getattr(err, "error", None)
    kind = getattr(inner, "type", None) or getattr(err, "type", None) or result.type
    message = getattr(inner, "message", None) or ""
    return f"{kind}: {message}".rstrip(": ")


def run_batch(
    todo: list[Prepared],
    opts: UpdateOptions,
    *,
    yes: bool,
    bar: Any,
    out: LibraryUpdate,
    poll_interval: float = 10.0,
    max_wait_s: float = 24 * 3600.0,
) -> str | None:
    """Run ``todo`` through batches; results and failures go into ``out``. Returns the first
    batch id (for the record)."""
    if any(p.agent != "anthropic" for p in todo):
        raise AgentError(
            "--batch needs the anthropic agent (set ANTHROPIC_API_KEY; replay and claude-code cannot batch)"
        )
    convs: dict[str, tuple[Prepared, AnthropicBackend, Conversation]] = {}
    validate = _validator()
    for i, prep in enumerate(todo):
        backend = AnthropicBackend(model=prep.model, api_key=opts.api_key, base_url=opts.base_url)
        run = backend.new_run(prep.budget_usd)
        run.batch = True
        budget = new_budget(prep, backend, run, batch=True)
        convs[f"doc-{i:04d}"] = (
            prep,
            backend,
            backend.conversation(prep.ctx, budget=budget, run=run, validate=validate),
        )
    finished: set[str] = set()

    def settle(cid: str, error: AgentError | None = None, *, pending_usd: float = 0.0) -> None:
        """``pending_usd``: what an abandoned request may still cost (counted as spent)."""
        prep, backend, conv = convs[cid]
        finished.add(cid)
        bar.update(1)
        if error is not None:
            out.failures[prep.path] = str(error.with_file(str(prep.path)))
            out.failure_costs[prep.path] = conv.budget.spent_usd + pending_usd
            return
        try:
            out.results.append(
                write_result(finish(prep, opts, backend.name, conv.run, conv.result), yes=yes)
            )
        except AgentError as exc:
            out.failures[prep.path] = str(exc.with_file(str(prep.path)))
            out.failure_costs[prep.path] = conv.budget.spent_usd

    def abandon(client: anthropic.Anthropic, batch: Any, sent: list[str], why: str) -> None:
        """Cancel ``batch`` unless it ended; fail what it carried, with its bounds."""
        if batch.processing_status == "ended":
            state, billed = (
                f"batch {batch.id} had ended but its results could not be read",
                "may have been billed",
            )
        else:
            billed = "may still be billed"
            try:
                client.messages.batches.cancel(batch.id)
                state = f"batch {batch.id} was cancelled"
            except anthropic.AnthropicError as exc:
                failed = api_failure_text(exc, retries=first.max_retries, where=first.base_url)
                state = (
                    f"batch {batch.id} could not be cancelled ({failed}): cancel it in the Console"
                )
        for cid in sent:
            conv = convs[cid][2]
            bound = conv.last_plan.bound_usd if conv.last_plan is not None else 0.0
            text = f"{why}; {state}, but its request for this document {billed}, up to ${bound:.4f}"
            settle(cid, conv.fail(text), pending_usd=bound)

    first = next(iter(convs.values()))[1]
    first_id: str | None = None
    rounds = first.settings.max_requests
    with first.client() as client:
        for _round in range(rounds):
            requests: list[dict[str, Any]] = []
            for cid, (_prep, _backend, conv) in convs.items():
                if cid in finished:
                    continue
                try:
                    params = conv.next_request()
                except AgentError as exc:
                    settle(cid, exc)
                    continue
                requests.append({"custom_id": cid, "params": params})
            if not requests:
                break
            sent: list[str] = [str(r["custom_id"]) for r in requests]

            batch: Any = None
            try:
                batch = client.messages.batches.create(requests=requests)  # type: ignore[arg-type]
                first_id = first_id or batch.id
                deadline = time.monotonic() + max_wait_s
                while batch.processing_status != "ended":
                    if time.monotonic() > deadline:
                        abandon(
                            client,
                            batch,
                            sent,
                            f"batch {batch.id} did not end within {max_wait_s:.0f} s",
                        )
                        return first_id
                    time.sleep(poll_interval)
                    batch = client.messages.batches.retrieve(batch.id)
                results = list(client.messages.batches.results(batch.id))
            except anthropic.AnthropicError as exc:
                why = api_failure_text(exc, retries=first.max_retries, where=first.base_url)
                if batch is not None:
                    abandon(client, batch, sent, why)
                    return first_id
                if isinstance(exc, anthropic.APITimeoutError | anthropic.APIConnectionError):
                    # the create may have reached the API although no answer came back
                    why += "; the batch may have been created: look for it in the Console and cancel it"
                for cid in sent:
                    settle(cid, convs[cid][2].fail(why))
                return first_id
            except BaseException:
                # Interrupted while waiting (Ctrl-C in a notebook): do not leave the batch billing.
                if batch is not None and batch.processing_status != "ended":
                    with contextlib.suppress(anthropic.AnthropicError):
                        client.messages.batches.cancel(batch.id)
                raise
            for item in results:
                cid = item.custom_id
                if cid not in convs or cid in finished:
                    continue
                conv = convs[cid][2]
                if item.result.type != "succeeded":
                    settle(
                        cid,
                        conv.fail(
                            f"the batch request {item.result.type} ({_error_text(item.result)})"
                        ),
                    )
                    continue
                try:
                    conv.on_response(item.result.message)
                except AgentError as exc:
                    settle(cid, exc)
                    continue
                if conv.done:
                    settle(cid)
            answered = {item.custom_id for item in results}
            for cid in sent:  # a request the results did not mention
                if cid not in finished and cid not in answered:
                    settle(
                        cid, convs[cid][2].fail("the batch returned no result for this document")
                    )
    for cid, (_prep, _backend, conv) in convs.items():
        if cid not in finished:
            settle(cid, conv.fail(f"no proposal after {rounds} batch rounds"))
    return first_id
