"""``oo update-all DIR``: update every stale document in a folder, concurrently (or as a batch).

Its report names each document's outcome: written, proposed (saved for review), awaiting review
(an earlier proposal is still unreviewed: not researched again), fresh, or failed."""

from __future__ import annotations

import argparse
import html
from pathlib import Path
from typing import Any

from oo_nb.agent.types import LibraryUpdate
from oo_nb.cli.update import add_timeout_argument, positive_usd
from oo_nb.format.display import no_typesetting

HELP = "update every stale document under DIR, concurrently with a progress bar (--batch: Message Batches)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="folder of .o-o.html documents (searched recursively)")
    p.add_argument("--force", action="store_true", help="update fresh documents too")
    p.add_argument(
        "--concurrency",
        type=int,
        default=4,
        metavar="N",
        help="documents researched at once (default 4)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--yes", action="store_true", help="write each update without review (history kept)"
    )
    mode.add_argument(
        "--auto",
        action="store_true",
        help="write each clean update, keep the others for review saying why (see `oo update --auto`); "
        'without it, a contract\'s `review: "auto"` does this for its document',
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="send through the Message Batches API (half price, slower; polls)",
    )
    p.add_argument(
        "--model",
        help="model id or family (sonnet, opus…) for every document (default: each contract's, else $OO_MODEL, else claude-sonnet-5-5)",
    )
    p.add_argument(
        "--budget",
        type=positive_usd,
        metavar="USD",
        help="budget per document (default: each contract's)",
    )
    p.add_argument(
        "--agent",
        choices=("anthropic", "claude-code", "replay"),
        help="research backend (default as for `oo update`)",
    )
    p.add_argument("--base-url", metavar="URL", help="any Anthropic-compatible endpoint")
    p.add_argument(
        "--poll",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds between batch polls (default 10)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--no-alerts",
        dest="alerts",
        action="store_false",
        help="do not send the library's alerts at the end (DIR/.oo/alerts.json; see `oo alerts`)",
    )
    add_timeout_argument(p, per="a document's research (concurrent mode; --batch polls instead)")


class UpdateAllOutcome:
    def __init__(self, outcome: LibraryUpdate) -> None:
        self.value = outcome
        lost = any(r.not_saved for r in outcome.results)  # research paid for and not kept
        self.exit_code = 1 if outcome.failures or lost else 0
        self.alert_lines: list[str] = []  # what the alerts did (never changes the exit code)

    def lines(self) -> list[str]:
        o = self.value
        out = []
        for r in o.results:
            label = r.outcome
            where = (
                f" → {r.written.name}"
                if r.written
                else " → pending review"
                if r.pending
                else " → NOT saved"
                if r.not_saved
                else ""
            )
            out.append(f"{label:9} {r.path.name}: {r.message.split(': ', 1)[-1]}{where}")
            if r.kept_because:
                out.append("          kept for review: " + "; ".join(r.kept_because))
            out += [f"          warning: {w}" for w in r.warnings]
        for path, message in sorted(o.failures.items()):
            out.append(f"failed    {path.name}: {message}")
        for left in o.left_out:  # (a second name: its file is updated once, by its own name)
            out.append(f"left out  {left.path.name}: {left.reason}")
        counts = {k: 0 for k in ("written", "proposed", "awaiting", "busy", "fresh")}
        for r in o.results:
            label = r.outcome
            counts[label] = counts.get(label, 0) + 1
        out.append(
            f"{counts['written']} written, {counts['proposed']} proposed, "
            f"{counts['awaiting']} awaiting review, "
            + (f"{counts['busy']} being researched by another run, " if counts["busy"] else "")
            + f"{counts['fresh']} fresh, "
            f"{len(o.failures)} failed; total cost ${o.cost_usd:.4f}; {o.elapsed_s:.1f} s"
            + (f"; batch {o.batch_id}" if o.batch_id else "")
        )
        if o.interrupted:
            out.append(o.interrupted_line())
        return out + self.alert_lines

    def to_text(self) -> str:
        return "\n".join(self.lines())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        rows = "".join(f"<li>{html.escape(line)}</li>" for line in self.lines())
        markup = no_typesetting(f'<ul class="oo-update-all">{rows}</ul>')
        return {"text/plain": self.to_text(), "text/html": markup}

    def __repr__(self) -> str:
        return self.to_text()


def run(ns: argparse.Namespace) -> UpdateAllOutcome:
    from oo_nb.agent.types import UpdateInterrupted
    from oo_nb.api.library import Library

    folder = Path(ns.dir)
    try:
        outcome = _update_all(Library(folder), ns)
    except UpdateInterrupted as stop:  # said with what it did; no alert is sent after it
        result = UpdateAllOutcome(stop.outcome)
        result.exit_code = stop.exit_code
        return result
    result = UpdateAllOutcome(outcome)
    if getattr(ns, "alerts", True) and folder.is_dir():
        _send_alerts(folder, result)
    return result


def _send_alerts(folder: Path, result: UpdateAllOutcome) -> None:
    """The library's alerts after the run. A signal meanwhile (Ctrl-C, SIGTERM) ends the
    sending at once; the report still says what the run did, then how far the alerts got, and
    the exit status is the signal's (a KeyboardInterrupt said "nothing was written", and a
    SIGTERM ended the process without a word, after documents were written)."""
    from oo_nb.agent.interrupt import Stop, catches_signals, held

    stop = Stop(catches_signals())
    with held(stop):
        from oo_nb.alerts.deliver import alert_after_update  # never raises: a line per problem

        report = alert_after_update(folder, result.value, stop)
    if stop.signum is not None:
        result.exit_code = stop.exit_code
        report.interrupted = report.interrupted or stop.name  # (or after the last message went)
    if report.configured:
        result.alert_lines = report.lines()
    elif stop.signum is not None:  # no alerts to speak of: the signal still is
        result.alert_lines = [f"interrupted by {stop.name} after the run had ended"]


def _update_all(library: Any, ns: argparse.Namespace) -> LibraryUpdate:
    outcome: LibraryUpdate = library.update_all(
        force=ns.force,
        yes=ns.yes,
        auto=bool(ns.auto),
        concurrency=ns.concurrency,
        batch=ns.batch,
        progress=not ns.no_progress,
        poll_interval=ns.poll,
        model=ns.model,
        budget=ns.budget,
        agent=ns.agent,
        base_url=ns.base_url,
        timeout=ns.timeout,
    )
    return outcome
