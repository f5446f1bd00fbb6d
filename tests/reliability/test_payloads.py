"""Hostile agent output at reduced size, and the payload detector itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oo_nb.format.document import Document
from tests.conftest import CORPUS
from tests.support.payloads import PAYLOADS, active_findings, payload, shell_findings
from tests.support.reliability_helpers import run_part


def test_payload_names_are_unique_and_many() -> None:
    names = [p.name for p in PAYLOADS]
    assert len(names) == len(set(names)) >= 40


def test_hostile_agent_output_is_never_active_in_the_written_file(tmp_path: Path) -> None:
    rows = run_part(4, tmp_path)
    assert rows["payloads ACTIVE in a written file"].result == 0
    assert rows["raw payloads the detector misses"].result == 0
    assert rows["errors other than OOError"].result == 0


@pytest.fixture(scope="module")
def page() -> Document:
    return Document.read(CORPUS / "yc-w26-batch.o-o.html")


def _inject_article(doc: Document, html: str) -> str:
    assert doc.article_span is not None
    at = doc.article_span.start
    return doc.text[:at] + html + doc.text[at:]


def test_an_unchanged_page_has_no_findings(page: Document) -> None:
    assert active_findings(page.text, baseline=page.text) == []


@pytest.mark.parametrize("name", [p.name for p in PAYLOADS if p.context == "html"])
def test_detector_reports_each_raw_html_payload(page: Document, name: str) -> None:
    assert active_findings(_inject_article(page, payload(name).text), baseline=page.text)


def test_detector_leaves_embedded_raster_images_alone(page: Document) -> None:
    png = "data:image/png;base64,iVBORw0KGgo="
    html = f'<img src="{png}" alt="a"><img srcset="{png} 1x, {png},{png} 2x" alt="b"><img src="" alt="c">'
    assert active_findings(_inject_article(page, html), baseline=page.text) == []


@pytest.mark.parametrize(
    "html",
    [
        '<img src="https://example.org/a.png" alt="">',
        '<img src="//example.org/a.png" alt="">',
        '<img src="images/local.png" alt="">',
        '<img srcset="data:image/png;base64,AA,BB 1x, https://example.org/b.png 2x" alt="">',
        '<audio src="http://example.org/a.mp3"></audio>',
        '<p style="background:\\75 rl(https://example.org/c.png)">x</p>',
    ],
)
def test_detector_reports_any_url_the_browser_fetches(page: Document, html: str) -> None:
    """A plain http(s) load runs nothing but still calls home: it is a finding."""
    assert active_findings(_inject_article(page, html), baseline=page.text)


@pytest.mark.parametrize(
    "name", ["json-script-close", "json-script-close-upper", "json-comment-open"]
)
def test_detector_reports_a_json_block_closable_early(page: Document, name: str) -> None:
    span = page.blocks["oo-manifest"]
    naive = json.dumps({"title": payload(name).text})  # no "</" escaping, as the original did
    text = page.text[: span.start] + naive + page.text[span.end :]
    assert active_findings(text, baseline=page.text)


def test_escaped_json_is_inert(page: Document) -> None:
    safe = page.with_block("oo-manifest", {"title": payload("json-script-close").text})
    assert active_findings(safe.text, baseline=page.text) == []


def test_detector_sees_a_raw_terminator_line_run_by_bash(page: Document, tmp_path: Path) -> None:
    raw = tmp_path / "raw.o-o.html"
    raw.write_text(_inject_article(page, payload("heredoc-terminator").text), "utf-8")
    assert shell_findings(raw) == ["bash created pwned-heredoc-terminator"]
    neutralised = tmp_path / "safe.o-o.html"
    neutralised.write_bytes(
        page.with_article(page.article_html + payload("heredoc-terminator").text).to_bytes()
    )
    assert shell_findings(neutralised) == []
