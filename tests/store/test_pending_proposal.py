"""The saved proposal that ``oo review`` reads back: what it carries (the candidate for this
document, the run, when it was made), when it is stale, and what a damaged one says."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from oo_nb.errors import FormatError, NotFound
from oo_nb.format.document import Document
from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.store import store

DOC = "yc-w26-batch.o-o.html"


def _candidate(p: Path) -> Document:
    return Document.read(p).edit_block("oo-manifest", lambda m: m.update(version=2))


def test_a_saved_proposal_comes_back_with_its_run_and_time(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    run = {"cost_usd": 0.1, "model": "m", "note": "Zürich — naïve"}
    saved = store.save_pending(p, _candidate(p), run, p.read_bytes())
    assert saved == store.history_dir(p) / PENDING_PROPOSAL
    assert stat.S_IMODE(saved.stat().st_mode) == 0o644
    pending = store.load_pending(p)
    assert pending.run == run and not pending.stale
    assert pending.candidate.path == p  # accepting it writes this document
    created = datetime.fromisoformat(pending.created)
    assert created.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - created) < timedelta(minutes=5)


def test_a_proposal_for_a_deleted_document_is_stale(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    store.save_pending(p, _candidate(p), {}, p.read_bytes())
    p.unlink()
    assert store.load_pending(p).stale


def test_missing_run_or_time_read_as_empty(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    target = store.save_pending(p, _candidate(p), {}, p.read_bytes())
    record = json.loads(target.read_text(encoding="utf-8"))
    record.update(run=["not", "a", "dict"], created=12)
    target.write_text(json.dumps(record), encoding="utf-8")
    pending = store.load_pending(p)
    assert pending.created == "" and not pending.stale
    # a hand-edited file vouches for nothing (issue 28 item 8): no URL seen, the cost unknown
    assert pending.run["seen_urls"] == [] and pending.run["cost_usd"] is None


def test_no_saved_proposal_names_the_document(corpus_copy: Path) -> None:
    p = corpus_copy / DOC
    with pytest.raises(NotFound, match=r"run `doc\.update\(\)` first") as info:
        store.load_pending(p)  # from Python: the advice in Python (oo_nb.skin)
    assert info.value.file == str(p)
    store.discard_pending(p)  # discarding nothing is fine


def _damaged(record: object) -> bytes:
    return json.dumps(record).encode()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{not json", "Expecting property name"),
        (b"\xff\xfe", "can't decode byte 0xff"),
        (_damaged({"candidate": "x", "base_sha256": 7}), "'base_sha256' must be a string"),
        (_damaged({"candidate": "<p>no heredoc</p>", "base_sha256": "0" * 64}), "OO_HTML"),
    ],
)
def test_a_damaged_proposal_names_its_file_and_the_reason(
    corpus_copy: Path, content: bytes, reason: str
) -> None:
    p = corpus_copy / DOC
    target = store.save_pending(p, _candidate(p), {}, p.read_bytes())
    target.write_bytes(content)
    with pytest.raises(FormatError, match="saved proposal is damaged") as info:
        store.load_pending(p)
    assert info.value.file == str(target)
    assert reason in info.value.message
    assert str(p) not in info.value.message  # the damage is in the proposal file, named above
