"""Sending what is new, once per channel: each event goes to every channel that has not taken it,
one message per event or one digest when more than ``digest_after`` are due at once. The record
``DIR/.oo/alerts-sent.jsonl`` says, per event, which channels took it and which were set when it
was first sent: a channel that failed is owed the event and tried again next run (one added later
is not sent the backlog). Channels are sent to at once, each within ``CHANNEL_DEADLINE_S``: one
that accepts and never answers is given up on for this run, said, and tried again next time. A
failing channel is reported by name; it never raises out of ``alert_after_update``: an update
never fails because an alert did."""

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
from oo_nb.errors import OOError
from oo_nb.redaction import redact
from oo_nb.store import clock

if TYPE_CHECKING:
    from oo_nb.agent.types import LibraryUpdate

__all__ = [
    "CHANNEL_DEADLINE_S",
    "SENT_FILE",
    "AlertReport",
    "Delivery",
    "alert_after_update",
    "deliver",
    "owed",
    "read_record",
    "read_sent",
    "test_alert",
]

SENT_FILE = "alerts-sent.jsonl"
# How long one channel may take for all its messages of a run; a server that accepts and never
# answers (or answers a byte at a time) holds update-all no longer than this
CHANNEL_DEADLINE_S = 10.0


@dataclass
class AlertReport:
    """What one round of alerts did."""

    new: list[Event] = field(default_factory=list)
    already_sent: int = 0
    messages: list[Message] = field(default_factory=list)
    delivered: dict[str, int] = field(default_factory=dict)  # channel -> messages taken
    errors: list[str] = field(default_factory=list)
    configured: bool = True

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
        return out


def _sent_path(root: Path) -> Path:
    return root / ".oo" / SENT_FILE


@dataclass
class Delivery:
    """What the record says of one event: the channels that took it, and those that were set
    when it was first sent (each of which is owed it until it takes it)."""

    taken: set[str] = field(default_factory=set)
    due: set[str] = field(default_factory=set)

    def owed_to(self, channel: str) -> bool:
        return channel in self.due and channel not in self.taken


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
        taken = {c for c in row.get("channels") or () if isinstance(c, str)}
        due = {c for c in row.get("due") or () if isinstance(c, str)}
        entry = record.setdefault(row["key"], Delivery())
        entry.taken |= taken
        entry.due |= due or taken  # rows written before "due": nothing owed
    return record


def read_sent(root: str | Path) -> set[str]:
    """The keys of every event some channel of the library at ``root`` took."""
    return {k for k, d in read_record(root).items() if d.taken}


def owed(events: list[Event], channel: str, record: dict[str, Delivery]) -> list[Event]:
    """The events ``channel`` is to be sent: new ones, and those it failed to take before."""
    return [e for e in events if e.key not in record or record[e.key].owed_to(channel)]


def _record(root: Path, taken: dict[str, list[str]], events: list[Event], due: list[str]) -> None:
    private_dir(root)
    stamp = clock.now().isoformat(timespec="seconds")
    text = "".join(
        json.dumps(
            {
                "key": e.key,
                "kind": e.kind,
                "document": e.document,
                "sent_at": stamp,
                "channels": sorted(taken[e.key]),
                "due": due,
            },
            ensure_ascii=False,
        )
        + "\n"
        for e in events
        if e.key in taken
    )
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
        self.thread = threading.Thread(
            target=self._run, daemon=True, name=f"oo-alert-{channel.name}"
        )

    def _run(self) -> None:
        for message in self.messages:
            try:
                send(self.channel, message, self.settings_dir)
            except ChannelError as exc:
                self.error = str(exc)
                return  # one error per channel: its other messages would fail alike
            self.taken.append(message)


def _send_each(sendings: list[_Sending], report: AlertReport, taken: dict[str, list[str]]) -> None:
    for sending in sendings:
        sending.thread.start()
    deadline = time.monotonic() + CHANNEL_DEADLINE_S
    for sending in sendings:
        sending.thread.join(max(0.0, deadline - time.monotonic()))
        done = list(sending.taken)  # what it took so far, even if it is still waiting
        name = sending.channel.name
        if done:
            report.delivered[name] = len(done)
        for message in done:
            for e in message.events:
                taken.setdefault(e.key, []).append(name)
        if sending.thread.is_alive():
            report.errors.append(
                f"channel {name!r} ({sending.channel.type}): no answer within "
                f"{CHANNEL_DEADLINE_S:g} s; given up for this run, tried again next time"
            )
        elif sending.error is not None:
            report.errors.append(sending.error)


def deliver(root: str | Path, events: list[Event], config: AlertConfig) -> AlertReport:
    """Send each channel the events it has not taken, and record what went out.

    Parameters
    ----------
    root : str or Path
        The library folder (its record: ``.oo/alerts-sent.jsonl``).
    events : list of Event
        What the library shows now; those every channel took are left out.
    config : AlertConfig
        The channels, the kinds wanted and the digest threshold.

    Returns
    -------
    AlertReport
        The events due to some channel (``new``), messages per channel, and one error line per
        failing channel (a channel that fails, or takes longer than ``CHANNEL_DEADLINE_S``,
        never stops the others).
    """
    folder = Path(root)
    record = read_record(folder)
    wanted = list({e.key: e for e in events if e.kind in config.events}.values())
    per_channel = {c.name: owed(wanted, c.name, record) for c in config.channels}
    due_keys = {e.key for todo in per_channel.values() for e in todo}
    new = [e for e in wanted if e.key in due_keys]
    report = AlertReport(new=new, already_sent=len(wanted) - len(new))
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
    _send_each(sendings, report, taken)
    if taken:
        _record(folder, taken, new, sorted(c.name for c in config.channels))
    return report


def alert_after_update(root: str | Path, outcome: LibraryUpdate | None = None) -> AlertReport:
    """The alerts of a library after an update-all run.

    Parameters
    ----------
    root : str or Path
        The library folder.
    outcome : LibraryUpdate, optional
        The run just finished.

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
        return deliver(folder, collect_events(folder, outcome, config.events), config)
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
