"""`oo update-all`: stale documents concurrently, failures isolated, and the Message Batches path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.many import find_documents, update_library
from oo_nb.agent.run import UpdateOptions
from oo_nb.cli.main import main
from oo_nb.format.document import Document
from oo_nb.skin import speaking
from oo_nb.store import clock
from oo_nb.store.store import load_pending
from tests.support.agent_helpers import DOCS, MARKER, assert_no_secret, copy_doc, start_mock
from tests.support.mock_api import MockAPI, MockRequest, Reply, error_reply, message
from tests.support.mock_scenarios import research_scenario, text


def library(folder: Path) -> list[Path]:
    paths = [copy_doc(folder, name) for name in [*DOCS, "index.o-o.html"]]
    nested = folder / "sub" / "deeper"
    paths.append(copy_doc(nested, "yc-w26-batch.o-o.html"))
    (folder / ".oo-history").mkdir(exist_ok=True)
    return paths


def test_find_documents_recurses_and_skips_history(tmp_path: Path) -> None:
    library(tmp_path)
    copy_doc(tmp_path / ".oo-history" / "x", "agi-declared.o-o.html")
    found = [p.relative_to(tmp_path).as_posix() for p in find_documents(tmp_path)]
    assert "sub/deeper/yc-w26-batch.o-o.html" in found and "index.o-o.html" in found
    assert not any(f.startswith(".oo-history") for f in found)


def test_stale_documents_updated_concurrently_fresh_ones_skipped(
    env: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = library(tmp_path)
    fresh = paths[0]
    fresh.write_bytes(
        Document.read(fresh)
        .edit_block("oo-manifest", lambda m: m.update(as_of=clock.today().isoformat()))
        .to_bytes()
    )
    before = {p: p.read_bytes() for p in paths}
    assert main(["update-all", str(tmp_path), "--concurrency", "3", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "0 written, 4 proposed, 0 awaiting review, 1 fresh, 0 failed" in out
    assert len(env.message_requests) == 4
    assert all(p.read_bytes() == before[p] for p in paths)  # no --yes: nothing written
    assert load_pending(paths[1]).run["cost_usd"] > 0
    versions = {p: Document.read(p).manifest.version for p in paths if p.name != "index.o-o.html"}
    # the proposals await review: not researched (nor paid for) again, even with --yes
    assert main(["update-all", str(tmp_path), "--yes", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "0 written, 0 proposed, 4 awaiting review, 1 fresh, 0 failed" in out, out
    assert out.count("proposal awaiting review since ") == 4 and len(env.message_requests) == 4
    assert all(p.read_bytes() == before[p] for p in paths)
    # --force researches again; --yes writes, and each line says "written"
    assert main(["update-all", str(tmp_path), "--yes", "--force", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "5 written, 0 proposed, 0 awaiting review, 0 fresh, 0 failed" in out, out
    assert out.count("\nwritten   ") + out.startswith("written   ") == 5
    for p, version in versions.items():
        assert Document.read(p).manifest.version == version + 1
        assert Document.read(p).manifest.as_of == clock.today()
    assert_no_secret(tmp_path)


def test_one_failure_does_not_stop_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    research = research_scenario(with_image=False)

    def responder(req: MockRequest) -> Reply:
        if "Y Combinator" in str(req.body["messages"][0]["content"])[:400]:
            return Reply(message=message([text("I refuse")], "refusal"))
        return research(req)

    mock = start_mock(responder)
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    try:
        paths = library(tmp_path)
        before = {p: p.read_bytes() for p in paths}
        outcome = update_library(
            tmp_path,
            UpdateOptions(force=True, base_url=mock.base_url),
            concurrency=4,
            yes=True,
            progress=False,
        )
    finally:
        mock.stop()
    failed = {p.name for p in outcome.failures}
    assert failed == {"yc-w26-batch.o-o.html"} and len(outcome.failures) == 2
    assert all("declined" in m and "cost so far" in m for m in outcome.failures.values())
    assert all(p.read_bytes() == before[p] for p in paths if p.name in failed)
    assert len(outcome.by_status("proposed")) == 3 and all(
        r.written for r in outcome.by_status("proposed")
    )
    assert outcome.cost_usd > sum(r.cost_usd for r in outcome.results)


def test_research_steps_reported_per_document(
    env: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [copy_doc(tmp_path, name) for name in DOCS[:2]]
    steps: list[str] = []
    outcome = update_library(
        tmp_path, UpdateOptions(force=True, progress=steps.append), concurrency=2, progress=True
    )
    assert len(outcome.by_status("proposed")) == 2
    for path in paths:
        name = path.name.removesuffix(".o-o.html")
        mine = [s for s in steps if s.startswith(name + ": ")]
        assert any("search" in s.lower() for s in mine), steps
        assert any("proposal" in s.lower() for s in mine), steps
    # the bar (tqdm writes to stderr) shows the latest step, named by document
    assert any(f"{p.name.removesuffix('.o-o.html')}: " in capsys.readouterr().err for p in paths)


def test_batch_mode_polls_and_uses_batch_prices(
    env: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env.batch_polls = 2
    paths = library(tmp_path)
    assert (
        main(
            [
                "update-all",
                str(tmp_path),
                "--force",
                "--batch",
                "--poll",
                "0.01",
                "--yes",
                "--no-progress",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "5 written, 0 proposed" in out and "batch msgbatch_mock_" in out
    assert env.message_requests == []  # everything went through the batch endpoints
    assert [r.path for r in env.requests].count("/v1/messages/batches") == 1
    latest = Document.read(paths[0]).changelog.latest
    assert latest is not None and latest.extra["cost_usd"] > 0


def test_batch_needs_more_rounds_for_pause_turn(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    with MockAPI(
        research_scenario(with_image=False, pause_after_search=True), api_key=MARKER
    ) as mock:
        copy_doc(tmp_path)
        outcome = update_library(
            tmp_path,
            UpdateOptions(force=True, base_url=mock.base_url),
            batch=True,
            progress=False,
            poll_interval=0.01,
        )
        creates = [r for r in mock.requests if r.path == "/v1/messages/batches"]
    assert len(creates) == 2 and not outcome.failures
    (result,) = outcome.results
    assert result.run is not None and result.run.batch and result.run.requests == 2


def test_batch_errored_results_are_failures(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    with MockAPI(lambda req: error_reply(529, "overloaded_error", "busy"), api_key=MARKER) as mock:
        copy_doc(tmp_path)
        outcome = update_library(
            tmp_path,
            UpdateOptions(force=True, base_url=mock.base_url),
            batch=True,
            progress=False,
            poll_interval=0.01,
        )
    (message_,) = outcome.failures.values()
    assert (
        "batch request errored (overloaded_error: busy)" in message_
        and "cost so far $0.0000" in message_
    )


def test_batch_refuses_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    copy_doc(tmp_path)
    with pytest.raises(Exception, match="--batch needs the anthropic agent"):
        update_library(
            tmp_path, UpdateOptions(force=True, agent="replay"), batch=True, progress=False
        )


def _cancels(mock: MockAPI) -> list[MockRequest]:
    return [r for r in mock.requests if r.method == "POST" and r.path.endswith("/cancel")]


def test_batch_past_its_deadline_is_cancelled_and_its_bound_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Regression: at the deadline the batch was left running (and billing) and the failures
    reported no cost."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    with MockAPI(research_scenario(with_image=False), api_key=MARKER, batch_polls=10**9) as mock:
        paths = [copy_doc(tmp_path, name) for name in DOCS[:2]]
        before = {p: p.read_bytes() for p in paths}
        outcome = update_library(
            tmp_path,
            UpdateOptions(force=True, base_url=mock.base_url),
            batch=True,
            progress=False,
            poll_interval=0.01,
            max_wait_s=0.05,
            yes=True,
        )
        (cancel,) = _cancels(mock)
        (record,) = mock.batches.values()
    assert cancel.path == f"/v1/messages/batches/{record['id']}/cancel"
    assert record["processing_status"] == "canceling" and record["cancel_initiated_at"]
    assert set(outcome.failures) == set(paths) and not outcome.results
    for path, failure in outcome.failures.items():
        assert (
            f"batch {record['id']} did not end within 0 s; batch {record['id']} was cancelled"
            in failure
        )
        bound = float(failure.split("may still be billed, up to $")[1].split(" ")[0])
        assert bound > 0 and outcome.failure_costs[path] == pytest.approx(bound, abs=1e-4)
        assert "cost so far $0.0000" in failure
    assert outcome.cost_usd >= sum(outcome.failure_costs.values()) > 0
    assert all(p.read_bytes() == before[p] for p in paths)


def test_batch_poll_failure_cancels_the_batch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    fault = error_reply(403, "permission_error", "not allowed to read batches")
    with MockAPI(
        research_scenario(with_image=False),
        api_key=MARKER,
        batch_polls=0,
        batch_retrieve_error=fault,
    ) as mock:
        copy_doc(tmp_path)
        outcome = update_library(
            tmp_path,
            UpdateOptions(force=True, base_url=mock.base_url),
            batch=True,
            progress=False,
            poll_interval=0.01,
        )
        assert len(_cancels(mock)) == 1
    (failure,) = outcome.failures.values()
    assert "API error 403 (permission_error): not allowed to read batches" in failure
    assert (
        "was cancelled, but its request for this document may still be billed, up to $" in failure
    )
    assert outcome.cost_usd > 0


def test_batch_interrupted_while_polling_is_cancelled(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import oo_nb.agent.batch as batch_module

    def interrupt(_seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    monkeypatch.setattr(batch_module.time, "sleep", interrupt)
    with MockAPI(research_scenario(with_image=False), api_key=MARKER, batch_polls=10**9) as mock:
        copy_doc(tmp_path)
        with pytest.raises(KeyboardInterrupt):
            update_library(
                tmp_path,
                UpdateOptions(force=True, base_url=mock.base_url),
                batch=True,
                progress=False,
                poll_interval=0.01,
            )
        assert len(_cancels(mock)) == 1


def test_mock_cancel_endpoint_ends_the_batch_with_canceled_results() -> None:
    import anthropic

    with MockAPI(research_scenario(with_image=False), api_key=MARKER, batch_polls=10**9) as mock:
        mock.batch_done_before_cancel = 1
        client = anthropic.Anthropic(api_key=MARKER, base_url=mock.base_url, max_retries=0)
        params = {
            "model": "claude-sonnet-5-5",
            "max_tokens": 100,
            "messages": [{"role": "user", "content": "hi"}],
        }
        batch = client.messages.batches.create(
            requests=[{"custom_id": f"r{i}", "params": params} for i in range(3)]
        )  # type: ignore[list-item]
        cancelled = client.messages.batches.cancel(batch.id)
        assert (
            cancelled.processing_status == "canceling" and cancelled.cancel_initiated_at is not None
        )
        ended = client.messages.batches.retrieve(batch.id)
        assert ended.processing_status == "ended" and ended.request_counts.canceled == 2
        kinds = {r.custom_id: r.result.type for r in client.messages.batches.results(batch.id)}
        assert kinds == {"r0": "succeeded", "r1": "canceled", "r2": "canceled"}
        assert (
            client.messages.batches.cancel(batch.id).processing_status == "ended"
        )  # a no-op once ended
        with pytest.raises(anthropic.NotFoundError):
            client.messages.batches.cancel("msgbatch_nope")


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The documents update-all reads (``begin``) from here on."""
    from oo_nb.agent import many

    read: list[str] = []
    real = many.begin

    def counting(path: Path, opts: UpdateOptions) -> Any:
        read.append(Path(path).name)
        return real(path, opts)

    monkeypatch.setattr(many, "begin", counting)
    return read


def _make_fresh(path: Path) -> None:
    path.write_bytes(
        Document.read(path)
        .edit_block("oo-manifest", lambda m: m.update(as_of=clock.today().isoformat()))
        .to_bytes()
    )


def test_fresh_documents_the_library_cache_knows_are_not_read(
    env: MockAPI,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """update-all asks the library's cache (``oo index``'s rows) which documents are fresh and
    reads only the others; its report is the one it gives reading every document."""
    paths = library(tmp_path)
    docs = [p for p in paths if p.name != "index.o-o.html"]
    for p in docs[:3]:
        _make_fresh(p)
    read = _reads(monkeypatch)
    with speaking("oo"):  # said as the command below says it
        unread = update_library(tmp_path, UpdateOptions(dry_run=True), progress=False)
    assert len(read) == len(paths)  # without the cache: every document read
    assert main(["index", str(tmp_path)]) == 0  # the cache now knows every document
    read.clear()
    capsys.readouterr()
    assert main(["update-all", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "0 written, 2 proposed, 0 awaiting review, 3 fresh, 0 failed" in out, out
    assert sorted(read) == sorted([*(p.name for p in docs[3:]), "index.o-o.html"])
    fresh_lines = sorted(line for line in out.splitlines() if line.startswith("fresh"))
    assert len(fresh_lines) == 3 and all("next due" in line for line in fresh_lines)
    skipped = sorted(r.message for r in unread.results if r.status == "skipped")
    assert [line.split(": ", 1)[1] for line in fresh_lines] == [
        m.split(": ", 1)[-1] for m in skipped
    ]
    # a cached fresh document with a proposal awaiting review is read: gate reports it first
    assert main(["update-all", str(tmp_path), "--no-progress", "--force"]) == 0
    _make_fresh(docs[3])
    read.clear()
    capsys.readouterr()
    assert main(["update-all", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "0 written, 0 proposed, 5 awaiting review, 0 fresh, 0 failed" in out, out
    # --force asks nothing of the cache: every document is researched
    read.clear()
    assert main(["update-all", str(tmp_path), "--no-progress", "--force"]) == 0
    assert len(read) == len(paths)


def test_a_fresh_documents_context_is_never_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a fresh document to report it costs its manifest, not its context (90 % of the
    8.7 ms a document took): a library where little is due is checked quickly."""
    from oo_nb.agent import run

    paths = [p for p in library(tmp_path) if p.name != "index.o-o.html"]
    _make_fresh(paths[0])
    built: list[str] = []
    real = run.build_context

    def counting(doc: Document, **kw: Any) -> Any:
        built.append(Path(str(doc.path)).name)
        return real(doc, **kw)

    monkeypatch.setattr(run, "build_context", counting)
    out = update_library(tmp_path, UpdateOptions(dry_run=True), progress=False)
    assert [r.status for r in out.results].count("skipped") == 1
    assert paths[0].name not in built and len(built) == len(paths) - 1
    built.clear()
    out = update_library(tmp_path, UpdateOptions(dry_run=True, force=True), progress=False)
    assert len(built) == len(paths)  # --force: the fresh one is researched, so read in full


def test_a_batch_claims_each_document_before_sending_it(
    env: MockAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document another run is researching is not sent in the batch; every claim the batch
    took is let go once its document is settled; a claim the machine cannot give (no file
    descriptor left) leaves that document out, saying why, and the others go on."""
    import errno

    from oo_nb.store import research_claim

    paths = [p for p in library(tmp_path) if p.name != "index.o-o.html"]
    held = research_claim.claim_research(paths[0])
    assert not isinstance(held, str)
    real = research_claim.claim_research
    calls: list[Path] = []

    def short_of_files(path: Path, action: str = "research") -> Any:
        calls.append(path)
        if path == paths[1]:
            raise OSError(errno.EMFILE, "Too many open files")
        return real(path, action)

    monkeypatch.setattr(research_claim, "claim_research", short_of_files)
    outcome = update_library(
        tmp_path, UpdateOptions(), batch=True, progress=False, poll_interval=0.01
    )
    held.release()
    (refused,) = [r for r in outcome.results if r.path == paths[0]]
    assert refused.status == "busy" and "being researched by another run" in refused.message
    assert "could not be claimed (Too many open files)" in outcome.failures[paths[1]]
    assert sorted(r.path for r in outcome.results if r.status == "proposed") == sorted(paths[2:])
    (create,) = [r for r in env.requests if r.path == "/v1/messages/batches"]
    assert len(create.body["requests"]) == len(paths) - 2
    for p in paths:  # every claim let go: a next run can claim each document
        again = real(p)
        assert not isinstance(again, str), again
        again.release()


def test_reading_and_the_cache_agree_on_a_fresh_document_with_no_budget(
    env: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh document is fresh whatever its budget, read or known from the cache (the cache
    path said "fresh" where reading it said "failed: the budget is $0.00"); a due one with no
    budget fails either way, and `--budget 0` is refused before anything is read."""
    paths = [p for p in library(tmp_path) if p.name != "index.o-o.html"]
    for p in paths[:2]:
        p.write_bytes(
            Document.read(p)
            .edit_block("oo-contract", lambda c: c.setdefault("budget", {}).update(max_cost_usd=0))
            .to_bytes()
        )
    _make_fresh(paths[0])
    read = update_library(tmp_path, UpdateOptions(dry_run=True), progress=False)
    assert main(["index", str(tmp_path)]) == 0
    capsys.readouterr()
    main(["update-all", str(tmp_path), "--no-progress"])
    out = capsys.readouterr().out
    (fresh,) = [r for r in read.results if r.status == "skipped"]
    assert fresh.path == paths[0]
    assert f"fresh     {paths[0].name}" in out
    assert "the budget is $0.00" in read.failures[paths[1]]
    assert f"failed    {paths[1].name}" in out and "the budget is $0.00" in out
    with pytest.raises(SystemExit):
        main(["update-all", str(tmp_path), "--budget", "0"])
    assert "from 0.0001 to 100,000" in capsys.readouterr().err


def test_a_second_name_for_a_document_is_researched_once_and_said_to_be_the_same_file(
    env: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link beside a document is not a second document (nor "being researched by another
    run": it is this run); the report names it as the same file."""
    copy_doc(tmp_path, "yc-w26-batch.o-o.html")
    (tmp_path / "alias.o-o.html").symlink_to("yc-w26-batch.o-o.html")
    assert main(["update-all", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert len(env.message_requests) == 1
    assert "left out  alias.o-o.html: same file as yc-w26-batch.o-o.html" in out, out
    assert "another run" not in out
    assert "0 written, 1 proposed, 0 awaiting review, 0 fresh, 0 failed" in out, out
