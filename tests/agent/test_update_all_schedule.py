"""update-all's scheduling: a document starts as soon as it is read (not after the whole folder),
and each document's prompt is counted while others research (one count per document, used by
its run, not asked again before its first request)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import oo_nb.agent.many as many
from oo_nb.agent.run import UpdateOptions
from tests.support.agent_helpers import CORPUS, DOCS, MARKER, start_mock
from tests.support.mock_api import MockAPI, MockRequest, Reply
from tests.support.mock_scenarios import research_scenario

_TITLE = re.compile(r'Update the living document "(.*?)"')


def folder_of(tmp_path: Path, count: int) -> list[Path]:
    paths = []
    for i in range(count):
        name = DOCS[i % len(DOCS)]
        target = tmp_path / f"{i:02d}-{name}"
        shutil.copyfile(CORPUS / name, target)
        target.chmod(0o644)
        paths.append(target)
    return paths


def opts(mock: MockAPI) -> UpdateOptions:
    return UpdateOptions(
        force=True, agent="anthropic", api_key=MARKER, base_url=mock.base_url, download_images=False
    )


def test_the_first_request_goes_out_before_the_folder_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_begin = many.begin

    def begin(path: Any, o: UpdateOptions) -> Any:
        events.append(f"read {Path(path).name[:2]}")
        return real_begin(path, o)

    scenario = research_scenario(with_image=False)

    def respond(request: MockRequest) -> Reply:
        events.append("request")
        return scenario(request)

    monkeypatch.setattr(many, "begin", begin)
    paths = folder_of(tmp_path, 12)
    mock = start_mock(respond, latency=0.2)
    try:
        out = many.update_library(tmp_path, opts(mock), concurrency=2, progress=False)
    finally:
        mock.stop()
    assert not out.failures and len(out.results) == len(paths)
    first_request = events.index("request")
    assert events.index("read 11") > first_request  # the last document was read later
    # documents are read ahead of their turn, but at most three per place (memory stays flat)
    assert events[:first_request].count("read 00") == 1
    assert sum(1 for e in events[:first_request] if e.startswith("read")) <= 6


def test_the_first_requests_go_out_before_any_document_is_read_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a document ahead (and counting its prompt) takes CPU the first requests would
    wait for: the first ``concurrency`` documents are read, and their requests sent, first."""
    events: list[str] = []
    real_begin = many.begin

    def begin(path: Any, o: UpdateOptions) -> Any:
        events.append(f"read {Path(path).name[:2]}")
        return real_begin(path, o)

    from oo_nb.agent.backends.anthropic import AnthropicBackend

    real_exchange = AnthropicBackend._aexchange

    async def exchange(self: AnthropicBackend, *args: Any) -> Any:
        events.append("send")  # the request is handed to the SDK, which sends it
        return await real_exchange(self, *args)

    monkeypatch.setattr(many, "begin", begin)
    monkeypatch.setattr(AnthropicBackend, "_aexchange", exchange)
    paths = folder_of(tmp_path, 8)
    mock = start_mock(research_scenario(with_image=False), latency=0.3)
    try:
        out = many.update_library(tmp_path, opts(mock), concurrency=3, progress=False)
    finally:
        mock.stop()
    assert not out.failures and len(out.results) == len(paths)
    ahead = events.index("read 03")  # the first document read beyond the three places
    assert sorted(events[:ahead]) == ["read 00", "read 01", "read 02", "send", "send", "send"]


def test_counts_run_ahead_of_each_documents_turn(tmp_path: Path) -> None:
    folder_of(tmp_path, 3)
    mock = start_mock(research_scenario(with_image=False), latency=0.3)
    mock.count_latency = 0.2  # a count takes time: one asked before a request delays it
    try:
        out = many.update_library(tmp_path, opts(mock), concurrency=1, progress=False)
    finally:
        mock.stop()
    assert not out.failures and len(out.results) == 3
    log = []
    for r in mock.requests:
        kind = "count" if r.path.endswith("/count_tokens") else "message"
        content = r.messages[0]["content"]
        text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
        found = _TITLE.search(text)
        log.append((kind, found.group(1) if found else "?"))
    counts = [t for k, t in log if k == "count"]
    messages = [t for k, t in log if k == "message"]
    assert len(counts) == 3 and sorted(counts) == sorted(messages)  # one count per document
    # the second document's prompt was counted while the first one researched (after its
    # request went out: nothing is read ahead before it), not before its own first request
    first, second = log.index(("message", messages[0])), log.index(("message", messages[1]))
    assert first < log.index(("count", messages[1])) < second


def test_a_failed_count_ahead_is_a_warning_and_the_run_goes_on(tmp_path: Path) -> None:
    folder_of(tmp_path, 2)
    mock = start_mock(research_scenario(with_image=False))
    mock.count_tokens_error = Reply(
        status=404, error={"type": "error", "error": {"type": "not_found_error", "message": "no"}}
    )
    try:
        out = many.update_library(tmp_path, opts(mock), concurrency=2, progress=False)
    finally:
        mock.stop()
    assert not out.failures and len(out.results) == 2
    for r in out.results:
        assert any("could not be counted" in w for w in r.warnings)


def test_the_next_document_researches_while_a_candidate_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Concurrency 1: the second document's request goes out while the first one's candidate
    is still being built (the research place is given up first)."""
    import threading

    import oo_nb.agent.run as run

    folder_of(tmp_path, 2)
    scenario = research_scenario(with_image=False)
    requests = []
    second_sent = threading.Event()
    overlapped: list[bool] = []

    def respond(request: MockRequest) -> Reply:
        requests.append(request)
        if len(requests) == 2:
            second_sent.set()
        return scenario(request)

    real_finish = run.finish

    def finish(*args: Any, **kwargs: Any) -> Any:
        if not overlapped:  # the first candidate waits for the second document's request
            overlapped.append(second_sent.wait(10))
        return real_finish(*args, **kwargs)

    monkeypatch.setattr(run, "finish", finish)
    mock = start_mock(respond)
    try:
        out = many.update_library(tmp_path, opts(mock), concurrency=1, progress=False)
    finally:
        mock.stop()
    assert not out.failures and len(out.results) == 2
    assert overlapped == [True]
