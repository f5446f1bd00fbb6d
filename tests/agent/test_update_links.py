"""Updates of a library whose history holds a planted link: the document is refused, naming the
link, before any research is paid for; nothing outside the library is written; the other
documents go on. And a batch that cannot run claims no document's research."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.many import update_library
from oo_nb.agent.run import UpdateOptions
from oo_nb.cli.main import main
from oo_nb.store.research_claim import RESEARCH_LOCK
from tests.support.agent_helpers import DOCS, copy_doc
from tests.support.attacks_data import LINK_OUT_COMMANDS, link_out_attack
from tests.support.mock_api import MockAPI

VICTIM = b"my important notes\n"


def _plant(lib: Path, tmp_path: Path, name: str) -> tuple[Path, Path]:
    """``lib/.oo-history/NAME/research.lock`` linked to a file outside the library."""
    victim = tmp_path / "home" / "important.txt"
    victim.parent.mkdir(exist_ok=True)
    victim.write_bytes(VICTIM)
    lock = lib / ".oo-history" / name / RESEARCH_LOCK
    lock.parent.mkdir(parents=True)
    lock.symlink_to(victim)
    return lock, victim


def test_update_of_a_document_with_a_linked_research_lock_is_refused(
    env: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = copy_doc(tmp_path / "lib")
    lock, victim = _plant(tmp_path / "lib", tmp_path, doc.name)
    before = doc.read_bytes()
    assert main(["update", str(doc)]) != 0
    err = capsys.readouterr().err
    assert f"{lock} is a symbolic link; " in err, err
    assert env.requests == []  # no research paid for
    assert victim.read_bytes() == VICTIM and doc.read_bytes() == before


@pytest.mark.parametrize("batch", [False, True], ids=["concurrent", "batch"])
def test_update_all_refuses_that_document_and_updates_the_others(
    env: MockAPI, tmp_path: Path, batch: bool
) -> None:
    lib = tmp_path / "lib"
    paths = [copy_doc(lib, name) for name in DOCS[:2]]
    lock, victim = _plant(lib, tmp_path, paths[0].name)
    opts = UpdateOptions(base_url=env.base_url)
    outcome = update_library(lib, opts, batch=batch, progress=False, poll_interval=0.01)
    assert list(outcome.failures) == [paths[0]]
    assert f"{lock} is a symbolic link; " in outcome.failures[paths[0]]
    assert [r.path for r in outcome.results] == [paths[1]]
    assert outcome.results[0].status == "proposed"
    assert victim.read_bytes() == VICTIM
    if batch:  # the refused document was not sent: one request in the one batch
        (create,) = [r for r in env.requests if r.path == "/v1/messages/batches"]
        assert len(create.body["requests"]) == 1 and env.message_requests == []
    else:
        assert len(env.message_requests) == 1


def test_a_batch_that_cannot_run_claims_no_research(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: every document's research was claimed (lock files written, other runs turned
    away) before the batch found it could not run with this agent."""
    import oo_nb.store.research_claim as research_claim

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    claimed: list[Path] = []
    real = research_claim.claim_research

    def spy(path: Path, action: str = "research") -> Any:
        claimed.append(path)
        return real(path, action)

    monkeypatch.setattr(research_claim, "claim_research", spy)
    doc = copy_doc(tmp_path)
    with pytest.raises(Exception, match="--batch needs the anthropic agent"):
        update_library(tmp_path, UpdateOptions(agent="replay"), batch=True, progress=False)
    assert claimed == []
    assert not (tmp_path / ".oo-history" / doc.name / RESEARCH_LOCK).exists()


def test_a_forced_update_with_a_linked_history_folder_is_refused_before_research(
    env: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--force takes no research claim, so the research was paid for and only the save was
    refused; the history folder is now checked before the first request."""
    lib = tmp_path / "lib"
    doc = copy_doc(lib)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (lib / ".oo-history").symlink_to(elsewhere)
    before = doc.read_bytes()
    assert main(["update", str(doc), "--force"]) != 0
    err = capsys.readouterr().err
    assert f"{lib / '.oo-history'} is a symbolic link; " in err, err
    assert env.requests == []
    assert list(elsewhere.iterdir()) == [] and doc.read_bytes() == before


@pytest.mark.parametrize("command", list(LINK_OUT_COMMANDS))
def test_a_document_linked_outside_the_library_is_refused(tmp_path: Path, command: str) -> None:
    """Issue 28, item 4: ``lib/linked.o-o.html`` -> a document outside ``lib``: refused as an
    error naming the link, before any research; nothing outside written (no ``.oo-history``
    beside it); update-all and sync still do the other document."""
    code, said, changed, requests = link_out_attack(tmp_path, command)
    assert not changed
    assert code != 0 and "linked.o-o.html" in said and "outside the folder" in said
    assert requests == (1 if command == "update-all" else 0)


def test_a_link_inside_its_folder_is_still_followed(tmp_path: Path) -> None:
    from oo_nb.edit.new import NewSpec, create_document

    create_document(NewSpec("Real", "x"), tmp_path)
    (tmp_path / "other-name.o-o.html").symlink_to("real.o-o.html")
    assert main(["contract", str(tmp_path / "other-name.o-o.html"), "--set", "budget", "3"]) == 0
    assert (tmp_path / "other-name.o-o.html").is_symlink()
    assert '"max_cost_usd": 3.0' in (tmp_path / "real.o-o.html").read_text()
