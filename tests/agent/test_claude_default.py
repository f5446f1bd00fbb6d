"""The original's default agent, and what the Claude Code backend reports and adds.

- no API key, no cassette, `claude` on PATH: Claude Code runs (o-o's own default); with none of
  the three, the error names each way to run;
- its searches and fetches are counted from its WebSearch / WebFetch tool uses;
- it can add images through ``oo-images.json`` in its scratch folder: downloaded (here from a
  loopback server) and checked through the same Pillow path as the API backend's images; the
  file is untrusted input: a broken file or entry is a warning naming the file and the field.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pytest
from PIL import Image

from oo_nb.agent.backends.claude_code import read_scratch_copy, split_sections
from oo_nb.agent.backends.claude_images import IMAGES_FILE, read_images_file, web_tool_counts
from oo_nb.agent.image_fetch import fetch_image_https
from oo_nb.agent.run import UpdateOptions, choose_agent, prepare_update
from oo_nb.cli.main import main
from oo_nb.errors import AgentError
from oo_nb.format.document import Document
from oo_nb.format.names import CASSETTE_SUFFIX
from tests.support.agent_helpers import TODAY, copy_doc
from tests.support.fake_claude import read_log, research_claude_env


@pytest.fixture
def claude_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    env = research_claude_env(tmp_path / "fake")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def _opts(**kw: Any) -> UpdateOptions:
    return UpdateOptions(force=True, today=TODAY, download_images=False, **kw)


# --------------------------------------------------------------------------- the default agent
def test_without_key_or_cassette_claude_code_runs(
    claude_on_path: dict[str, str], tmp_path: Path
) -> None:
    doc = copy_doc(tmp_path / "lib")
    result = prepare_update(doc, _opts())  # no --agent
    assert result.agent == "claude-code" and result.run is not None
    assert result.run.backend == "claude-code"
    assert "from claude-code" in result.message
    assert read_log(claude_on_path)["argv"][0] == "-p"  # the fake really ran


def test_the_order_key_then_cassette_then_claude(
    claude_on_path: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = copy_doc(tmp_path / "lib")
    assert choose_agent(None, doc) == "claude-code"
    cassette = doc.parent / (doc.name.removesuffix(".o-o.html") + CASSETTE_SUFFIX)
    cassette.write_text("{}")
    assert choose_agent(None, doc) == "replay"  # a recorded run for this document wins
    assert choose_agent(None, doc, cassette=cassette) == "replay"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-NOT-REAL")
    assert choose_agent(None, doc) == "anthropic"
    assert choose_agent("claude-code", doc) == "claude-code"  # asked for: always that one


def test_with_none_of_them_the_error_names_all_three(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    doc = copy_doc(tmp_path / "lib")
    base = doc.read_bytes()
    assert choose_agent(None, doc) == "replay"
    with pytest.raises(AgentError) as caught:
        prepare_update(doc, _opts())
    message = caught.value.message
    for way in ("ANTHROPIC_API_KEY", "--agent claude-code", "--cassette"):
        assert way in message, message
    assert main(["update", str(doc), "--force"]) == 2
    err = capsys.readouterr().err
    assert "ANTHROPIC_API_KEY" in err and "--agent claude-code" in err and "--cassette" in err
    assert doc.read_bytes() == base


# --------------------------------------------------------------------------- research figures
def test_searches_and_fetches_are_counted_from_its_tool_uses(
    claude_on_path: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_SEARCHES", "3")
    monkeypatch.setenv("FAKE_CLAUDE_FETCHES", "2")
    result = prepare_update(copy_doc(tmp_path / "lib"), _opts())
    assert result.run is not None
    assert (result.run.usage.web_searches, result.run.usage.web_fetches) == (3, 2)
    assert "3 search(es), 2 fetch(es)" in result.message
    assert result.candidate is not None
    latest = result.candidate.document.changelog.latest
    assert latest is not None and (latest.extra["searches"], latest.extra["fetches"]) == (3, 2)


def test_tool_use_counting_reads_only_assistant_web_tools() -> None:
    def use(tid: str, name: str) -> str:
        return json.dumps(
            {
                "type": "assistant",
                "message": {"content": [{"type": "tool_use", "id": tid, "name": name}]},
            }
        )

    stdout = "\n".join(
        [
            use("a", "WebSearch"),
            use("a", "WebSearch"),  # the same call seen twice counts once
            use("b", "WebFetch"),
            use("c", "Read"),
            json.dumps(
                {
                    "type": "user",
                    "message": {"content": [{"type": "tool_use", "name": "WebSearch"}]},
                }
            ),
            "not json",
            '{"type": "assistant", "message": {"content": "text"}}',
        ]
    )
    assert web_tool_counts(stdout) == (1, 1)
    assert web_tool_counts("") == (0, 0)


# --------------------------------------------------------------------------- images
def _photo() -> bytes:
    img = Image.effect_noise((1200, 900), 40).convert("RGB")
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


PHOTO = _photo()
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


class ImageServer:
    """Loopback HTTP: /photo.png (a 1200x900 PNG), /evil.svg, anything else 404. Records paths."""

    def __init__(self) -> None:
        hits: list[str] = []
        self.hits = hits

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                hits.append(self.path)
                body, kind = {
                    "/photo.png": (PHOTO, "image/png"),
                    "/evil.svg": (SVG, "image/png"),  # lying about its type
                }.get(self.path, (b"", ""))
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", kind or "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def fetch(self, url: str) -> bytes:
        """The real downloader (https only, limits, streaming), its requests sent to loopback."""
        return fetch_image_https(url, transport=_ToLoopback(self.port), check_host=False)


class _ToLoopback(httpx2.BaseTransport):
    """Sends each https request to the loopback server over http, same path."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.inner = httpx2.HTTPTransport()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.port)
        return self.inner.handle_request(request)


@pytest.fixture
def image_server() -> Iterator[ImageServer]:
    server = ImageServer()
    yield server
    server.server.shutdown()
    server.server.server_close()


def test_claude_code_adds_images_through_the_pillow_path(
    claude_on_path: dict[str, str],
    image_server: ImageServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    images = [
        {
            "url": "https://images.example.org/photo.png",
            "caption": "A fresh photo",
            "credit": "https://press.example.org/gallery",
            "alt": "noise",
            "section": "fresh-news",
        },
        {"url": "https://images.example.org/evil.svg", "caption": "Not an image"},
    ]
    monkeypatch.setenv("FAKE_CLAUDE_IMAGES", json.dumps(images))
    doc = copy_doc(tmp_path / "lib")
    result = prepare_update(doc, _opts(fetch_image=image_server.fetch))
    assert image_server.hits == ["/photo.png", "/evil.svg"]
    # the prompt asked for the file, and the fake found it waiting (empty) in its folder
    log = read_log(claude_on_path)
    prompt = log["argv"][log["argv"].index("-p") + 1]
    assert IMAGES_FILE in prompt and "caption" in prompt and "credit" in prompt
    assert json.loads(log["images_file"]) == []
    cand = result.candidate
    assert cand is not None
    fresh = split_sections(cand.document.article_html)["fresh-news"][1]
    figure = re.search(r"<figure[^>]*>.*?</figure>", fresh, re.S)
    assert figure is not None, fresh
    fig = figure.group(0)
    assert "A fresh photo." in fig and 'href="https://press.example.org/gallery"' in fig
    assert "press.example.org" in fig
    data = re.search(r'src="data:image/png;base64,([^"]+)"', fig)
    assert data is not None
    embedded = Image.open(io.BytesIO(base64.b64decode(data.group(1))))
    assert embedded.format == "PNG" and max(embedded.size) <= 800  # resized by the contract
    assert len(base64.b64decode(data.group(1))) <= 150 * 1024
    assert "evil" not in cand.document.article_html and "<svg" not in cand.document.article_html
    assert any("images[1] skipped" in w and "SVG" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", r"oo-images\.json: not valid JSON \(line 1"),
        ('{"url": "https://x.example/a.png"}', r"oo-images\.json: must be a JSON list"),
        ("[42]", r"oo-images\.json\[0\]: must be an object"),
        ('[{"url": "https://x.example/a.png", "caption": 7}]', r"oo-images\.json\[0\]\.caption: must be a string"),
        ('[{"url": "http://x.example/a.png", "caption": "c"}]', r"oo-images\.json\[0\]\.url: must be an https URL"),
        ('[{"url": "https://x.example/a.png"}]', r"oo-images\.json\[0\]\.caption: missing"),
        ('[{"url": ["https://x.example/a.png"], "caption": "c"}]', r"oo-images\.json\[0\]\.url: must be a string"),
    ],
)  # fmt: skip
def test_a_broken_images_file_is_a_warning_and_the_update_goes_on(
    content: str,
    expected: str,
    claude_on_path: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_IMAGES", content)
    fetched: list[str] = []
    result = prepare_update(
        copy_doc(tmp_path / "lib"), _opts(fetch_image=lambda u: fetched.append(u) or b"")
    )
    assert result.candidate is not None and fetched == []
    assert "fresh-news" in [s.id for s in result.candidate.document.article.sections]
    assert any(re.search(expected, w) for w in result.warnings), result.warnings


def test_the_images_file_fields_one_by_one(tmp_path: Path) -> None:
    entries = [
        {"url": "https://a.example/1.png", "caption": "One", "credit": "https://a.example/page"},
        {"url": "https://a.example/2.png", "caption": "Two", "credit": "NASA"},  # not a URL
        {"url": "https://a.example/3.png", "caption": "Three", "section": "Not An Id"},
        {"url": "https://a.example/4.png", "caption": "Four", "layout": "fig-huge", "x": 1},
        {"url": "https://a.example/5.png", "caption": "x" * 601},
    ]
    (tmp_path / IMAGES_FILE).write_text(json.dumps({"images": entries}))
    images, warnings = read_images_file(tmp_path, read_scratch_copy)
    assert [i["caption"] for i in images] == ["One", "Two", "Three", "Four"]
    assert images[0]["page_url"] == "https://a.example/page"
    assert images[1]["page_url"] == "https://a.example/2.png"  # credit left out, said so
    assert "section" not in images[2] and "layout" not in images[3]
    said = "\n".join(warnings)
    for part in (
        "[1].credit",
        "[2].section",
        "[3].layout",
        "[3]: unknown field(s) x",
        "[4].caption",
    ):
        assert f"{IMAGES_FILE}{part}" in said, said
    # no file: nothing, and nothing said
    assert read_images_file(tmp_path / "none", read_scratch_copy) == ([], [])


def test_an_images_file_text_carries_no_unsafe_character(tmp_path: Path) -> None:
    """Captions, credits and alt text are read as every reader reads text (vocab.strip_unsafe):
    a bidi override, a zero-width space or a lone carriage return shown as a space."""
    entry = {"url": "https://a.example/1.png", "caption": "tide\u202erose", "alt": "a\u200bb\rc"}
    (tmp_path / IMAGES_FILE).write_text(json.dumps({"images": [entry]}))
    images, _ = read_images_file(tmp_path, read_scratch_copy)
    assert (images[0]["caption"], images[0]["alt"]) == ("tide rose", "a b c")


def test_an_images_file_that_is_not_a_regular_file_is_refused_unread(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / IMAGES_FILE)  # a read would block forever
    images, warnings = read_images_file(tmp_path, read_scratch_copy)
    assert images == [] and len(warnings) == 1 and "FIFO" in warnings[0]
    (tmp_path / IMAGES_FILE).unlink()
    (tmp_path / IMAGES_FILE).write_bytes(b"[" + b" " * (300 * 1024) + b"]")
    images, warnings = read_images_file(tmp_path, read_scratch_copy)
    assert images == [] and "limit" in warnings[0]


def test_an_images_file_nested_too_deep_is_a_warning(tmp_path: Path) -> None:
    """100,000 nested lists fit in the size limit and overflow the JSON parser's recursion: a
    warning naming the file, never a traceback after the paid run."""
    (tmp_path / IMAGES_FILE).write_text("[" * 100_000 + "]" * 100_000)
    images, warnings = read_images_file(tmp_path, read_scratch_copy)
    assert images == [] and len(warnings) == 1
    assert warnings[0].startswith(f"{IMAGES_FILE}: ") and "nested" in warnings[0]


def test_an_images_file_of_many_bad_entries_is_a_few_warnings(tmp_path: Path) -> None:
    """120,000 bad entries fit in the size limit: they were 120,000 warnings (7.5 MB printed,
    6.6 MB of saved proposal). A few are named, the rest counted in one line."""
    (tmp_path / IMAGES_FILE).write_text(json.dumps([1] * 120_000, separators=(",", ":")))
    images, warnings = read_images_file(tmp_path, read_scratch_copy)
    assert images == [] and len(warnings) <= 11
    assert warnings[0] == f"{IMAGES_FILE}[0]: must be an object, found int"
    assert "119990 more" in warnings[-1]


def test_images_not_allowed_by_the_contract_are_not_asked_for(
    claude_on_path: dict[str, str], tmp_path: Path
) -> None:
    doc = copy_doc(tmp_path / "lib")
    off = Document.read(doc).edit_block("oo-contract", lambda c: c["images"].update(allow=False))
    doc.write_bytes(off.to_bytes())
    prepare_update(doc, _opts())
    log = read_log(claude_on_path)
    prompt = log["argv"][log["argv"].index("-p") + 1]
    assert "Do not add images" in prompt and IMAGES_FILE not in prompt
