"""Issue 28, item 12: an accepted update that reports a sentinel event as occurred is shown as
occurred by `oo show` (text and JSON), the library and the index badge, also on an original o-o
sentinel document (whose contract is not restructured: the report lives in its changelog entry);
and its evidence cites the source by the id it got in the cache, not the proposal's."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.pricing import UsageFigures
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.cli.main import main
from oo_nb.edit.new import NewSpec, create_document
from oo_nb.format.document import Document
from oo_nb.library.index_page import write_index
from oo_nb.store.store import write_document
from tests.conftest import CORPUS

URL = "https://news.example.com/declared"
ORIGINAL = "agi-declared.o-o.html"


def _accept_occurred(path: Path) -> None:
    """An update reporting the event as occurred, citing a new source as [s901], written as
    `oo review --accept-all` writes it."""
    doc = Document.read(path)
    raw = {
        "summary": "The event happened.",
        "sections": [{"id": "declared", "title": "Declared", "html": "<p>It happened [s901].</p>"}],
        "sources": [{"id": "s901", "url": URL, "title": "Declared", "tier": "news"}],
        "sentinel": {"status": "occurred", "evidence": "Declared on Monday [s901]."},
    }
    run = RunInfo(
        backend="anthropic", model="claude-test", usage=UsageFigures(), cost_usd=0.01,
        seen_urls={URL},
    )  # fmt: skip
    cand = build_candidate(
        doc, validate_proposal(raw), run, today=date(2026, 12, 4),
        now=datetime(2026, 12, 4, 12, tzinfo=UTC),
    )  # fmt: skip
    write_document(cand.document, expected=path.read_bytes(), action="update")


def _new_id(path: Path) -> str:
    sources = Document.read(path).block_json("oo-source-cache")["sources"]
    (new,) = [s["id"] for s in sources if s.get("url") == URL]
    assert new != "s901"
    return str(new)


@pytest.fixture(params=["original", "structured"])
def sentinel_doc(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    if request.param == "original":
        lib.mkdir()
        shutil.copyfile(CORPUS / ORIGINAL, lib / ORIGINAL)
        return lib / ORIGINAL
    return create_document(NewSpec("A watch", "x", sentinel="it happens"), lib).path  # type: ignore[return-value]


def test_oo_show_says_occurred_with_the_evidence_as_cited(
    sentinel_doc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _accept_occurred(sentinel_doc)
    new = _new_id(sentinel_doc)
    assert main(["show", str(sentinel_doc)]) == 0
    assert "sentinel  status occurred" in capsys.readouterr().out
    assert main(["show", "--json", str(sentinel_doc)]) == 0
    shown = json.loads(capsys.readouterr().out)["sentinel"]
    assert shown["status"] == "occurred"
    assert shown["evidence"] == f"Declared on Monday [{new}]."


def test_the_library_and_the_index_badge_say_occurred(
    sentinel_doc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _accept_occurred(sentinel_doc)
    assert main(["library", str(sentinel_doc.parent), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["sentinel_status"] for r in rows] == ["occurred"]
    write_index(sentinel_doc.parent)
    page = (sentinel_doc.parent / "index.o-o.html").read_text()
    assert 'card-badge sentinel occurred">Sentinel: occurred' in page


def test_before_any_report_the_status_is_the_contracts(tmp_path: Path) -> None:
    from oo_nb.format.sentinel_state import current_sentinel

    doc = Document.read(CORPUS / ORIGINAL)
    assert current_sentinel(doc.contract.sentinel, doc.changelog) == doc.contract.sentinel
