"""The events worth telling someone about, read from what the library already keeps.

- ``sentinel``: a sentinel document's status became "occurred" (the changes rows of
  ``library.changes``: evidence and sources included);
- ``proposal``: a proposal awaits review (``store.proposals``: since when, what it cost); one that
  cannot be read blocks every run of its document: a ``failed`` event;
- ``failed`` / ``budget``: an update failed, or spent past its budget whatever its outcome (the
  ``update-all`` outcome: a failure that spent past it is a ``budget`` event);
- ``links``: a cited source went dead or moved for good (the last ``oo links`` results).

Each event has a ``key`` that names it for good (document, version, file, URL...): the record
of what was sent holds keys, so a rerun finds the same event and does not send it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oo_nb.library.changes import document_changes
from oo_nb.library.digest import relative_slug
from oo_nb.store.discover import documents
from oo_nb.store.history import history_dir
from oo_nb.store.link_store import read_links
from oo_nb.store.proposals import ProposalInfo, list_proposals

if TYPE_CHECKING:
    from oo_nb.agent.types import LibraryUpdate

__all__ = ["Event", "collect_events", "run_events"]


@dataclass(frozen=True)
class Event:
    key: str  # names the event for good: sent once
    kind: str  # one of config.EVENT_KINDS
    document: str
    title: str  # one line
    details: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    def text(self) -> str:
        lines = [self.title, *self.details]
        lines += [f"source: {url}" for url in self.sources]
        return "\n".join(lines)


# amounts and durations change from one run to the next; the failure they describe does not
_VARYING = re.compile(r"\$\d[\d.,]*|\b\d+(?:\.\d+)?\s*(?:s|ms|seconds?)\b")


def _short_hash(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _paths(root: Path) -> list[tuple[Path, str]]:
    base = root if root.is_dir() else root.parent
    found = documents(root) if root.is_dir() else [root]
    return [(p, relative_slug(p, base)) for p in found]


def sentinel_events(items: Iterable[tuple[Path, str]]) -> list[Event]:
    out = []
    for path, name in items:
        for c in document_changes(path, name):
            if c.kind != "sentinel" or c.after != "occurred":
                continue
            day = c.date.isoformat() if c.date else "?"
            out.append(
                Event(
                    key=f"sentinel:{name}:v{c.version}:seq{c.seq}",
                    kind="sentinel",
                    document=name,
                    title=f"{name}: the event has occurred (version {c.version}, {day})",
                    details=(f"evidence: {c.evidence}",) if c.evidence else (),
                    sources=c.sources,
                    data={"version": c.version, "before": c.before, "date": day},
                )
            )
    return out


def _reported_event(file: Path) -> str | None:
    """The evidence when the saved proposal's sentinel says "occurred" (None otherwise)."""
    try:
        record = json.loads(file.read_bytes().decode("utf-8"))
        sentinel = record["proposal"]["proposal"]["sentinel"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(sentinel, dict) or sentinel.get("status") != "occurred":
        return None
    return str(sentinel.get("evidence") or "")


def _damaged_event(path: Path, name: str, p: ProposalInfo) -> Event:
    """The current proposal cannot be read (damaged, or a folder, FIFO or dangling link at its
    name): nobody can review it and no scheduled run researches the document again. Its key
    holds what is at that name (inode, time), so the same damage is told once."""
    file = history_dir(path) / p.name
    try:
        info = os.lstat(file)
        identity = f"{info.st_ino}:{info.st_mtime_ns}:{stat.S_IFMT(info.st_mode)}"
    except OSError:
        identity = "gone"
    return Event(
        key=f"failed:{name}:damaged-proposal:{_short_hash(identity, p.damaged)}",
        kind="failed",
        document=name,
        title=f"{name}: the proposal awaiting review is damaged ({p.damaged}); "
        "no run researches this document again until it is removed",
        details=(f"remove it: oo review {shlex.quote(str(path))} --discard {p.name}",),
        data={"damaged": p.damaged},
    )


def proposal_events(items: Iterable[tuple[Path, str]], *, damaged: bool = True) -> list[Event]:
    """Proposals awaiting review (``proposal``, or ``sentinel`` when one reports the event), and,
    with ``damaged``, a current proposal that cannot be read (``failed``)."""
    out = []
    for path, name in items:
        for p in list_proposals(path):
            if p.damaged:
                if damaged and p.current:  # a set-aside one blocks nothing
                    out.append(_damaged_event(path, name, p))
                continue
            cost = f", cost ${p.cost_usd:.4f}" if p.cost_usd is not None else ""
            version = f"v{p.version} " if p.version is not None else ""
            waiting = f"proposal {version}awaits review since {p.made}{cost}"
            details = [f"review it: oo review {path}"]
            evidence = _reported_event(history_dir(path) / p.name)
            if evidence is not None:  # the news itself, not only "something to review"
                title = f"{name}: the sentinel reports the event occurred; {waiting}"
                details.insert(0, f"evidence: {evidence}")
            else:
                title = f"{name}: {waiting}"
            out.append(
                Event(
                    key=f"proposal:{name}:{p.name}:{p.created}",
                    kind="sentinel" if evidence is not None else "proposal",
                    document=name,
                    title=title,
                    details=tuple(details),
                    data={"since": p.created, "cost_usd": p.cost_usd, "version": p.version},
                )
            )
    return out


def link_events(root: Path, items: Iterable[tuple[Path, str]]) -> list[Event]:
    from oo_nb.errors import OOError
    from oo_nb.format.document import Document

    rows = {u: r for u, r in read_links(root).items() if r.link_status in ("dead", "moved")}
    if not rows:
        return []
    cited: dict[str, list[str]] = {}
    for path, name in items:
        try:
            sources = Document.read(path).source_cache.sources
        except (OSError, OOError):
            continue  # an unreadable document is the audit's business, not an alert's
        for s in sources:
            if s.url in rows:
                cited.setdefault(s.url, []).append(name)
    out = []
    for url, docs in sorted(cited.items()):
        r = rows[url]
        moved = r.link_status == "moved"
        what = (
            f"moved to {r.final_url}"
            if moved
            else f"is dead ({r.status or r.error or 'no answer'})"
        )
        out.append(
            Event(
                key=f"links:{r.link_status}:{url}:{r.final_url or ''}",
                kind="links",
                document=", ".join(sorted(set(docs))),
                title=f"source {url} {what}",
                details=(f"cited by: {', '.join(sorted(set(docs)))}",),
                sources=(url,),
                data={"status": r.link_status, "final_url": r.final_url},
            )
        )
    return out


def run_events(root: Path, outcome: LibraryUpdate) -> list[Event]:
    """``failed`` and ``budget`` events of one update-all run. The key holds the document's
    bytes and the message: the same failure of the same file is told once."""
    base = root if root.is_dir() else root.parent
    out = []
    for path, message in sorted(outcome.failures.items()):
        name = relative_slug(path, base)
        state = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        overspent = outcome.failure_overspent(path)
        kind = "budget" if overspent or "budget" in message.lower() else "failed"
        what = "ran out of budget" if kind == "budget" else "update failed"
        if overspent:  # whatever else went wrong, the money went past what was allowed
            spent, allowed = outcome.failure_costs[path], outcome.failure_budgets[path]
            what = f"spent ${spent:.4f} of its ${allowed:.2f} budget, then the update failed"
        out.append(
            Event(
                key=f"{kind}:{name}:{_short_hash(state, _VARYING.sub('#', message))}",
                kind=kind,
                document=name,
                title=f"{name}: {what}",
                details=(message,),
            )
        )
    for r in outcome.results:
        if r.run is not None and r.overspent:
            name = relative_slug(r.path, base)
            kept = "kept for review: nothing was written automatically"
            out.append(
                Event(
                    key=f"budget:{name}:{_short_hash(r.original.hex()[:64], str(r.run.cost_usd))}",
                    kind="budget",
                    document=name,
                    title=f"{name}: ran out of budget (${r.run.cost_usd:.4f} of ${r.budget_usd:.2f})",
                    details=(kept if r.pending is not None else f"outcome: {r.status}",),
                )
            )
    return out


def collect_events(
    root: str | Path, outcome: LibraryUpdate | None = None, kinds: Iterable[str] | None = None
) -> list[Event]:
    """Every event the library shows now.

    Parameters
    ----------
    root : str or Path
        The library folder (or one document).
    outcome : LibraryUpdate, optional
        An update-all run: its failures and overspent runs become events too.
    kinds : iterable of str, optional
        Only these kinds (``config.EVENT_KINDS``; default: all).

    Returns
    -------
    list of Event
        Each with a ``key`` that names it for good.
    """
    folder = Path(root)
    wanted = (
        set(kinds) if kinds is not None else {"sentinel", "proposal", "links", "failed", "budget"}
    )
    items = _paths(folder)
    events: list[Event] = []
    if "sentinel" in wanted:
        events += sentinel_events(items)
    if "proposal" in wanted or "failed" in wanted:
        events += proposal_events(items, damaged="failed" in wanted)
    if "links" in wanted and folder.is_dir():
        events += link_events(folder, items)
    if outcome is not None:
        events += run_events(folder, outcome)
    return [e for e in events if e.kind in wanted]
