"""Updating a whole library: the stale documents concurrently (AsyncAnthropic, a semaphore, a
progress bar), or all of them through the Message Batches API (half-price tokens, polled).

Each document's outcome is independent: a failure is recorded with its message and cost and the
others go on. Writing follows ``write_result`` (pending proposal, or the document with ``yes``, or with ``auto`` when clean).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import resource
import signal
import sys
import threading
import time
from collections.abc import Coroutine, Mapping
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

from oo_nb.agent.freshness import Freshness
from oo_nb.agent.interrupt import (
    Stop,
    catches_signals,
    held,
    loop_running,
    on_signals,
    stopped_message,
)
from oo_nb.agent.run import (
    Prepared,
    UpdateOptions,
    UpdateResult,
    aprepare_update,
    begin,
    fresh_message,
    gate,
    make_backend,
    write_result,
)
from oo_nb.agent.types import LibraryUpdate, UpdateInterrupted
from oo_nb.collector import paused
from oo_nb.errors import AgentError, NotFound, OOError
from oo_nb.format.names import DOC_SUFFIX
from oo_nb.skin import update_advice
from oo_nb.store.discover import LeftOut, is_index_page, walk

__all__ = ["LibraryUpdate", "find_documents", "update_library"]

T = TypeVar("T")


def find_documents(folder: str | Path, left_out: list[LeftOut] | None = None) -> list[Path]:
    """Every ``*.o-o.html`` under ``folder``, index pages included, each file once
    (``store.discover.walk``; ``left_out`` gets the others named so, a second name for one
    file among them). A missing folder or a file is an error, not an empty library: "0
    proposed" would hide a typo."""
    root = Path(folder)
    if root.is_file():
        raise NotFound(
            f"is a file, not a folder (`{update_advice(root)}` updates one document)",
            file=str(root),
        )
    return walk(root, left_out=left_out)


def _run_coroutine(coro: Coroutine[Any, Any, T], stop: Stop | None = None) -> T:
    """``asyncio.run``, also from inside a running loop (Jupyter): then in a worker thread, and
    a KeyboardInterrupt while waiting for it (a kernel's Interrupt, Ctrl-C) stops the run
    through ``stop`` as SIGINT would, before this thread goes on."""
    if not loop_running():
        return asyncio.run(coro)
    box: dict[str, Any] = {}
    # waited on through an Event: a Thread.join cut short by KeyboardInterrupt may return at
    # once when called again (CPython before 3.13), before the thread is done
    done = threading.Event()

    def worker() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=worker, name="oo-update-all").start()
    try:
        done.wait()
    except KeyboardInterrupt:
        if stop is None:
            raise
        stop.interrupt(signal.SIGINT)  # its research ends; nothing is written after it
        done.wait()
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:  # no bar (``--no-progress``): tqdm is not even imported (~30 ms of start-up)
        return SimpleNamespace(
            update=lambda n=1: None, set_postfix_str=lambda *a, **k: None, close=lambda: None
        )
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc="update-all", unit="doc", disable=total == 0, leave=True)
    widgets = getattr(bar, "container", None)  # the notebook's bar: label, bar, figures
    if widgets is not None:  # its label must not shrink and wrap ("update-/all")
        widgets.children[0].layout.flex = "0 0 auto"
    return bar


def _step_reporter(path: Path, opts: UpdateOptions, bar: Any) -> UpdateOptions:
    """``opts`` for one document whose research steps show on the bar (the latest one, named by
    document) and reach the caller's own ``progress``, prefixed with the document's name."""
    name = path.name.removesuffix(DOC_SUFFIX)
    outer = opts.progress

    def step(line: str) -> None:
        bar.set_postfix_str(f"{name}: {line}"[:80], refresh=True)
        if outer is not None:
            outer(f"{name}: {line}")

    return replace(opts, progress=step)


def _prepare_one(p: Path, opts: UpdateOptions, out: LibraryUpdate) -> Prepared | None:
    """Read one document; a fresh one (or an index page, or one that cannot be read) is settled
    here, without requests (None)."""
    try:
        prep = begin(p, opts)
    except OOError as exc:
        if not (isinstance(exc, AgentError) and is_index_page(p)):
            out.failures[p] = str(exc)  # an index page is refused by begin, and not updated
        return None
    # claimed later, when its research starts: not thousands of open lock files at once
    try:  # a document refused here (its history or itself a link out) fails alone
        early = gate(prep, opts, claim=False)
    except OOError as exc:
        out.failures[p] = str(exc)
        return None
    if early is not None:
        out.results.append(early)
        return None
    return prep


def _settle_known_fresh(
    paths: list[Path], known: Mapping[Path, Freshness], opts: UpdateOptions, out: LibraryUpdate
) -> list[Path]:
    """Report the documents ``known`` to be fresh as ``gate`` would, unread; the others are left
    to read. One with a proposal awaiting review is read: ``gate`` says so first."""
    if opts.force or not known:
        return paths
    from oo_nb.store.proposals import awaiting_review

    rest = []
    for p in paths:
        fresh = known.get(p)
        if fresh is not None and fresh.fresh and awaiting_review(p) is None:
            message = fresh_message(p, fresh)
            out.results.append(UpdateResult(p, "skipped", message, b"", "", "", 0.0, fresh))
        else:
            rest.append(p)
    return rest


def _prepare_all(paths: list[Path], opts: UpdateOptions, out: LibraryUpdate) -> list[Prepared]:
    """Read every document (a batch needs them all before it is sent)."""
    return [prep for p in paths if (prep := _prepare_one(p, opts, out)) is not None]


def _claim_all(preps: list[Prepared], opts: UpdateOptions, out: LibraryUpdate) -> list[Prepared]:
    """A batch researches all its documents at once: each is claimed (``gate``) before it is
    sent, so that a run at the same time (a cron run, ``oo update DOC``) researches none of them
    twice. A claim holds a file open until the document is settled: the open-file limit is
    raised to fit, and a document past what the machine allows is not sent, saying why."""
    _fit_open_files(len(preps))
    todo = []
    for prep in preps:
        try:
            early = gate(prep, opts)
        except OSError as exc:
            out.failures[prep.path] = (
                f"not sent: its research could not be claimed ({exc.strerror or exc}); "
                "raise the open-file limit (`ulimit -n`) or update fewer documents at once"
            )
            continue
        except OOError as exc:  # its history folder or lock refused (a link): not sent
            out.failures[prep.path] = str(exc)
            continue
        if early is not None:
            out.results.append(early)
        else:
            todo.append(prep)
    return todo


def _fit_open_files(claims: int) -> None:
    want = claims + 256  # the claims, and room for the client, the results and the writes
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= want:
        return
    new = want if hard == resource.RLIM_INFINITY else min(want, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


def _warm_sdk(opts: UpdateOptions) -> None:
    """Import the anthropic SDK in the background while the folder is walked and the first
    documents are read (the import alone takes seconds); the first request waits only for
    what is left of it. Not for a run that will not use it: without a key the default agent is
    a replay or Claude Code, neither of which imports the SDK."""
    from oo_nb.agent.models import uses_the_api

    if opts.dry_run or not uses_the_api(opts.agent, opts.api_key):
        return

    def load() -> None:
        # an import that fails here fails again on the request path, and is reported there
        with contextlib.suppress(Exception), paused(lasting=True):
            importlib.import_module("oo_nb.agent.backends.anthropic")

    threading.Thread(target=load, name="oo-import-sdk", daemon=True).start()


# --------------------------------------------------------------------------- concurrent
async def _concurrent(
    paths: list[Path],
    opts: UpdateOptions,
    yes: bool,
    concurrency: int,
    bar: Any,
    out: LibraryUpdate,
    auto: bool | None = None,
    stop: Stop | None = None,
) -> None:
    """Documents are read one by one and each starts as soon as it is read and a place is free:
    the first request does not wait for the whole folder to be parsed. Up to ``concurrency``
    documents research at once; more are read ahead, their prompts counted (the token count only
    sharpens the budget) while the others research, so a document's first request does not wait
    for its count; a document's candidate is built after it gives up its research place."""
    # SIGTERM / SIGINT (``agent.interrupt``): only when the caller took them (``stop``)
    catch = stop is not None
    stop = stop or Stop(())
    limit = max(1, concurrency)
    gate_ = asyncio.Semaphore(limit)  # documents researching
    # documents read and not finished (researching, counted and waiting, building a candidate):
    # bounded, so memory stays flat however large the library
    ahead = asyncio.Semaphore(3 * limit)
    shared: dict[tuple[str, str, str], Any] = {}

    def share_client(backend: Any) -> None:
        # not imported yet: no backend here is the SDK's (a replay must not import it)
        sdk = sys.modules.get("oo_nb.agent.backends.anthropic")
        if sdk is None:
            return
        if type(backend) is sdk.AnthropicBackend and backend.async_http_client is None:
            key = (backend.base_url, backend._key(), str(backend.credential_headers))
            if key not in shared:
                shared[key] = backend.async_client()
            backend.shared_async = shared[key]

    async def one(prep: Prepared, sent: asyncio.Event) -> None:
        try:
            backend = None
            researching = True
            try:
                backend = make_backend(prep.agent, opts, prep.model, prep.path)
                share_client(backend)
                if hasattr(backend, "on_first_request"):
                    backend.on_first_request = sent.set
                counter = getattr(backend, "count_ahead", None)
                if counter is not None:
                    counter(prep.ctx, prep.budget_usd)
            except OOError:
                backend = None  # aprepare_update makes it again and reports the error
            try:
                mine = _step_reporter(prep.path, opts, bar)
                # the slot is held while the research runs: building the candidate and saving
                # it (CPU and fsync) overlap the next document's requests
                result = await aprepare_update(
                    prep.path,
                    mine,
                    backend=backend,
                    prep=prep,
                    configure=share_client,
                    research_slot=gate_,
                )
                researching = False
                writing = asyncio.ensure_future(
                    asyncio.to_thread(write_result, result, yes=yes, auto=auto)
                )
                try:
                    result = await asyncio.shield(writing)
                except asyncio.CancelledError:
                    # interrupted: a write that began before it ends, and is reported as it
                    # ended (one not begun yet writes nothing, ``write_result``)
                    result = await writing
                out.results.append(result)
            except AgentError as exc:
                out.failures[prep.path] = str(exc)
                out.failure_costs[prep.path] = exc.cost_usd
                out.failure_budgets[prep.path] = prep.budget_usd
            except OOError as exc:
                out.failures[prep.path] = str(exc)
            except asyncio.CancelledError:
                if stop.signum is not None and researching:
                    cost = prep.research.cost_usd if prep.research is not None else None
                    out.failures[prep.path] = stopped_message(
                        stop, cost, claude_code=prep.agent == "claude-code"
                    )
                    out.failure_costs[prep.path] = cost or 0.0
                raise
            finally:
                bar.update(1)
                pending = getattr(backend, "counted_ahead", None)
                if pending is not None:  # the run ended before it needed the count
                    pending.cancel()
        finally:
            sent.set()  # ended before a request (or without one): reading goes on
            ahead.release()

    tasks: list[asyncio.Task[None]] = []
    # the first ``limit`` documents' requests go out before any reading ahead: its CPU (a
    # few ms a document, and its token count) would delay them, on one interpreter
    first: list[asyncio.Event] | None = []
    me = asyncio.current_task()
    signals = on_signals(stop, me) if catch and me is not None else contextlib.nullcontext()
    reached = 0
    # the signals stay taken through the cleanup: a second one (Ctrl-C, then a supervisor's
    # SIGTERM) must not end the process while the runs are being ended
    with signals:
        try:
            for path in paths:
                await ahead.acquire()
                if first is not None and len(first) == limit:
                    await asyncio.gather(*(sent.wait() for sent in first))
                    first = None
                prep = _prepare_one(path, opts, out)
                reached += 1  # documents read: the rest are "not started" after an interrupt
                if prep is None:
                    ahead.release()
                    bar.update(1)
                else:
                    sent = asyncio.Event()
                    if first is not None:
                        first.append(sent)
                    tasks.append(asyncio.create_task(one(prep, sent)))
                await asyncio.sleep(0)  # let the started documents' requests go out
            await asyncio.gather(*tasks)
        except asyncio.CancelledError:
            if stop.signum is None:
                raise
            # interrupted: every document's task says what it did and cost (awaited below)
            stop.not_started = len(paths) - reached
        finally:
            stop.settling = True  # a signal from here on is reported, and cuts no await short
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for client in shared.values():
                await client.close()
            if stop.signum is not None:  # the worker threads end their Claude Code runs
                await asyncio.get_running_loop().shutdown_default_executor()


def update_library(
    folder: str | Path,
    opts: UpdateOptions | None = None,
    *,
    concurrency: int = 4,
    yes: bool = False,
    batch: bool = False,
    progress: bool = True,
    poll_interval: float = 10.0,
    max_wait_s: float = 24 * 3600.0,
    auto: bool | None = None,
    known_fresh: Mapping[Path, Freshness] | None = None,
) -> LibraryUpdate:
    """Update every stale document under ``folder`` (all of them with ``opts.force``). ``auto``
    writes the clean proposals (None: as each contract's ``review`` says); a document whose
    earlier proposal awaits review is not researched again (``run.gate``) unless ``opts.force``.
    ``known_fresh``: the freshness of documents a library scan already knows (its cache), so
    a fresh one is reported without being read."""
    opts = opts or UpdateOptions()
    out = LibraryUpdate()
    started = time.perf_counter()
    found = find_documents(folder, out.left_out)
    paths = _settle_known_fresh(found, known_fresh or {}, opts, out)
    if not batch and paths:  # not when every document is known fresh: nothing will be sent
        _warm_sdk(opts)
    todo: list[Prepared] = []  # read up front only for a batch (concurrent runs read as they go)
    stop: Stop | None = None  # SIGTERM / SIGINT while the concurrent run goes on
    if batch:
        ready = _prepare_all(paths, opts, out)
        if ready:  # asked before any claim is taken: a batch that cannot run claims nothing
            from oo_nb.agent.batch import batchable

            batchable(ready)
        todo = _claim_all(ready, opts, out)
        bar = _progress(len(todo), progress)
    else:  # documents are read as they start: the bar counts every one, fresh ones included
        bar = _progress(len(paths), progress)
        if paths:
            taken = catches_signals()
            # from a running loop the run goes to a worker thread: no signal reaches its loop,
            # the caller's KeyboardInterrupt stops it (``_run_coroutine``)
            stop = Stop(taken) if taken or loop_running() else None
    # the signals stay taken until the outcome is made: one in the run's last moments (its
    # cleanup, asyncio closing the loop) makes it an interrupted run, not a traceback
    with held(stop) if stop is not None else contextlib.nullcontext():
        try:
            if batch and todo:
                from oo_nb.agent.batch import run_batch

                out.batch_id = run_batch(
                    todo,
                    opts,
                    yes=yes,
                    bar=bar,
                    out=out,
                    poll_interval=poll_interval,
                    max_wait_s=max_wait_s,
                    auto=auto,
                )
            elif not batch and paths:
                coro = _concurrent(paths, opts, yes, concurrency, bar, out, auto, stop)
                _run_coroutine(coro, stop)
        finally:
            bar.close()
            for prep in todo:  # a failed run's claim on its document's research
                prep.release_claim()
        out.elapsed_s = time.perf_counter() - started
        out.results.sort(key=lambda r: str(r.path))
    if stop is not None and stop.signum is not None:
        out.interrupted, out.not_started = stop.name, stop.not_started
        raise UpdateInterrupted(out, stop.exit_code)
    return out
