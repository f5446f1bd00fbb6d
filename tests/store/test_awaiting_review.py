"""`awaiting_review`: the proposal a run must not pay for twice, and when it was made."""

from __future__ import annotations

import json
from pathlib import Path

from oo_nb.store.proposals import ProposalInfo, awaiting_review
from oo_nb.store.store import history_dir


def _doc(tmp_path: Path) -> Path:
    doc = tmp_path / "tides.o-o.html"
    doc.write_text("not parsed here")
    return doc


def test_none_without_a_pending_proposal(tmp_path: Path) -> None:
    doc = _doc(tmp_path)
    assert awaiting_review(doc) is None
    assert not history_dir(doc).exists()  # looking made nothing
    history_dir(doc).mkdir(parents=True)
    (history_dir(doc) / "pending-1.json").write_text("{}")  # set aside: awaits nothing
    assert awaiting_review(doc) is None


def test_a_pending_proposal_and_its_date(tmp_path: Path) -> None:
    doc = _doc(tmp_path)
    history_dir(doc).mkdir(parents=True)
    pending = history_dir(doc) / "pending.json"
    pending.write_text(json.dumps({"created": "2026-12-01T18:40:07+00:00", "run": {}}))
    found = awaiting_review(doc)
    assert found is not None and found.made == "2026-12-01 18:40 UTC" and found.stale
    pending.write_text("{damaged")
    damaged = awaiting_review(doc)
    assert damaged is not None and damaged.damaged and damaged.made == "an unknown time"


def test_made_reads_what_the_file_says() -> None:
    def made(created: str) -> str:
        return ProposalInfo("pending.json", created, None, None, False).made

    assert made("2026-12-01T20:40:00+02:00") == "2026-12-01 18:40 UTC"
    assert made("2026-12-01T18:40:00") == "2026-12-01 18:40"
    assert made("yesterday") == "yesterday"


def test_made_survives_a_date_at_the_ends_of_the_calendar() -> None:
    """A hand-edited date that exists but cannot be moved to UTC (year 1 at +14:00) is shown as
    the file says it, not a crash of every `oo update` and `update-all` of the document."""

    def made(created: str) -> str:
        return ProposalInfo("pending.json", created, None, None, False).made

    assert made("0001-01-01T00:00:00+14:00") == "0001-01-01T00:00:00+14:00"
    assert made("9999-12-31T23:59:59-14:00") == "9999-12-31T23:59:59-14:00"


def test_a_pending_file_nested_too_deep_awaits_review_as_damaged(tmp_path: Path) -> None:
    """A pending.json of 100,000 nested lists overflows the JSON parser's recursion: it is a
    damaged proposal awaiting review (as `oo review` says), not a crash of `oo update`,
    `update-all` and `oo review --list`."""
    from oo_nb.store.proposals import list_proposals

    doc = _doc(tmp_path)
    history_dir(doc).mkdir(parents=True)
    (history_dir(doc) / "pending.json").write_text("[" * 100_000 + "]" * 100_000)
    found = awaiting_review(doc)
    assert found is not None and found.damaged and found.made == "an unknown time"
    assert [p.damaged != "" for p in list_proposals(doc)] == [True]


def test_a_date_holding_terminal_controls_reaches_no_terminal(tmp_path: Path) -> None:
    """pending.json is untrusted: its "created" is printed by every `oo update`, `update-all`
    (cron logs) and `oo review --list`. Escape sequences and line breaks in it (clear the
    screen, set the title, forge an output line) are shown as harmless characters."""
    from oo_nb.store.proposals import list_proposals

    doc = _doc(tmp_path)
    history_dir(doc).mkdir(parents=True)
    evil = "\x1b]0;pwned\x07\x1b[2J\r\nfake line\x9b31m"
    (history_dir(doc) / "pending.json").write_text(json.dumps({"created": evil, "run": {}}))
    found = awaiting_review(doc)
    assert found is not None
    for text in (found.made, found.line(), list_proposals(doc)[0].line()):
        assert not any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text), repr(text)
        assert "fake line" in text  # the rest of it is still shown


def test_a_saved_proposal_that_is_a_fifo_is_damaged_not_read(tmp_path: Path) -> None:
    """A FIFO named like a set-aside proposal made `oo review DOC --list` (and `oo review DOC`
    with no current proposal) wait for a writer for ever. It is listed as damaged, unread."""
    import os
    import threading

    from oo_nb.store.proposals import list_proposals

    doc = _doc(tmp_path)
    history_dir(doc).mkdir(parents=True)
    os.mkfifo(history_dir(doc) / "pending-5.json")
    listed: list[list[str]] = []
    reader = threading.Thread(
        target=lambda: listed.append([p.line() for p in list_proposals(doc)]), daemon=True
    )
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock the stuck reader so the test run can end
        with open(history_dir(doc) / "pending-5.json", "wb"):
            pass
        reader.join(5)
        raise AssertionError("list_proposals blocked on a FIFO")
    assert (
        len(listed[0]) == 1 and "damaged" in listed[0][0] and "not a regular file" in listed[0][0]
    )
