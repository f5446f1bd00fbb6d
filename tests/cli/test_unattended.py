"""The unattended o-o workflow (cron): a proposal awaiting review is not paid for twice, and
`--auto` (or the contract's `review: "auto"`) writes only a clean proposal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import oo_nb
from oo_nb.cli.main import main
from oo_nb.edit.new import NewSpec, create_document
from oo_nb.format.document import Document
from oo_nb.store.proposals import list_proposals
from tests.support.agent_helpers import MARKER, assert_no_secret, copy_doc, start_mock
from tests.support.mock_api import MockAPI
from tests.support.mock_scenarios import research_scenario

ROOT = Path(oo_nb.__file__).resolve().parents[1]


@pytest.fixture
def mock(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    api = start_mock(research_scenario(with_image=False))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
    monkeypatch.delenv("OO_AGENT", raising=False)
    yield api
    api.stop()


def _cron(doc: Path, mock: MockAPI, *args: str) -> subprocess.CompletedProcess[str]:
    """`bash DOC.o-o.html` as cron runs it: no terminal, this project's Python and oo_nb."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OO_", "ANTHROPIC_"))}
    env.update(
        OO_PYTHON=sys.executable,
        PYTHONPATH=str(ROOT),
        ANTHROPIC_API_KEY=MARKER,
        ANTHROPIC_BASE_URL=mock.base_url,
    )
    return subprocess.run(
        ["bash", str(doc), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_three_cron_runs_make_requests_once_and_leave_one_proposal(
    tmp_path: Path, mock: MockAPI
) -> None:
    doc = create_document(NewSpec("Solar storms", "grid"), tmp_path / "lib").path
    assert doc is not None
    before = doc.read_bytes()
    runs = [_cron(doc, mock) for _ in range(3)]
    assert [r.returncode for r in runs] == [0, 0, 0], [r.stderr for r in runs]
    assert "proposal saved for review" in runs[0].stdout
    first = len(mock.requests)
    assert first >= 1 and len(mock.message_requests) >= 1
    for later in runs[1:]:
        assert "proposal awaiting review since " in later.stdout, later.stdout
        assert f"(oo review {doc})" in later.stdout
    assert len(mock.requests) == first  # runs two and three asked the API nothing
    assert [p.name for p in list_proposals(doc)] == ["pending.json"]
    assert doc.read_bytes() == before
    # --force researches anyway; the earlier proposal is set aside, not lost
    forced = _cron(doc, mock, "--force")
    assert forced.returncode == 0, forced.stderr
    assert len(mock.requests) > first
    names = [p.name for p in list_proposals(doc)]
    assert len(names) == 2 and names[0] == "pending.json" and names[1].startswith("pending-")
    assert_no_secret(tmp_path)


def test_cron_with_auto_writes_a_clean_update(tmp_path: Path, mock: MockAPI) -> None:
    doc = create_document(NewSpec("Solar storms", "grid"), tmp_path / "lib").path
    assert doc is not None
    done = _cron(doc, mock, "--auto")
    assert done.returncode == 0, done.stderr + done.stdout
    assert "written: " in done.stdout and Document.read(doc).manifest.version == 1
    assert list_proposals(doc) == []


def _unverified(proposal: dict[str, Any]) -> dict[str, Any]:
    proposal["sources"][0]["url"] = "https://nowhere.example.net/never-seen"
    return proposal


def test_auto_keeps_an_unclean_proposal_for_review_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    api = start_mock(research_scenario(with_image=False, proposal=_unverified))
    try:
        doc = create_document(NewSpec("Solar storms", "grid"), tmp_path).path
        assert doc is not None
        before = doc.read_bytes()
        code = main(["update", str(doc), "--auto", "--base-url", api.base_url])
    finally:
        api.stop()
    out = capsys.readouterr().out
    assert code == 0, out
    assert doc.read_bytes() == before
    assert "not written automatically, kept for review: new source(s) not verified" in out
    assert "proposal saved for review" in out
    assert [p.name for p in list_proposals(doc)] == ["pending.json"]


def test_the_contracts_review_auto_makes_auto_the_default(
    tmp_path: Path, mock: MockAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = create_document(NewSpec("Solar storms", "grid"), tmp_path).path
    assert doc is not None
    assert main(["contract", str(doc), "--set", "review", "auto"]) == 0
    assert f"once you confirm it on this machine: `oo alerts {tmp_path} --trust`" in (
        capsys.readouterr().out
    )
    assert Document.read(doc).contract.review == "auto"
    assert main(["alerts", str(tmp_path), "--trust"]) == 0
    assert 'review: "auto" in 1 document(s)' in capsys.readouterr().out
    assert main(["update", str(doc)]) == 0
    assert "written: " in capsys.readouterr().out
    assert Document.read(doc).manifest.version == 1
    assert main(["contract", str(doc), "--set", "review", "always"]) == 0
    assert main(["update", str(doc), "--force"]) == 0
    assert "proposal saved for review" in capsys.readouterr().out
    assert Document.read(doc).manifest.version == 1


def test_a_contracts_review_auto_is_used_only_once_confirmed_on_this_machine(
    tmp_path: Path, mock: MockAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    """outside attack 2, "note on reach": a library from elsewhere shipping `review: "auto"` in
    its contracts made a plain `oo update-all DIR` write unattended, without the user's --auto."""
    from oo_nb.alerts.trust import record_trust

    lib = tmp_path / "lib"
    docs = [create_document(NewSpec(name, "grid"), lib).path for name in ("Solar storms", "Tides")]
    assert docs[0] is not None and docs[1] is not None
    for doc in docs:
        assert main(["contract", str(doc), "--set", "review", "auto"]) == 0
    before = [d.read_bytes() for d in docs]
    # the library came with its own record, sealed by another machine's key
    (lib / ".oo").mkdir()
    (lib / ".oo" / "alerts.trusted").write_text(
        '{"review_auto": ["solar-storms.o-o.html"], "seal": "0"}'
    )
    capsys.readouterr()
    assert main(["update-all", str(lib), "--no-progress", "--no-alerts"]) == 0
    out = capsys.readouterr().out
    assert "0 written, 2 proposed" in out, out
    assert [d.read_bytes() for d in docs] == before
    why = (
        'kept for review: the contract\'s review: "auto" is not used, so nothing is written '
        "unattended: not confirmed on this machine (alerts.trusted is not sealed by it) "
        f"(`oo alerts {lib} --trust` confirms it)"
    )
    assert out.count(why) == 2, out
    # confirmed: a clean update is written; a document asking it after that is not
    record_trust(lib / ".oo" / "alerts.json")
    late = create_document(NewSpec("Comets", "grid"), lib).path
    assert late is not None
    assert main(["contract", str(late), "--set", "review", "auto"]) == 0
    capsys.readouterr()
    assert main(["update-all", str(lib), "--force", "--no-progress", "--no-alerts"]) == 0
    out = capsys.readouterr().out
    assert "2 written, 1 proposed" in out, out
    assert f"proposed  {late.name}" in out
    assert "unattended: asked after you last confirmed (`oo alerts" in out, out


def test_the_python_api_obeys_an_unconfirmed_review_auto_as_the_command_does(
    tmp_path: Path, mock: MockAPI
) -> None:
    from oo_nb.api.library import Library

    doc = create_document(NewSpec("Solar storms", "grid"), tmp_path).path
    assert doc is not None
    assert main(["contract", str(doc), "--set", "review", "auto"]) == 0
    before = doc.read_bytes()
    done = Library(tmp_path).update_all(progress=False)
    [result] = done.results
    assert result.written is None and result.pending is not None and doc.read_bytes() == before
    assert result.kept_because == [
        'the contract\'s review: "auto" is not used, so nothing is written unattended: not '
        f"confirmed as yours (`oo alerts {tmp_path} --trust` confirms it)"
    ]


def test_a_bad_review_value_is_refused_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = create_document(NewSpec("Solar storms"), tmp_path).path
    assert doc is not None
    before = doc.read_bytes()
    assert main(["contract", str(doc), "--set", "review", "sometimes"]) == 2
    err = capsys.readouterr().err
    assert "review" in err and '"always"' in err and '"auto"' in err and "sometimes" in err
    assert doc.read_bytes() == before
    # a hand-edited contract with a bad value is an error naming the field too
    bad = Document.read(doc).edit_block("oo-contract", lambda c: c.update(review="yes"))
    with pytest.raises(Exception, match=r"review.*must be \"always\" or \"auto\""):
        _ = bad.contract


def _agi_unverified(proposal: dict[str, Any]) -> dict[str, Any]:
    return _unverified(proposal) if "/agi-declared/" in proposal["sources"][0]["url"] else proposal


def test_update_all_auto_reports_written_proposed_and_awaiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    api = start_mock(research_scenario(with_image=False, proposal=_agi_unverified))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
    try:
        for name in ("Solar storms", "Tides"):
            create_document(NewSpec(name), tmp_path)
        agi = copy_doc(tmp_path, "agi-declared.o-o.html")
        before = agi.read_bytes()
        # a proposal that already awaits review: not researched again
        assert main(["update", str(tmp_path / "tides.o-o.html")]) == 0
        requests = len(api.requests)
        assert main(["update-all", str(tmp_path), "--auto", "--no-progress"]) == 0
    finally:
        api.stop()
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert any(line.startswith("written   solar-storms.o-o.html") for line in lines), out
    assert any(line.startswith("proposed  agi-declared.o-o.html") for line in lines), out
    assert any(line.startswith("awaiting  tides.o-o.html") for line in lines), out
    assert "kept for review: new source(s) not verified" in out
    assert out.count("proposal awaiting review since") == 1
    assert len(api.requests) > requests and agi.read_bytes() == before
    assert "1 written, 1 proposed, 1 awaiting review, 0 fresh, 0 failed" in out


@pytest.mark.parametrize("kind", ["text", "fifo", "folder", "dangling link"])
def test_a_damaged_proposal_awaiting_review_says_how_to_go_on(
    tmp_path: Path, mock: MockAPI, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """A pending.json nobody can review (damaged by hand or by a disk; issue 28, item 7: a FIFO,
    a folder, a dangling link) must not hold the document back for ever without a word, nor
    count as "no proposal" (a paid run started): the run says it is damaged and how to go on,
    as `oo review --list` does."""
    from tests.support.attacks_data import plant_pending

    doc = create_document(NewSpec("Solar storms", "grid"), tmp_path / "lib").path
    assert doc is not None
    plant_pending(doc, kind)
    assert main(["update", str(doc)]) == 0
    out = capsys.readouterr().out
    assert "damaged" in out and "--discard pending.json" in out and "--force" in out
    assert mock.requests == []
    assert main(["review", str(doc), "--list"]) == 0
    assert "pending.json: damaged" in capsys.readouterr().out
    # the advice given works, whatever is at that name (the link itself, never what it names)
    assert main(["review", str(doc), "--discard", "pending.json"]) == 0
    assert not os.path.lexists(doc.parent / ".oo-history" / doc.name / "pending.json")


def test_a_folder_holding_files_at_the_proposals_name_is_not_emptied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.attacks_data import plant_pending

    doc = create_document(NewSpec("Solar storms", "grid"), tmp_path / "lib").path
    assert doc is not None
    pending = plant_pending(doc, "folder")
    (pending / "keep.txt").write_text("mine")
    assert main(["review", str(doc), "--discard", "pending.json"]) != 0
    assert "a folder that holds files" in capsys.readouterr().err
    assert (pending / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize("kind", ["fifo", "folder", "dangling link"])
def test_oo_review_refuses_a_pending_json_that_is_not_a_file(tmp_path: Path, kind: str) -> None:
    """`oo review` said "no saved proposal" (a dangling link) or blocked for ever reading a FIFO."""
    from tests.support.attacks_data import plant_pending

    doc = create_document(NewSpec("Solar storms", "grid"), tmp_path / "lib").path
    assert doc is not None
    plant_pending(doc, kind)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OO_")}
    done = subprocess.run(
        [sys.executable, "-m", "oo_nb", "review", str(doc), "--accept-all"],
        env={**env, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "saved proposal is damaged: not a regular file" in done.stderr


def test_a_stale_proposal_awaiting_review_does_not_send_the_user_in_a_circle(
    tmp_path: Path, mock: MockAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    """The document was edited after its proposal was made: `oo review` refuses it, and told
    the user to "Run `oo update` again", which only says the proposal awaits review (`oo
    review DOC`). Every way it names must lead somewhere: `oo update --force` or `--force`."""
    doc = create_document(NewSpec("Solar storms", "grid"), tmp_path / "lib").path
    assert doc is not None
    assert main(["update", str(doc)]) == 0
    assert main(["contract", str(doc), "--set", "budget", "2.5"]) == 0  # the document changes
    capsys.readouterr()
    assert main(["review", str(doc), "--accept-all"]) == 1
    said = capsys.readouterr().out
    assert "changed since this proposal was made" in said
    assert "`oo update` again" not in said and f"oo update {doc} --force" in said, said
    assert main(["update", str(doc)]) == 0
    assert (
        "not researched again" in capsys.readouterr().out
    )  # hence plain `oo update` is no way out


def test_alerts_show_and_trust_name_the_documents_asking_review_auto(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from oo_nb.store.library_trust import review_auto_problem

    monkeypatch.setenv("OO_ALERT_WEBHOOK", "http://127.0.0.1:9/hook")  # (the template's channel)
    doc = create_document(NewSpec("Solar storms", "grid"), tmp_path).path
    assert doc is not None
    assert main(["contract", str(doc), "--set", "review", "auto"]) == 0
    # --init confirms the alerts it writes, not what it does not show
    assert main(["alerts", str(tmp_path), "--init"]) == 0
    assert review_auto_problem(doc) is not None
    capsys.readouterr()
    assert main(["alerts", str(tmp_path), "--show"]) == 1
    out = capsys.readouterr().out
    assert 'review: "auto" NOT USED in 1 document(s), not confirmed (--trust): solar-storms' in out
    assert main(["alerts", str(tmp_path), "--trust"]) == 0
    out = capsys.readouterr().out
    assert 'review: "auto" in 1 document(s) (a clean update written without review): ' in out
    assert review_auto_problem(doc) is None
    assert main(["alerts", str(tmp_path), "--show"]) == 0
    assert "NOT USED" not in capsys.readouterr().out
    # a library whose only setting from elsewhere is a contract's review: auto
    other = create_document(NewSpec("Tides", "grid"), tmp_path / "other").path
    assert other is not None
    assert main(["contract", str(other), "--set", "review", "auto"]) == 0
    assert main(["alerts", str(tmp_path / "other"), "--trust"]) == 0
    assert "(no alerts.json)" in capsys.readouterr().out
    assert review_auto_problem(other) is None
