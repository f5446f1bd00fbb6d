"""Sending what is new, once: the events not yet in ``DIR/.oo/alerts-sent.jsonl`` go to every
channel, one message per event or one digest when more than ``digest_after`` are new. An event
is recorded as sent when at least one channel took it (when none did, the next run tries
again). A failing channel is reported by name; it never raises out of ``alert_after_update``:
an update never fails because an alert did."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from oo_nb.alerts.channels import ChannelError, send
from oo_nb.alerts.config import AlertConfig, load_config, private_dir
from oo_nb.alerts.events import Event, collect_events
from oo_nb.alerts.message import Message, compose
from oo_nb.redaction import redact
from oo_nb.store import clock

if TYPE_CHECKING:
    from oo_nb.agent.types import LibraryUpdate

__all__ = ["SENT_FILE", "AlertReport", "alert_after_update", "deliver", "read_sent", "test_alert"]

SENT_FILE = "alerts-sent.jsonl"


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


def read_sent(root: str | Path) -> set[str]:
    """The keys of every event already sent from the library at ``root``."""
    path = _sent_path(Path(root))
    if not path.is_file():
        return set()
    keys = set()
    for line in path.read_text("utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a torn last line: its event is sent again rather than lost
        if isinstance(row, dict) and isinstance(row.get("key"), str):
            keys.add(row["key"])
    return keys


def _record(root: Path, events: list[Event], channels: list[str]) -> None:
    private_dir(root)
    stamp = clock.now().isoformat(timespec="seconds")
    text = "".join(
        json.dumps(
            {
                "key": e.key,
                "kind": e.kind,
                "document": e.document,
                "sent_at": stamp,
                "channels": channels,
            },
            ensure_ascii=False,
        )
        + "\n"
        for e in events
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


def deliver(root: str | Path, events: list[Event], config: AlertConfig) -> AlertReport:
    """Send the events not sent before, and record what went out.

    Parameters
    ----------
    root : str or Path
        The library folder (its record: ``.oo/alerts-sent.jsonl``).
    events : list of Event
        What the library shows now; those already sent are left out.
    config : AlertConfig
        The channels, the kinds wanted and the digest threshold.

    Returns
    -------
    AlertReport
        New and already-sent counts, messages per channel, and one error line per failing
        channel (a channel that fails never stops the others).
    """
    folder = Path(root)
    sent = read_sent(folder)
    wanted = [e for e in events if e.kind in config.events]
    new = list({e.key: e for e in wanted if e.key not in sent}.values())
    report = AlertReport(new=new, already_sent=len(wanted) - len(new))
    if not new:
        return report
    report.messages = _messages(folder, new, config.digest_after)
    taken: dict[str, list[str]] = {}
    for channel in config.channels:
        for message in report.messages:
            try:
                send(channel, message, config.path.parent)
            except ChannelError as exc:
                report.errors.append(str(exc))
                break  # one error per channel: its other messages would fail alike
            report.delivered[channel.name] = report.delivered.get(channel.name, 0) + 1
            for e in message.events:
                taken.setdefault(e.key, []).append(channel.name)
    delivered = [e for e in new if e.key in taken]
    if delivered:
        _record(folder, delivered, sorted({c for e in delivered for c in taken[e.key]}))
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
        return AlertReport(errors=[redact(f"alerts were not sent: {type(exc).__name__}: {exc}")])


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
    for channel in config.channels:
        try:
            send(channel, report.messages[0], config.path.parent)
        except ChannelError as exc:
            report.errors.append(str(exc))
        else:
            report.delivered[channel.name] = 1
    return report
