"""The claim on a document's research: one run at a time, let go on release or process end."""

from __future__ import annotations

from pathlib import Path

from oo_nb.store.research_claim import RESEARCH_LOCK, ResearchClaim, claim_research
from oo_nb.store.store import history_dir


def test_one_claim_at_a_time_and_who_holds_it(tmp_path: Path) -> None:
    doc = tmp_path / "tides.o-o.html"
    doc.write_text("not parsed here")
    first = claim_research(doc, "first run")
    assert isinstance(first, ResearchClaim)
    second = claim_research(doc)
    assert isinstance(second, str) and "first run" in second and "pid" in second
    first.release()
    first.release()  # twice is harmless
    third = claim_research(doc)
    assert isinstance(third, ResearchClaim)
    del third  # dropped: let go
    fourth = claim_research(doc)
    assert isinstance(fourth, ResearchClaim)
    fourth.release()


def test_a_hand_made_holder_line_reaches_no_terminal(tmp_path: Path) -> None:
    import fcntl
    import os

    doc = tmp_path / "tides.o-o.html"
    doc.write_text("not parsed here")
    history_dir(doc).mkdir(parents=True)
    lock = history_dir(doc) / RESEARCH_LOCK
    lock.write_bytes(b"\x1b]0;pwned\x07\x1b[2J\r\nfake line")
    fd = os.open(lock, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by "another run" that wrote that
    try:
        holder = claim_research(doc)
    finally:
        os.close(fd)
    assert isinstance(holder, str) and "fake line" in holder
    assert not any(ord(c) < 32 or 127 <= ord(c) < 160 for c in holder), repr(holder)
