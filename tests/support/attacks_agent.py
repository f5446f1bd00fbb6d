"""Reliability part 8 (attacks, round two): the agent attacks. Each row counts the breaks found.

Issue 17, items 3-5 and the secrets line, re-run from outside through the update command (its
``run`` or the public ``prepare_update`` / ``write_result``) against the loopback mock:

- key echoes written into a document: the model repeats the API key (whole, 16 characters of
  its random part, or in other letter case) into every field of its proposal; the candidate is
  saved for review, then written with ``--yes``. A break is a place (headings, paragraphs,
  References, figures, manifest, source cache, facts, changelog) of the saved proposal or of the
  written document that still holds an echo, a document that no longer reads, or a run that does
  not say a secret was redacted;
- proposals lost under N concurrent updates: N ``oo update --force`` of one document at once
  (the mock answers them together). A break is a run told "saved for review" whose proposal is
  not on disk, or a run that ended without saying whether it was saved;
- cut responses charged $0: a 200 with half a body, a body cut mid-way, a stream cut or made
  unreadable after ``message_start``, answers without usage. A break is a run that reports
  less than what its requests could cost (their output allowance and searches), does not say
  "usage unknown", or (answers without usage, again and again) is not stopped by its budget;
- base-URL credentials leaked: ``--base-url`` / ``ANTHROPIC_BASE_URL`` with ``user:pass@``, SDK
  debug logging on, a cassette recorded. A break is a place (output, log records, error and
  traceback, files) showing the password;
- key echoes in errors: a server that echoes the key (16 characters, other case) in an error.
  A break is the echo in what the user reads.
"""

from __future__ import annotations

import io
import json
import shutil
import traceback
import unittest.mock
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from tests.support.figures import Figure

__all__ = ["attacks"]

PART = "8 attack"
DOC = "agi-declared.o-o.html"
CONCURRENT_RUNS = 12


def attacks(workdir: Path) -> list[Figure]:
    return [
        _key_echoes(workdir / "echoes"),
        _concurrent(workdir / "concurrent"),
        _cut_responses(workdir / "cut"),
        _base_url_credentials(workdir / "base-url"),
        _echoes_in_errors(workdir / "errors"),
    ]


def _result(breaks: list[str]) -> int | str:
    """0, or how many breaks and the first few of them."""
    return f"{len(breaks)}: " + "; ".join(breaks[:4]) if breaks else 0


def _copy(folder: Path) -> Path:
    from tests.support.corpus import corpus_dir

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / DOC
    shutil.copyfile(corpus_dir() / DOC, target)
    return target


# --------------------------------------------------------------------------- item 3
def _key_echoes(workdir: Path) -> Figure:
    from oo_nb.agent.pending import open_review
    from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
    from oo_nb.format.document import Document
    from oo_nb.store.store import history_dir
    from tests.support.key_echoes import PLACES, VARIANTS, echo_found, inject, leaking_places
    from tests.support.leaks import marker_key
    from tests.support.mock_api import PNG_CHART, MockAPI
    from tests.support.mock_scenarios import research_scenario

    breaks: list[str] = []
    trials = 0
    for variant, make in VARIANTS.items():
        key = marker_key()
        mock = MockAPI(
            research_scenario(
                image_url="https://images.example.com/c.png", proposal=inject(make(key))
            ),
            api_key=key,
        ).start()
        path = _copy(workdir / variant)
        try:
            with unittest.mock.patch.dict("os.environ", {"ANTHROPIC_API_KEY": key}):
                opts = UpdateOptions(
                    force=True,
                    agent="anthropic",
                    base_url=mock.base_url,
                    fetch_image=lambda url: PNG_CHART,
                )
                result = prepare_update(path, opts)
                write_result(result, yes=False)  # saved for review
                saved = history_dir(path) / "pending.json"
                if echo_found(saved.read_text("utf-8"), key):
                    breaks.append(f"{variant} saved: pending.json holds the key")
                # pending.json holds the proposal's data: the review rebuilds the candidate
                proposal = open_review(path).candidate
                write_result(result, yes=True)  # then written
                written = Document.read(path)
        except Exception as exc:  # a run that cannot finish is a break of every place
            breaks += [f"{variant}: {type(exc).__name__}: {exc}"[:160]]
            trials += 2 * len(PLACES) + 2
            continue
        finally:
            mock.stop()
        for mode, doc in (("saved", proposal), ("--yes", written)):
            trials += len(PLACES)
            breaks += [f"{variant} {mode}: {place}" for place in leaking_places(doc, key)]
            try:
                _ = doc.manifest, doc.contract, doc.source_cache, doc.changelog, doc.article
            except Exception as exc:
                breaks.append(f"{variant} {mode}: the document no longer reads ({exc})"[:160])
        trials += 2  # it wrote, and said so
        if result.written != path:
            breaks.append(f"{variant}: --yes did not write ({result.warnings[-1:]})")
        if not any("replaced by [redacted]" in w for w in result.warnings):
            breaks.append(f"{variant}: the run does not say a secret was redacted")
    return Figure(
        PART,
        "key echoes written into a document (8 places x exact/partial/case-changed x saved/--yes)",
        trials,
        _result(breaks),
        "0",
        not breaks,
    )


# --------------------------------------------------------------------------- item 4
def _concurrent(workdir: Path) -> Figure:
    from tests.support.concurrent_updates import concurrent_updates

    path = _copy(workdir)
    outcome = concurrent_updates(
        path, CONCURRENT_RUNS, key="sk-ant-test-CONCURRENT", processes=False
    )
    breaks = outcome.lost + outcome.unaccounted
    detail = (
        f"{outcome.files} file(s) for {outcome.saved_said} runs told 'saved'"
        f"{f', {outcome.not_saved_said} told NOT saved' if outcome.not_saved_said else ''}"
        f"{f', {outcome.unaccounted} ended silently' if outcome.unaccounted else ''}"
    )
    return Figure(
        PART,
        f"proposals lost under {CONCURRENT_RUNS} concurrent updates of one document",
        CONCURRENT_RUNS,
        breaks if not breaks else f"{breaks} ({detail})",
        "0",
        breaks == 0,
    )


# --------------------------------------------------------------------------- item 5
def _cut_responses(workdir: Path) -> Figure:
    from oo_nb.agent.pricing import SEARCH_USD, price_for
    from tests.support.apifaults import run_update
    from tests.support.mock_api import MockAPI, MockRequest, Reply, Script, message
    from tests.support.mock_scenarios import research_scenario, search_result, server_tool_use

    key = "sk-ant-test-CUT"
    price = price_for("claude-sonnet-5-5")

    def floor_of(request: MockRequest) -> float:  # what the request could cost at least
        tools = request.body.get("tools", []) if isinstance(request.body, dict) else []
        searches: int = sum(t.get("max_uses", 0) for t in tools if t.get("name") == "web_search")
        out_tokens = int(request.body["max_tokens"])
        return out_tokens * price.output / 1e6 + searches * SEARCH_USD

    def whole(mock: MockAPI) -> dict[str, Any]:
        inner = research_scenario(base_url=lambda: mock.base_url, with_image=False)
        reply = inner(MockRequest("POST", "/v1/messages", {}, {}, {"messages": []}, b""))
        assert reply.message is not None
        return reply.message

    def no_usage(request: MockRequest) -> Reply:
        block = f"srvtoolu_{len(request.messages)}"
        reply = message(
            [
                server_tool_use("web_search", {"query": "more"}, block),
                search_result(block, [("https://example.org/x", "X")]),
            ],
            "pause_turn",
        )
        del reply["usage"]
        return Reply(message=reply)

    def half_body(mock: MockAPI) -> Reply:
        data = json.dumps(whole(mock)).encode()
        return Reply(body=data[: len(data) // 2])

    cases: dict[str, tuple[Any, tuple[str, ...]]] = {
        "200 with half a body": (lambda m: Script([half_body(m)], repeat_last=True), ()),
        "200 cut mid-body": (
            lambda m: Script([Reply(message=whole(m), fault="truncate")], repeat_last=True),
            (),
        ),
        "stream cut after message_start": (
            lambda m: Script([Reply(message=whole(m), fault="truncate")], repeat_last=True),
            ("--stream",),
        ),
        "stream the SDK refuses after message_start": (
            lambda m: Script([Reply(message=whole(m), fault="stream_garbage")], repeat_last=True),
            ("--stream",),
        ),
        "answers without usage, again and again": (lambda m: no_usage, ("--budget", "1.5")),
    }
    breaks: list[str] = []
    for i, (name, (responder, args)) in enumerate(cases.items()):
        mock = MockAPI(api_key=key).start()
        try:
            mock.responder = responder(mock)
            out = run_update(_copy(workdir / f"case{i}"), mock.base_url, args, key=key)
        finally:
            mock.stop()
        sent = mock.message_requests
        floor = sum(floor_of(r) for r in sent)
        text = out["text"]
        if not sent:
            breaks.append(f"{name}: nothing was sent")
        elif out["cost"] + 1e-9 < floor:
            breaks.append(
                f"{name}: reported ${out['cost']:.4f}, its requests could cost ${floor:.4f}"
            )
        elif "usage unknown" not in text:
            breaks.append(f"{name}: the run does not say its usage is unknown")
        if "again and again" in name and ("budget reached" not in text or out["cost"] > 1.5 + 1e-9):
            breaks.append(f"{name}: not stopped by its budget (${out['cost']:.4f} of $1.50)")
    return Figure(
        PART,
        "cut responses charged $0 (half body, cut body/stream, unreadable stream, no usage)",
        len(cases),
        _result(breaks),
        "0",
        not breaks,
    )


# --------------------------------------------------------------------------- secrets line
def _base_url_credentials(workdir: Path) -> Figure:
    from oo_nb.cli.main import main
    from tests.support.leaks import _debug_logging, marker_key
    from tests.support.mock_api import MockAPI, Script, error_reply

    password = "gw-PASSWORD-4d7e1b9"
    breaks: list[str] = []
    trials = 0
    for given in ("--base-url", "ANTHROPIC_BASE_URL"):
        mock = MockAPI(Script([error_reply(500, "api_error", "boom")], repeat_last=True)).start()
        url = mock.base_url.replace("http://", f"http://gw-user:{password}@")
        folder = workdir / given.strip("-")
        path = _copy(folder)
        args = ["update", str(path), "--force", "--yes", "--record", str(folder / "c.json")]
        env = {"ANTHROPIC_API_KEY": marker_key(), "ANTHROPIC_LOG": "debug"}
        if given == "--base-url":
            args += ["--base-url", url]
        else:
            env["ANTHROPIC_BASE_URL"] = url
        shown, error = io.StringIO(), ""
        try:
            with (
                unittest.mock.patch.dict("os.environ", env),
                _debug_logging() as logs,
                redirect_stdout(shown),
                redirect_stderr(shown),
            ):
                try:
                    main(args)
                except Exception as exc:  # not expected: main turns errors into text
                    error = "".join(traceback.format_exception(exc))
        finally:
            mock.stop()
        files = "".join(p.read_text("utf-8", "replace") for p in folder.rglob("*") if p.is_file())
        places = {
            "output": shown.getvalue(),
            "log records": "\n".join(logs.lines),
            "error + traceback": error,
            "files": files,
        }
        trials += len(places)
        breaks += [f"{given}: {where}" for where, text in places.items() if password in text]
        if not mock.message_requests:
            breaks.append(f"{given}: nothing was sent (nothing tested)")
    return Figure(
        PART,
        "base-URL credentials leaked (output, logs, errors, files)",
        trials,
        _result(breaks),
        "0",
        not breaks,
    )


def _echoes_in_errors(workdir: Path) -> Figure:
    from tests.support.apifaults import run_update
    from tests.support.key_echoes import VARIANTS, echo_found
    from tests.support.leaks import _exception_text, marker_key
    from tests.support.mock_api import MockAPI, Script, error_reply

    breaks: list[str] = []
    for variant, make in VARIANTS.items():
        key = marker_key()
        reply = error_reply(400, "invalid_request_error", f"bad header x-api-key: {make(key)}")
        mock = MockAPI(Script([reply], repeat_last=True), api_key=key).start()
        try:
            out = run_update(_copy(workdir / variant), mock.base_url, (), key=key)
        finally:
            mock.stop()
        if echo_found(out["text"] + _exception_text(out["exc"]), key):
            breaks.append(variant)
    return Figure(
        PART,
        "key echoes (exact, partial, case-changed) shown in errors",
        len(VARIANTS),
        _result(breaks),
        "0",
        not breaks,
    )
