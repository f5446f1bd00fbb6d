"""Sending what is new, once per channel: each event goes to every channel that has not taken it,
one message per event or one digest when more than ``digest_after`` are due at once. The record
``DIR/.oo/alerts-sent.jsonl`` says, per event, which channels took it and which were set when it
was first sent: a channel that failed is owed the event and tried again next run (one added later
is not sent the backlog). An event some channel is still owed is recorded with its text: the
next run sends it even when the library no longer shows it (a failure of the run before), if
this machine sealed that row (``owed_seal``: a row that came with the library is never sent).
Channels are sent to at once, each within ``CHANNEL_DEADLINE_S``: one that accepts and never
answers is given up on for this run, said, and tried again next time. A signal (``stop``:
Ctrl-C, SIGTERM) ends the sending at once, the message in flight abandoned (the next run sends
it again). A failing channel is reported by name; it never raises out of ``alert_after_update``:
an update never fails because an alert did."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from oo_nb.alerts.channels import ChannelError, send
from oo_nb.alerts.config import AlertConfig, Channel, load_config, private_dir
from oo_nb.alerts.events import Event, collect_events
from oo_nb.alerts.message import Message, compose
from oo_nb.alerts.owed_seal import sealed, unvouched
from oo_nb.errors import OOError
from oo_nb.redaction import redact
from oo_nb.store import clock

if TYPE_CHECKING:
    from oo_nb.agent.interrupt import Stop
    from oo_nb.agent.types import LibraryUpdate

__all__ = [
    "CHANNEL_DEADLINE_S",
    "SENT_FILE",
    "AlertReport",
    "Delivery",
    "alert_after_update",
    "deliver",
    "ignored_line",
    "ignored_owed",
    "owed",
    "read_record",
    "read_sent",
    "test_alert",
    "with_owed",
]

SENT_FILE = "alerts-sent.jsonl"
# How long one channel may take for all its messages of a run; a server that accepts and never
# answers (or answers a byte at a time) holds update-all no longer than this
CHANNEL_DEADLINE_S = 10.0
# how often the wait for the channels looks at ``stop``: a signal's handler cannot wake a join
_POLL_S = 0.05


@dataclass
class AlertReport:
    """What one round of alerts did."""

    new: list[Event] = field(default_factory=list)
    already_sent: int = 0
    messages: list[Message] = field(default_factory=list)
    delivered: dict[str, int] = field(default_factory=dict)  # channel -> messages taken
    errors: list[str] = field(default_factory=list)
    configured: bool = True
    planned: int = 0  # messages to send, summed over the channels
    interrupted: str = ""  # the signal that ended the sending ("SIGINT"), if one did
    ignored: dict[str, int] = field(default_factory=dict)  # owed rows never sent, by why

    def lines(self) -> list[str]:
        if not self.configured:
            return ["alerts: not configured (see `oo alerts DIR --show`)"]
        out = [
            f"alerts: {len(self.new)} new event(s), {self.already_sent} already sent; "
            + (
                ", ".join(f"{n} message(s) to {c}" for c, n in self.delivered.items())
                or "nothing sent"
            )
        ]
        out += [f"alert error: {e}" for e in self.errors]
        if self.ignored:
            out.append(ignored_line(self.ignored).strip())
        if self.interrupted:
            sent = sum(self.delivered.values())
            rest = "; the rest go with the next run" if sent < self.planned else ""
            out.append(
                f"alerts interrupted by {self.interrupted}: {sent} of {self.planned} sent{rest}"
            )
        return out


def _sent_path(root: Path) -> Path:
    return root / ".oo" / SENT_FILE


@dataclass
class Delivery:
    """What the record says of one event: the channels that took it, and those that were set
    when it was first sent (each of which is owed it until it takes it)."""

    taken: set[str] = field(default_factory=set)
    due: set[str] = field(default_factory=set)
    event: Event | None = None  # as recorded while some channel was owed it (sealed here)
    unvouched: str = ""  # why a recorded text was set aside (``owed_seal``), if one was
    vouched: bool = False  # some row of it was sealed by this machine

    def owed_to(self, channel: str) -> bool:
        # rows this machine did not seal vouch for nothing: not even that a channel took it
        return not self.vouched or (channel in self.due and channel not in self.taken)


def read_record(root: str | Path) -> dict[str, Delivery]:
    """Per event key, what the record of the library at ``root`` says was sent."""
    path = _sent_path(Path(root))
    if not path.is_file():
        return {}
    record: dict[str, Delivery] = {}
    for line in path.read_text("utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a torn last line: its event is sent again rather than lost
        if not isinstance(row, dict) or not isinstance(row.get("key"), str):
            continue
        kept = _recorded_event(row)
        why = unvouched(row)
        if why is not None and kept is None:
            continue  # a row from elsewhere cannot mark an event as sent (s36 attack A4)
        entry = record.setdefault(row["key"], Delivery())
        if why is not None:
            entry.unvouched = why  # its text is never sent: this machine cannot vouch for it
            continue
        taken = {c for c in row.get("channels") or () if isinstance(c, str)}
        due = {c for c in row.get("due") or () if isinstance(c, str)}
        entry.vouched = True
        entry.taken |= taken
        entry.due |= due or taken  # rows written before "due": nothing owed
        entry.event = kept or entry.event
    return record


def _recorded_event(row: dict[str, object]) -> Event | None:
    """The event a row of the record holds (written while a channel was still owed it)."""
    kept = row.get("event")
    if not isinstance(kept, dict):
        return None
    title, details, sources = kept.get("title"), kept.get("details"), kept.get("sources")
    if not isinstance(title, str) or not isinstance(details, list) or not isinstance(sources, list):
        return None
    return Event(
        key=str(row["key"]),
        kind=str(row.get("kind") or ""),
        document=str(row.get("document") or ""),
        title=title,
        details=tuple(str(d) for d in details),
        sources=tuple(str(u) for u in sources),
    )


def _owed_unshown(
    events: list[Event], record: dict[str, Delivery], config: AlertConfig
) -> list[Delivery]:
    """What the record says a channel of ``config`` is still owed that ``events`` (what the
    library shows) does not hold."""
    shown = {e.key for e in events}
    names = [c.name for c in config.channels]
    return [
        d
        for key, d in record.items()
        if key not in shown and any(d.owed_to(name) for name in names)
    ]


def with_owed(events: list[Event], record: dict[str, Delivery], config: AlertConfig) -> list[Event]:
    """``events`` and those the record says a channel of ``config`` is still owed that the
    library no longer shows (a failure of an earlier run, a sending cut short by a signal), of
    the rows this machine sealed."""
    owed_still = [
        d.event
        for d in _owed_unshown(events, record, config)
        if d.event is not None and d.event.kind in config.events
    ]
    return events + owed_still


def ignored_owed(
    events: list[Event], record: dict[str, Delivery], config: AlertConfig
) -> dict[str, int]:
    """How many owed events ``with_owed`` leaves out because this machine cannot vouch for their
    recorded text, by why (``owed_seal``)."""
    counts: dict[str, int] = {}
    for d in _owed_unshown(events, record, config):
        if d.event is None and d.unvouched:
            counts[d.unvouched] = counts.get(d.unvouched, 0) + 1
    return counts


def ignored_line(ignored: dict[str, int]) -> str:
    """One line (indented, as under ``--show``'s settings): the owed events of the record whose
    text is never sent (``ignored_owed``), how many and why."""
    why = "; ".join(f"{n} {reason}" for reason, n in sorted(ignored.items()))
    return (
        f"  ignored {sum(ignored.values())} owed event(s) of .oo/{SENT_FILE} not sealed by oo "
        f"on this machine, never sent: {why}"
    )


def read_sent(root: str | Path) -> set[str]:
    """The keys of every event some channel of the library at ``root`` took."""
    return {k for k, d in read_record(root).items() if d.taken}


def owed(events: list[Event], channel: str, record: dict[str, Delivery]) -> list[Event]:
    """The events ``channel`` is to be sent: new ones, and those it failed to take before."""
    return [e for e in events if e.key not in record or record[e.key].owed_to(channel)]


def _record(
    root: Path,
    taken: dict[str, list[str]],
    owing: set[str],
    events: list[Event],
    due: list[str],
) -> None:
    """A row per event that some channel took or is still ``owing`` (it was sent it this run
    and did not take it); the latter with the event's text, for the next run to send."""
    private_dir(root)
    stamp = clock.now().isoformat(timespec="seconds")
    rows = []
    for e in events:
        if e.key not in taken and e.key not in owing:
            continue
        row: dict[str, object] = {
            "key": e.key,
            "kind": e.kind,
            "document": e.document,
            "sent_at": stamp,
            "channels": sorted(taken.get(e.key, ())),
            "due": due,
        }
        if e.key in owing:
            row["event"] = {
                "title": e.title,
                "details": list(e.details),
                "sources": list(e.sources),
            }
        # the next run believes (and sends again) only what this machine wrote; escaped to
        # ASCII so that a file name that is not UTF-8 (a lone surrogate) is kept as it is
        rows.append(json.dumps(sealed(row)) + "\n")
    text = "".join(rows)
    fd = os.open(_sent_path(root), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def _messages(root: Path, events: list[Event], digest_after: int) -> list[Message]:
    name = root.resolve().name or str(root)
    if len(events) > digest_after:
        return [compose(name, events)]
    return [compose(name, [e]) for e in events]


class _Sending:
    """One channel's messages of a run, sent in a thread of its own (a daemon: a server that
    never answers cannot hold the process either)."""

    def __init__(self, channel: Channel, messages: list[Message], settings_dir: Path) -> None:
        self.channel, self.messages, self.settings_dir = channel, messages, settings_dir
        self.taken: list[Message] = []
        self.error: str | None = None
        self.given_up = threading.Event()  # no more messages: the run stopped waiting for it
        self.thread = threading.Thread(
            target=self._run, daemon=True, name=f"oo-alert-{channel.name}"
        )

    def _run(self) -> None:
        for message in self.messages:
            if self.given_up.is_set():
                return
            try:
                send(self.channel, message, self.settings_dir)
            except ChannelError as exc:
                self.error = str(exc)
                return  # one error per channel: its other messages would fail alike
            self.taken.append(message)


def _send_each(
    sendings: list[_Sending],
    report: AlertReport,
    taken: dict[str, list[str]],
    stop: Stop | None = None,
) -> None:
    report.planned = sum(len(s.messages) for s in sendings)
    for sending in sendings:
        sending.thread.start()
    _wait(sendings, time.monotonic() + CHANNEL_DEADLINE_S, stop)
    if stop is not None and stop.signum is not None:
        report.interrupted = stop.name
    for sending in sendings:
        sending.given_up.set()  # one still sending sends no further message
        done = list(sending.taken)  # what it took so far, even if it is still waiting
        name = sending.channel.name
        if done:
            report.delivered[name] = len(done)
        for message in done:
            for e in message.events:
                taken.setdefault(e.key, []).append(name)
        if sending.thread.is_alive():
            if not report.interrupted:  # (an interrupted sending is said in one line)
                report.errors.append(
                    f"channel {name!r} ({sending.channel.type}): no answer within "
                    f"{CHANNEL_DEADLINE_S:g} s; given up for this run, tried again next time"
                )
        elif sending.error is not None:
            report.errors.append(sending.error)


def _wait(sendings: list[_Sending], deadline: float, stop: Stop | None) -> None:
    """Until every channel is done, ``deadline`` passes or a signal stops the run."""
    for sending in sendings:
        while sending.thread.is_alive():
            left = deadline - time.monotonic()
            if left <= 0 or (stop is not None and stop.signum is not None):
                return
            sending.thread.join(min(left, _POLL_S))


def deliver(
    root: str | Path, events: list[Event], config: AlertConfig, stop: Stop | None = None
) -> AlertReport:
    """Send each channel the events it has not taken, and record what went out.

    Parameters
    ----------
    root : str or Path
        The library folder (its record: ``.oo/alerts-sent.jsonl``).
    events : list of Event
        What the library shows now (with those a channel is still owed that it no longer
        shows: ``with_owed``); those every channel took are left out.
    config : AlertConfig
        The channels, the kinds wanted and the digest threshold.
    stop : Stop, optional
        Set by a signal (``agent.interrupt.held``): the sending ends at once.

    Returns
    -------
    AlertReport
        The events due to some channel (``new``), messages per channel, and one error line per
        failing channel (a channel that fails, or takes longer than ``CHANNEL_DEADLINE_S``,
        never stops the others); ``interrupted`` names the signal that ended the sending.
    """
    folder = Path(root)
    record = read_record(folder)
    shown = with_owed(events, record, config)
    wanted = list({e.key: e for e in shown if e.kind in config.events}.values())
    per_channel = {c.name: owed(wanted, c.name, record) for c in config.channels}
    due_keys = {e.key for todo in per_channel.values() for e in todo}
    new = [e for e in wanted if e.key in due_keys]
    report = AlertReport(new=new, already_sent=len(wanted) - len(new))
    report.ignored = ignored_owed(events, record, config)  # said, as --show says it
    if not new:
        return report
    composed: dict[tuple[str, ...], list[Message]] = {}  # channels owed the same: one wording
    sendings = []
    for channel in config.channels:
        todo = per_channel[channel.name]
        if not todo:
            continue
        ids = tuple(e.key for e in todo)
        if ids not in composed:
            composed[ids] = _messages(folder, todo, config.digest_after)
            report.messages += composed[ids]
        sendings.append(_Sending(channel, composed[ids], config.path.parent))
    taken: dict[str, list[str]] = {}
    _send_each(sendings, report, taken, stop)
    owing = {  # sent this run to a channel that did not take it: the next run sends it
        e.key
        for sending in sendings
        for message in sending.messages
        for e in message.events
        if sending.channel.name not in taken.get(e.key, ())
    }
    if taken or owing:
        _record(folder, taken, owing, new, sorted(c.name for c in config.channels))
    return report


def alert_after_update(
    root: str | Path, outcome: LibraryUpdate | None = None, stop: Stop | None = None
) -> AlertReport:
    """The alerts of a library after an update-all run.

    Parameters
    ----------
    root : str or Path
        The library folder.
    outcome : LibraryUpdate, optional
        The run just finished.
    stop : Stop, optional
        Set by a signal: the sending ends at once (``deliver``).

    Returns
    -------
    AlertReport
        ``configured`` is False without ``.oo/alerts.json``. Never raises: a bad setting, an
        unreadable history or a failing channel is a line in ``errors``.
    """
    folder = Path(root)
    try:
        config = load_config(folder)
        if config is None:
            return AlertReport(configured=False)
        return deliver(folder, collect_events(folder, outcome, config.events), config, stop)
    # the update is done: no problem of the alerts may change its outcome
    except Exception as exc:
        # a setting of ours says what it is; anything else is named by its type
        why = str(exc) if isinstance(exc, OOError) else f"{type(exc).__name__}: {exc}"
        return AlertReport(errors=[redact(f"alerts were not sent: {why}")])


def test_alert(root: str | Path) -> AlertReport:
    """One test message to every channel (not recorded as an event)."""
    folder = Path(root)
    config = load_config(folder)
    report = AlertReport(configured=config is not None)
    if config is None:
        return report
    event = Event(
        key="test",
        kind="test",
        document="",
        title="a test alert: this channel works",
        details=(f"sent by `oo alerts {folder} --test`",),
    )
    report.messages = _messages(folder, [event], config.digest_after)
    sendings = [_Sending(c, report.messages, config.path.parent) for c in config.channels]
    _send_each(sendings, report, {})
    return report
