"""What the record of alerts (``.oo/alerts-sent.jsonl``) may say: only a row this machine sealed
marks an event as sent (s36 attack A4), and a document whose file name is not UTF-8 is recorded
as it is, so its alert goes once (A3)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from oo_nb.agent.types import LibraryUpdate
from oo_nb.alerts.deliver import alert_after_update, read_record
from oo_nb.alerts.events import collect_events
from tests.support.alert_receivers import webhook_receiver
from tests.support.alert_settings import write_alerts
from tests.support.watched import watched_library


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    watched_library(tmp_path / "lib")
    return tmp_path / "lib"


def test_an_unsealed_row_shipped_with_a_library_does_not_mark_an_event_sent(lib: Path) -> None:
    keys = [e.key for e in collect_events(lib)]
    assert keys
    (lib / ".oo").mkdir(mode=0o700)
    with (lib / ".oo" / "alerts-sent.jsonl").open("w") as record:
        for key in keys:  # "taken" by the channel name the user will choose, and owed nothing
            record.write(json.dumps({"key": key, "channels": ["team"], "due": []}) + "\n")
    with webhook_receiver() as team:
        write_alerts(lib, {"type": "webhook", "name": "team", "url": team.url})
        report = alert_after_update(lib)
        assert not report.errors and report.delivered == {"team": 1} and team.bodies
        # what this machine recorded does mark them sent: the next run sends nothing
        assert not alert_after_update(lib).delivered and len(team.bodies) == 1


def test_a_file_name_that_is_not_utf8_is_recorded_and_sent_once(lib: Path) -> None:
    doc = lib / os.fsdecode(b"caf\xe9.o-o.html")
    failed = LibraryUpdate(failures={doc: "the model declined"})
    with webhook_receiver() as team:
        write_alerts(lib, {"type": "webhook", "name": "team", "url": team.url}, events=["failed"])
        first = alert_after_update(lib, failed)
        assert not first.errors and first.delivered == {"team": 1}
        record = read_record(lib)
        assert [d.event for d in record.values()] == [None]  # taken: no text kept
        (row,) = [json.loads(line) for line in (lib / ".oo" / "alerts-sent.jsonl").open()]
        assert os.fsencode(row["document"]) == b"caf\xe9"  # the name as it is
        again = alert_after_update(lib, failed)
        assert not again.errors and not again.delivered and len(team.bodies) == 1
