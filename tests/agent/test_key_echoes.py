"""The API key in the model's output is never written into a document or a saved proposal.

The model repeats the key (whole, 16 characters of it, or in other letter case) into every
field of its proposal; the candidate is written with ``--yes`` or saved for review, and every
place of the result is read back: the key is ``[redacted]`` everywhere, the document is still
valid, and the run says a secret was redacted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oo_nb.agent.pending import open_review
from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.store.store import history_dir
from tests.support.agent_helpers import TODAY, copy_doc
from tests.support.key_echoes import PLACES, VARIANTS, echo_found, inject, leaking_places
from tests.support.leaks import marker_key
from tests.support.mock_api import PNG_CHART, MockAPI
from tests.support.mock_scenarios import research_scenario


@pytest.mark.parametrize("yes", [True, False], ids=["--yes", "saved for review"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_key_echoed_by_the_model_is_redacted_in_every_place(
    variant: str, yes: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = marker_key()
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    echo = VARIANTS[variant](key)
    mock = MockAPI(
        research_scenario(image_url="https://images.example.com/c.png", proposal=inject(echo)),
        api_key=key,
    ).start()
    path = copy_doc(tmp_path)
    try:
        opts = UpdateOptions(
            force=True,
            agent="anthropic",
            base_url=mock.base_url,
            fetch_image=lambda url: PNG_CHART,
            today=TODAY,
        )
        result = write_result(prepare_update(path, opts), yes=yes)
    finally:
        mock.stop()
    if yes:
        assert result.written == path
        doc = Document.read(path)
    else:
        assert result.pending is not None and path.read_bytes() == result.original
        # pending.json holds the proposal's data: the review rebuilds the candidate from it
        doc = open_review(path).candidate
    assert leaking_places(doc, key) == []
    # the echo reached every place, replaced
    shown = doc.article_html + "".join(doc.block_text(b) for b in doc.blocks)
    assert shown.count("[redacted]") >= len(PLACES)
    assert not echo_found(path.read_text("utf-8"), key)
    pending = history_dir(path) / PENDING_PROPOSAL
    if pending.exists():
        assert not echo_found(pending.read_text("utf-8"), key)
        record = json.loads(pending.read_text("utf-8"))
        assert any("replaced by [redacted]" in w for w in record["run"]["warnings"])
    # still a valid document: every block reads, the check finds no error
    for name in doc.blocks:
        doc.block_json(name)
    _ = doc.manifest, doc.contract, doc.source_cache, doc.changelog, doc.article
    copy = tmp_path / "written-copy.o-o.html"
    copy.write_bytes(doc.to_bytes())
    assert not [f for f in check_path(copy) if f.severity == "error"]
    assert any("replaced by [redacted]" in w for w in result.warnings), result.warnings


def test_a_proposal_saved_with_the_key_is_cleaned_when_review_writes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pending.json saved before redaction (or by hand) still never puts the key in the file."""
    import hashlib

    from oo_nb.cli.main import main

    key = marker_key()
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    path = copy_doc(tmp_path)
    doc = Document.read(path)
    echo = VARIANTS["partial"](key)
    html = doc.article_html.replace("</p>", f" The key is {echo.upper()}.</p>", 1)
    candidate = doc.with_article(html)
    folder = history_dir(path)
    folder.mkdir(parents=True)
    record = {
        "base_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "created": "2026-11-29T00:00:00Z",
        "run": {"cost_usd": 0.1},
        "candidate": candidate.text,
    }
    (folder / PENDING_PROPOSAL).write_text(json.dumps(record), "utf-8")
    assert main(["review", str(path), "--accept-all"]) == 0
    capsys.readouterr()
    written = path.read_text("utf-8")
    assert "The key is [redacted]." in written and not echo_found(written, key)


def test_a_recorded_cassette_holds_no_echo_of_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = marker_key()
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    echo = VARIANTS["partial"](key).swapcase()
    mock = MockAPI(research_scenario(with_image=False, proposal=inject(echo)), api_key=key).start()
    cassette = tmp_path / "run.cassette.json"
    try:
        opts = UpdateOptions(
            force=True, agent="anthropic", base_url=mock.base_url, record=cassette, today=TODAY
        )
        result = prepare_update(copy_doc(tmp_path), opts)
    finally:
        mock.stop()
    assert result.status == "proposed" and cassette.is_file()
    text = cassette.read_text("utf-8")
    assert "[redacted]" in text and not echo_found(text, key)
    json.loads(text)  # still a cassette
