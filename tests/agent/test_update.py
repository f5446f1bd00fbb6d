"""`oo update` end to end against the loopback mock (the issue's Done-when), and every failure:
nothing written, a clear message, the cost so far reported."""

from __future__ import annotations

import sys
import types
from datetime import date
from pathlib import Path
from typing import Any

import httpx2
import pytest

from oo_nb.agent.backends.conversation import AgentSettings
from oo_nb.agent.pending import open_review
from oo_nb.agent.run import UpdateOptions, begin, freshness, prepare_update, write_result
from oo_nb.cli.main import main
from oo_nb.format.document import Document
from oo_nb.store import clock
from oo_nb.store.store import history_dir, load_pending, read_history
from tests.agent.test_context import image_heavy
from tests.support.agent_helpers import (
    CORPUS,
    DOCS,
    MARKER,
    assert_no_secret,
    copy_doc,
    no_history_written,
    start_mock,
)
from tests.support.mock_api import MockAPI, Reply, Script, error_reply, message
from tests.support.mock_scenarios import endless_pause, research_scenario, text, tool_use


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A research-turn mock, with the SDK pointed at it through the environment."""
    mock = start_mock()
    mock.responder = research_scenario(base_url=lambda: mock.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    yield mock
    mock.stop()


@pytest.mark.parametrize("name", DOCS)
def test_done_when_update_force_yes_on_every_corpus_document(
    name: str, api: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy_doc(tmp_path, name)
    before = Document.read(path)
    base = path.read_bytes()

    # without --yes: the proposal is saved, the bytes do not change
    assert main(["update", str(path), "--force"]) == 0
    assert path.read_bytes() == base
    pending = load_pending(path)
    assert not pending.stale and pending.run["cost_usd"] > 0

    assert main(["update", str(path), "--force", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "written:" in out
    after = Document.read(path)
    m0, m1 = before.manifest, after.manifest
    assert m1.version == m0.version + 1
    assert m1.as_of == clock.today() and m1.as_of != m0.as_of
    # the new section cites the new source, which is verified
    new = [s for s in after.article.sections if s.id.startswith("recent-developments")]
    assert len(new) == 1
    cites = {c.source_id for c in after.article.citations if c.section == new[0].id}
    sources = after.source_cache.by_id()
    (sid,) = cites
    assert sid not in before.source_cache.by_id()
    assert (
        sources[sid].url.startswith("https://news.example.com/") and sources[sid].verified is True
    )
    # the changelog keeps its shape and records the cost
    c0, c1 = before.changelog, after.changelog
    assert c1.form == c0.form and len(c1.entries) == len(c0.entries) + 1
    latest = c1.latest
    assert latest is not None and latest.version == m1.version
    assert latest.extra["cost_usd"] > 0 and latest.extra["model"] == "claude-sonnet-5-5"
    assert latest.extra["searches"] == 1
    # only the article and the four blocks changed; history kept; pending cleared
    assert after.text[: after.opener.end] == before.text[: before.opener.end]
    assert after.text[after.terminator.start :] == before.text[before.terminator.start :]
    assert read_history(path)[0].version == m0.version
    assert not (history_dir(path) / "pending.json").exists()
    assert_no_secret(tmp_path)
    auth = {r.headers.get("authorization") for r in api.message_requests}
    assert auth == {f"Bearer {MARKER}"}


def test_fresh_document_is_skipped_without_force(
    api: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy_doc(tmp_path)
    fresh = Document.read(path).edit_block(
        "oo-manifest", lambda m: m.update(as_of=clock.today().isoformat())
    )
    path.write_bytes(fresh.to_bytes())
    assert main(["update", str(path)]) == 0
    assert "Use --force" in capsys.readouterr().out and api.message_requests == []


def test_freshness_from_cadence_and_legacy_field() -> None:
    weekly = Document.read(CORPUS / "anthropic-leadership.o-o.html")  # legacy "freshness": "weekly"
    as_of = weekly.manifest.as_of
    assert as_of is not None
    assert freshness(weekly, as_of.fromordinal(as_of.toordinal() + 6)).fresh
    f = freshness(weekly, as_of.fromordinal(as_of.toordinal() + 7))
    assert not f.fresh and f.cadence_days == 7 and f.age_days == 7
    first = weekly.edit_block("oo-manifest", lambda m: m.update(as_of=""))
    assert not freshness(first, date(2026, 1, 1)).fresh


def test_dry_run_sends_nothing_and_writes_nothing(
    api: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy_doc(tmp_path)
    base = path.read_bytes()
    assert main(["update", str(path), "--dry-run", "--force"]) == 0
    out = capsys.readouterr().out
    assert "dry run" in out and "searches" in out and api.message_requests == []
    assert path.read_bytes() == base and not history_dir(path).exists()


def test_dry_run_plans_the_first_request_as_a_real_run_would(tmp_path: Path) -> None:
    """With a budget too small for full output, the first request still researches (with fewer
    output tokens); the prompt states the --budget figure, not the contract's."""
    path = copy_doc(tmp_path)
    result = prepare_update(
        path, UpdateOptions(force=True, dry_run=True, budget_usd=0.20, agent="replay")
    )
    assert result.status == "planned"
    assert result.plan["searches"] + result.plan["fetches"] > 0, result.plan
    assert result.plan["max_tokens"] < AgentSettings(model=result.model).max_tokens
    prep = begin(path, UpdateOptions(force=True, budget_usd=0.20, agent="replay"))
    assert "$0.20" in prep.ctx.user and prep.ctx.budget_usd == 0.20


FAILURES = {
    "overloaded": (
        Script([error_reply(529, "overloaded_error", "busy", retry_after_ms=1)], repeat_last=True),
        "API error 529",
    ),
    "server error": (
        Script([error_reply(500, "api_error", "boom", retry_after_ms=1)], repeat_last=True),
        "API error 500",
    ),
    "refusal": (Script([message([text("no")], "refusal")]), "declined"),
    "max tokens": (Script([message([text("...")], "max_tokens")]), "max_tokens"),
    "missing submit": (
        Script([message([text("a")]), message([text("b")])]),
        "without calling submit_proposal",
    ),
    "malformed submit": (
        Script([message([tool_use("submit_proposal", {"summary": 1})], "tool_use")] * 2),
        "invalid again",
    ),
    "endless pause": (endless_pause(), "no proposal after 8 requests"),
    "stream error": (
        Script([Reply(message=message([text("x")]), fault="stream_error")]),
        "stream broke off",
    ),
}


@pytest.mark.parametrize("case", list(FAILURES))
def test_each_failure_writes_nothing_and_reports_cost(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    responder, pattern = FAILURES[case]
    mock = start_mock(responder)
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    try:
        path = copy_doc(tmp_path)
        base = path.read_bytes()
        args = ["update", str(path), "--force", "--yes", "--base-url", mock.base_url]
        if case == "stream error":
            args.append("--stream")
        assert main(args) == 2
    finally:
        mock.stop()
    err = capsys.readouterr().err
    assert "oo update: error:" in err and pattern in err
    assert "cost so far $" in err and "nothing was written" in err
    assert path.read_bytes() == base and no_history_written(path)
    assert_no_secret(tmp_path)


def test_budget_exhaustion_via_cli(
    tmp_path: Path, api: MockAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy_doc(tmp_path)
    base = path.read_bytes()
    assert main(["update", str(path), "--force", "--yes", "--budget", "0.02"]) == 2
    err = capsys.readouterr().err
    assert "budget reached" in err and "cost so far $0.0000" in err and api.message_requests == []
    assert path.read_bytes() == base


def test_overspent_run_is_never_written_even_with_yes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    heavy = research_scenario()

    def responder(req: Any) -> Reply:
        reply = heavy(req)
        assert reply.message is not None
        reply.message["usage"]["input_tokens"] = 3_000_000  # far more than any bound allowed
        return reply

    mock = start_mock(responder)
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    try:
        path = copy_doc(tmp_path)
        base = path.read_bytes()
        assert main(["update", str(path), "--force", "--yes", "--base-url", mock.base_url]) == 1
    finally:
        mock.stop()
    out = capsys.readouterr().out
    assert "over its $5.00 budget" in out and "not written automatically" in out
    assert path.read_bytes() == base
    assert load_pending(path).run["overspent"] is True


def test_review_flag_uses_the_terminal_review(
    api: MockAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def review_in_terminal(
        original: Document, candidate: Document, run: dict[str, Any], **asked: Any
    ) -> Document | None:
        seen.update(run=run, original=original)
        if not seen.get("accept"):
            return None  # quit
        asked["session"].accept_all()  # the answers are decisions on the session it is given
        return candidate

    monkeypatch.setitem(
        sys.modules,
        "oo_nb.review.terminal",
        types.SimpleNamespace(review_in_terminal=review_in_terminal),
    )
    path = copy_doc(tmp_path)
    base = path.read_bytes()
    assert main(["update", str(path), "--force", "--review"]) == 1
    assert (
        path.read_bytes() == base
        and seen["run"]["cost_usd"] > 0
        and seen["original"].to_bytes() == base
    )
    seen["accept"] = True
    assert main(["update", str(path), "--force", "--review"]) == 0
    assert Document.read(path).manifest.version == 3
    assert read_history(path)[0].action == "update (reviewed)"


def test_images_are_downloaded_and_embedded(tmp_path: Path) -> None:
    mock = start_mock(research_scenario(image_url="https://images.example.com/chart.png"))
    try:

        def fetch(url: str) -> bytes:  # the images host is the mock (no real network)
            assert url == "https://images.example.com/chart.png"
            return httpx2.get(f"{mock.base_url}/img/chart.png").content

        path = copy_doc(tmp_path)
        result = prepare_update(
            path,
            UpdateOptions(
                force=True,
                agent="anthropic",
                api_key=MARKER,
                base_url=mock.base_url,
                fetch_image=fetch,
            ),
        )
    finally:
        mock.stop()
    assert result.candidate is not None and result.candidate.images_added == 1
    figures = result.candidate.document.article.figures
    assert any(f.src_kind == "data" and f.mime == "image/png" for f in figures)


def test_kept_placeholder_brings_back_the_original_image(tmp_path: Path) -> None:
    doc = image_heavy(images=1, kb=20)
    path = tmp_path / "heavy.o-o.html"
    path.write_bytes(doc.to_bytes())

    def keep_figure(p: dict[str, Any]) -> dict[str, Any]:
        p["sections"] = [
            {
                "id": "status",
                "title": "Status",
                "html": '<figure class="fig-right"><img src="oo-image:1" alt="Chart 0"><figcaption>Caption 0.</figcaption></figure><p>Still no declaration [s20].</p>',
            },
            *p["sections"],
        ]
        p["images"] = []
        return p

    mock = start_mock(research_scenario(proposal=keep_figure))
    try:
        result = prepare_update(
            path,
            UpdateOptions(force=True, agent="anthropic", api_key=MARKER, base_url=mock.base_url),
        )
    finally:
        mock.stop()
    assert "data:image" not in str(mock.message_requests[0].raw)
    assert result.candidate is not None
    original_src = next(f for f in doc.article.figures if f.src_kind == "data")
    new_figures = [f for f in result.candidate.document.article.figures if f.section == "status"]
    assert new_figures and new_figures[0].bytes == original_src.bytes
    write_result(result, yes=True)
    assert Document.read(path).manifest.version == doc.manifest.version + 1


def test_index_page_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_doc(tmp_path, "index.o-o.html")
    assert main(["update", str(path), "--agent", "anthropic"]) == 2
    assert "index page" in capsys.readouterr().err


def test_unreachable_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    mock = MockAPI().start()
    url = mock.base_url
    mock.stop()  # nothing listens there any more
    path = copy_doc(tmp_path)
    result = main(["update", str(path), "--force", "--base-url", url])
    assert result == 2 and "cannot reach the API" in capsys.readouterr().err


def test_paid_proposal_survives_a_concurrent_edit_and_a_second_update(tmp_path: Path) -> None:
    """--yes on a file that changed during research keeps the proposal for review; a second
    update keeps the first unreviewed proposal beside the new one."""
    path = copy_doc(tmp_path)
    with start_mock(research_scenario()) as mock:
        opts = UpdateOptions(force=True, agent="anthropic", api_key=MARKER, base_url=mock.base_url)
        result = prepare_update(path, opts)
        edited = path.read_bytes() + b"\n"
        path.write_bytes(edited)  # someone edits the file while the agent researched
        write_result(result, yes=True)
        assert result.written is None and path.read_bytes() == edited
        assert any("not written" in w for w in result.warnings)
        assert load_pending(path).stale
        second = write_result(prepare_update(path, opts), yes=False)
        assert any("kept as pending-" in w for w in second.warnings)
    assert len(list(history_dir(path).glob("pending-*.json"))) == 1
    assert_no_secret(tmp_path)


@pytest.mark.parametrize("budget", ["inf", "nan", "0"])
def test_budget_must_be_a_positive_finite_number(budget: str, tmp_path: Path) -> None:
    from oo_nb.errors import AgentError

    path = copy_doc(tmp_path)
    with pytest.raises(AgentError, match="budget"):
        prepare_update(path, UpdateOptions(force=True, agent="replay", budget_usd=float(budget)))


def test_review_flag_keeps_the_paid_proposal_when_the_file_changed(
    api: MockAPI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = copy_doc(tmp_path)
    edited = path.read_bytes() + b"\n"

    def review_in_terminal(
        original: Document, candidate: Document, run: dict[str, Any], **asked: Any
    ) -> Document | None:
        path.write_bytes(edited)  # someone saves the file while the review is open
        asked["session"].accept_all()
        return candidate

    monkeypatch.setitem(
        sys.modules,
        "oo_nb.review.terminal",
        types.SimpleNamespace(review_in_terminal=review_in_terminal),
    )
    capsys.readouterr()
    assert main(["update", str(path), "--force", "--review"]) == 1
    out = capsys.readouterr().out
    assert path.read_bytes() == edited
    pending = load_pending(path)  # the paid proposal is kept
    assert pending.stale and pending.run["cost_usd"] > 0
    assert "not written" in out and "changed on disk" in out
    assert f"oo review {path} --force" in out and "proposal saved for review" in out


def test_no_other_run_researches_during_a_terminal_review(
    api: MockAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While ``oo update --review`` asks, the proposal is saved: a cron run finds it awaiting
    review and pays for no second research (it used to be the research claim held through the
    review; the claim now ends when the proposal is saved, as for every update)."""
    from oo_nb.agent.run import UpdateOptions, prepare_update

    seen: list[str] = []

    class NoResearch:
        name, model = "anthropic", "claude-test"

        def new_run(self, budget_usd: float) -> Any:
            raise AssertionError("research started during the review: paid for twice")

    def review_in_terminal(original: Document, candidate: Document, run: Any, **_: Any) -> None:
        seen.append(prepare_update(path, UpdateOptions(), backend=NoResearch()).status)  # type: ignore[arg-type]

    monkeypatch.setitem(
        sys.modules,
        "oo_nb.review.terminal",
        types.SimpleNamespace(review_in_terminal=review_in_terminal),
    )
    path = copy_doc(tmp_path)
    assert main(["update", str(path), "--force", "--review"]) == 1  # quit: kept for review
    assert seen in (["awaiting"], ["busy"])  # saved for review, or (as before) claimed
    assert load_pending(path) is not None


def _rejecting_everything(
    original: Document, candidate: Document, run: Any, **asked: Any
) -> Document:
    asked["session"].reject_all()  # every change answered "n"
    return original


def test_review_flag_with_everything_rejected_writes_no_version(
    api: MockAPI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(
        sys.modules,
        "oo_nb.review.terminal",
        types.SimpleNamespace(review_in_terminal=_rejecting_everything),
    )
    path = copy_doc(tmp_path)
    base = path.read_bytes()
    assert main(["update", str(path), "--force", "--review"]) == 0
    assert path.read_bytes() == base
    assert [e.action for e in read_history(path)] == ["current"]  # no new version in history
    assert "nothing accepted" in capsys.readouterr().out


def test_yes_keeps_an_earlier_unreviewed_proposal(
    api: MockAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy_doc(tmp_path)
    assert main(["update", str(path), "--force"]) == 0
    assert not load_pending(path).stale
    capsys.readouterr()
    assert main(["update", str(path), "--force", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "written:" in out
    (kept,) = history_dir(path).glob("pending-*.json")  # set aside, not deleted
    assert f"an earlier unreviewed proposal was kept as {kept.name}" in out
    assert f"--pick {kept.name}" in out
    assert not (history_dir(path) / "pending.json").exists()
    # it can be listed and picked for review
    assert main(["review", str(path), "--list"]) == 0
    listing = capsys.readouterr().out
    assert kept.name in listing and "the document changed since" in listing
    assert (
        main(["review", str(path)]) == 0
    )  # only set-aside ones: listed with a hint, not a failure
    assert "--pick NAME" in capsys.readouterr().out
    assert main(["review", str(path), "--pick", kept.name, "--reject-all", "--force"]) == 0
    out = capsys.readouterr()
    assert f"reviewing {kept.name}" in out.out + out.err and "nothing accepted" in out.out
    assert not list(history_dir(path).glob("pending*.json"))


def test_a_lone_surrogate_in_agent_output_keeps_the_proposal_for_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "\\ud800" in a paid answer ended `oo update` in a UnicodeEncodeError traceback in the
    sanitiser: the proposal is now saved for review with U+FFFD, and the user is told where."""

    def hostile(p: dict[str, Any]) -> dict[str, Any]:
        p["summary"] = "Added \ud800 news."
        p["sections"][0]["html"] = p["sections"][0]["html"].replace("A new", "A \udcff new")
        return p

    mock = start_mock()
    mock.responder = research_scenario(
        base_url=lambda: mock.base_url, with_image=False, proposal=hostile
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    path = copy_doc(tmp_path)
    base = path.read_bytes()
    try:
        assert main(["update", str(path), "--force", "--base-url", mock.base_url]) == 0
    finally:
        mock.stop()
    out = capsys.readouterr().out
    assert "not valid Unicode (lone surrogates)" in out and "input.summary" in out
    assert "proposal saved for review" in out and path.read_bytes() == base
    review = open_review(path)  # the saved proposal, rebuilt as a review would
    assert "A \ufffd new" in review.candidate.article_html and review.run["cost_usd"] > 0


def test_bidi_and_control_characters_in_agent_html_are_removed_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A right-to-left override in a paragraph made the page show "$0.50" where the article's
    text (its frames, quotes and search) holds "05.0$"; an ESC rewrote the terminal of whoever
    printed it. Removed, and the reviewer told which characters."""

    def hostile(p: dict[str, Any]) -> dict[str, Any]:
        html = p["sections"][0]["html"]
        p["sections"][0]["html"] = html.replace("A new", "A \u202e05.0$\u202c&#x202e; \x1b[2J new")
        return p

    mock = start_mock()
    mock.responder = research_scenario(
        base_url=lambda: mock.base_url, with_image=False, proposal=hostile
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    path = copy_doc(tmp_path)
    try:
        assert main(["update", str(path), "--force", "--yes", "--base-url", mock.base_url]) == 0
    finally:
        mock.stop()
    out = capsys.readouterr().out
    assert "control or bidi character(s) \\u202e, \\u202c, \\u001b removed" in out
    article = Document.read(path).article_html
    assert "A 05.0$ [2J new" in article
    assert not any(c in article for c in "\u202e\u202c\x1b") and "&#x202e;" not in article
