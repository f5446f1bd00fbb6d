"""Concurrent updates of one document keep every paid proposal: N parallel ``oo update --force``
(no ``--yes``) leave N saved proposals (the current one and N-1 set aside under names of their
own), or a run says plainly that its proposal was not saved."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.store import store
from oo_nb.store.proposals import list_proposals
from tests.support.agent_helpers import MARKER, copy_doc
from tests.support.concurrent_updates import concurrent_updates


# 12 runs in threads of this process; 8 in processes of their own (each imports the SDK: seconds)
@pytest.mark.parametrize(("processes", "n"), [(True, 8), (False, 12)], ids=["processes", "threads"])
def test_parallel_forced_updates_of_one_document_research_it_once(
    processes: bool, n: int, tmp_path: Path
) -> None:
    """--force researches a fresh document and sets a proposal aside; it never pays again for
    research another run is doing now: one run researches and saves, the others send nothing
    and say so."""
    path = copy_doc(tmp_path)
    before = path.read_bytes()
    outcome = concurrent_updates(path, n, key=MARKER, processes=processes)
    assert outcome.unaccounted == 0, outcome.outputs
    assert outcome.saved_said == 1 and outcome.busy_said == n - 1, outcome.outputs
    assert outcome.files == 1  # the one proposal, saved
    folder = store.history_dir(path)
    listed = list_proposals(path)
    assert len(listed) == 1 and not any(p.damaged for p in listed)
    assert path.read_bytes() == before
    assert not list(folder.glob(".*.tmp"))


def test_a_proposal_that_cannot_be_saved_is_said_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from oo_nb.cli.main import main
    from tests.support.agent_helpers import start_mock
    from tests.support.mock_scenarios import research_scenario

    path = copy_doc(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    monkeypatch.setattr(store, "LOCK_TIMEOUT_S", 0.2)
    mock = start_mock(research_scenario(with_image=False))
    held = threading.Event()
    release = threading.Event()

    def hold_the_lock() -> None:  # another writer holds the document for the whole run
        with store.document_lock(path, "a long sync"):
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    held.wait(10)
    try:
        code = main(["update", str(path), "--force", "--base-url", mock.base_url])
    finally:
        release.set()
        holder.join()
        mock.stop()
    out = capsys.readouterr().out
    assert code == 1
    assert "proposal NOT saved: locked by" in out and "proposal saved for review" not in out
    assert "the proposal was NOT saved" in out and "is lost" in out
    assert not (store.history_dir(path) / PENDING_PROPOSAL).exists()


def test_update_all_names_a_proposal_that_was_not_saved(tmp_path: Path) -> None:
    from oo_nb.agent.run import UpdateResult
    from oo_nb.agent.types import LibraryUpdate
    from oo_nb.cli.update_all import UpdateAllOutcome

    result = UpdateResult(
        tmp_path / "a.o-o.html", "proposed", "a.o-o.html: proposal v2", b"", "anthropic", "m", 1.0
    )
    result.not_saved = "locked by pid 1"
    outcome = UpdateAllOutcome(LibraryUpdate(results=[result]))
    assert outcome.exit_code == 1 and "a.o-o.html: proposal v2 → NOT saved" in outcome.lines()[0]


def test_two_cron_runs_at_once_research_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs of `oo update DOC` (no --force) started together, as overlapping cron jobs are:
    the second must not pay for the same research while the first is still at it. It says the
    document is being researched by another run, sends nothing, and one proposal is left."""
    import contextlib
    import io

    from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
    from oo_nb.cli.main import main
    from tests.support.agent_helpers import start_mock
    from tests.support.mock_scenarios import research_scenario

    path = copy_doc(tmp_path, "ai-model-landscape.o-o.html")
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    mock = start_mock(research_scenario(with_image=False), latency=0.4)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    outputs: list[str] = []

    def cron() -> None:  # what `oo update DOC` does (stdout is one per process, not per thread)
        result = write_result(prepare_update(path, UpdateOptions()), yes=False)
        outputs.append(
            f"{result.message}\n" + ("proposal saved for review" if result.pending else "")
        )

    try:
        runs = [threading.Thread(target=cron) for _ in range(2)]
        for t in runs:
            t.start()
        for t in runs:
            t.join(60)
    finally:
        mock.stop()
    said = "\n".join(outputs)
    assert len(outputs) == 2, said
    assert sum("being researched by another run" in o for o in outputs) == 1, said
    assert sum("proposal saved for review" in o for o in outputs) == 1, said
    assert len(list_proposals(path)) == 1
    # a run after both: the proposal awaits review, and the claim is gone with its run
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["update", str(path)]) == 0
    assert "proposal awaiting review since" in out.getvalue()


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "force"])
def test_update_all_leaves_a_document_another_run_is_researching(
    force: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`update-all` (with --force too: a cron line with it) while a run researches one of its
    documents: that document is reported as being researched (no request for it, not paid
    twice), the others are researched; no claim outlives the run."""
    import contextlib
    import io

    from oo_nb.cli.main import main
    from oo_nb.store.research_claim import ResearchClaim, claim_research
    from tests.support.agent_helpers import start_mock
    from tests.support.mock_scenarios import research_scenario

    busy = copy_doc(tmp_path / "lib", "ai-model-landscape.o-o.html")
    other = copy_doc(tmp_path / "lib", "yc-w26-batch.o-o.html")
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    mock = start_mock(research_scenario(with_image=False))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    held = claim_research(busy, "a test's research")
    assert isinstance(held, ResearchClaim)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            main(["update-all", str(tmp_path / "lib"), "--concurrency", "1", *force])
    finally:
        held.release()
        mock.stop()
    said = out.getvalue()
    assert "being researched by another run (pid" in said and "a test's research" in said, said
    assert list_proposals(busy) == [] and len(list_proposals(other)) == 1, said
    assert "--force" not in said.split("being researched by another run")[1].split("\n")[0]
    for doc in (busy, other):  # every claim let go: a new claim is had at once
        again = claim_research(doc)
        assert isinstance(again, ResearchClaim)
        again.release()
