"""Updating a whole library: the stale documents concurrently (AsyncAnthropic, a semaphore, a
progress bar), or all of them through the Message Batches API (half-price tokens, polled).

Each document's outcome is independent: a failure is recorded with its message and cost and the
others go on. Writing follows ``write_result`` (pending proposal, or the document with ``yes``, or with ``auto`` when clean).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from oo_nb.agent.run import (
    Prepared,
    UpdateOptions,
    aprepare_update,
    begin,
    gate,
    write_result,
)
from oo_nb.agent.types import LibraryUpdate
from oo_nb.errors import AgentError, NotFound, OOError
from oo_nb.format.names import DOC_SUFFIX
from oo_nb.store.discover import is_index_page, walk

__all__ = ["LibraryUpdate", "find_documents", "update_library"]

T = TypeVar("T")


def find_documents(folder: str | Path) -> list[Path]:
    """Every ``*.o-o.html`` under ``folder``, index pages included (``store.discover.walk``).
    A missing folder or a file is an error, not an empty library: "0 proposed" would hide a typo."""
    root = Path(folder)
    if root.is_file():
        raise NotFound(
            "is a file, not a folder (`oo update FILE` updates one document)", file=str(root)
        )
    return walk(root)


def _run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run``, also from inside a running loop (Jupyter): then in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def worker() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:
            box["error"] = exc

    t = threading.Thread(target=worker, name="oo-update-all")
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def _progress(total: int, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(
        total=total, desc="update-all", unit="doc", disable=not enabled or total == 0, leave=True
    )


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


def _prepare_all(paths: list[Path], opts: UpdateOptions, out: LibraryUpdate) -> list[Prepared]:
    """Read every document; the fresh ones (and index pages) are settled here, without requests."""
    todo = []
    for p in paths:
        try:
            prep = begin(p, opts)
        except OOError as exc:
            if not (isinstance(exc, AgentError) and is_index_page(p)):
                out.failures[p] = str(exc)  # an index page is refused by begin, and not updated
            continue
        # claimed later, when its research starts: not thousands of open lock files at once
        early = gate(prep, opts, claim=False)
        if early is not None:
            out.results.append(early)
        else:
            todo.append(prep)
    return todo


# --------------------------------------------------------------------------- concurrent
async def _concurrent(
    todo: list[Prepared],
    opts: UpdateOptions,
    yes: bool,
    concurrency: int,
    bar: Any,
    out: LibraryUpdate,
    auto: bool | None = None,
) -> None:
    gate_ = asyncio.Semaphore(max(1, concurrency))
    shared: dict[tuple[str, str, str], Any] = {}

    def share_client(backend: Any) -> None:
        from oo_nb.agent.backends.anthropic import AnthropicBackend

        if type(backend) is AnthropicBackend and backend.async_http_client is None:
            key = (backend.base_url, backend._key(), str(backend.credential_headers))
            if key not in shared:
                shared[key] = backend.async_client()
            backend.shared_async = shared[key]

    async def one(prep: Prepared) -> None:
        async with gate_:
            try:
                mine = _step_reporter(prep.path, opts, bar)
                result = await aprepare_update(prep.path, mine, prep=prep, configure=share_client)
                result = await asyncio.to_thread(write_result, result, yes=yes, auto=auto)
                out.results.append(result)
            except AgentError as exc:
                out.failures[prep.path] = str(exc)
                out.failure_costs[prep.path] = exc.cost_usd
            except OOError as exc:
                out.failures[prep.path] = str(exc)
            finally:
                bar.update(1)

    try:
        await asyncio.gather(*(one(p) for p in todo))
    finally:
        for client in shared.values():
            await client.close()


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
) -> LibraryUpdate:
    """Update every stale document under ``folder`` (all of them with ``opts.force``). ``auto``
    writes the clean proposals (None: as each contract's ``review`` says); a document whose
    earlier proposal awaits review is not researched again (``run.gate``) unless ``opts.force``."""
    opts = opts or UpdateOptions()
    out = LibraryUpdate()
    started = time.perf_counter()
    todo = _prepare_all(find_documents(folder), opts, out)
    bar = _progress(len(todo), progress)
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
        elif todo:
            _run_coroutine(_concurrent(todo, opts, yes, concurrency, bar, out, auto))
    finally:
        bar.close()
        for prep in todo:  # a failed run's claim on its document's research
            prep.release_claim()
    out.elapsed_s = time.perf_counter() - started
    out.results.sort(key=lambda r: str(r.path))
    return out
