"""The page policy of migrated and synced pages, enforced in Chromium.

An image pointing at a beacon on a loopback HTTP server is injected into a page (as a hand edit
or a hostile tool would write it): into each original document after `oo sync --migrate`, into
the marker-layout original after a plain `oo sync`, into the early index after its migration.
Chromium must not ask the beacon for any of them. Controls: the same image in the original
pages, before oo_nb touched them, does reach the beacon (their policy meta lands in <body>
and is ignored), so the beacon and the wait are real.
"""

from __future__ import annotations

import contextlib
import io
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from oo_nb.cli.main import main as oo_main
from oo_nb.format.document import Document
from tests.browser.conftest import Probe, wait_js
from tests.browser.pages import corpus_copy, png_bytes
from tests.conftest import ALL_NAMES

_PIXEL = png_bytes(4, 4)


class Beacon:
    """A loopback HTTP server that answers every GET with a small PNG and records its path."""

    def __init__(self) -> None:
        hits: list[str] = []
        self.hits = hits

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(_PIXEL)))
                self.end_headers()
                self.wfile.write(_PIXEL)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def beacon() -> Iterator[Beacon]:
    b = Beacon()
    yield b
    b.close()


def _oo(*args: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = oo_main(list(args))
    assert code == 0, out.getvalue()


def inject(path: Path, src: str) -> None:
    """Write an external image into the page, raw: into the article of a document, into the
    INDEX-CONTENT region of an index page."""
    doc = Document.read(path)
    tag = f'<p><img id="beacon-img" src="{src}" alt="beacon"></p>\n'
    if doc.kind == "document":
        path.write_bytes(doc.with_article(doc.article_html + tag).to_bytes())
        return
    text = path.read_text()
    marker = "<!-- INDEX-CONTENT-START -->"
    assert marker in text
    path.write_text(text.replace(marker, marker + "\n" + tag, 1))


def opened(open_page: Callable[..., Probe], beacon: Beacon, path: Path) -> Probe:
    """Open ``path`` with the beacon reachable; return once the image has loaded or failed.

    The page's ``window.stop()`` at its rendering boundary may cancel the image's load while it
    is in flight (it does on some pages, not others): a copy of the image made once the page is
    complete asks again, under the same policy, so the control cannot pass by luck."""
    probe = open_page(allow=(beacon.url,))
    probe.open(path)
    probe.page.evaluate(
        """() => { const i = document.getElementById('beacon-img');
                   const c = i.cloneNode(); c.id = 'beacon-img-2'; c.src = i.src + '?again';
                   i.after(c); }"""
    )
    wait_js(
        probe.page,
        "() => ['beacon-img', 'beacon-img-2'].every(id => document.getElementById(id).complete)",
        timeout_ms=15_000,
    )
    return probe


def _hits(beacon: Beacon, name: str) -> list[str]:
    return [h for h in beacon.hits if h.startswith(f"/{name}/")]


@pytest.mark.parametrize("name", ALL_NAMES)
def test_control_the_original_page_calls_the_beacon(
    name: str, tmp_path: Path, open_page: Callable[..., Probe], beacon: Beacon
) -> None:
    path = corpus_copy(name, tmp_path / "lib")
    inject(path, f"{beacon.url}/control-{name}/pixel.png")
    probe = opened(open_page, beacon, path)
    assert _hits(beacon, f"control-{name}"), f"{name}: the original page did not load the image"
    assert probe.page.evaluate("document.getElementById('beacon-img-2').naturalWidth") == 4


@pytest.mark.parametrize("name", ALL_NAMES)
def test_migrated_and_synced_pages_block_the_beacon(
    name: str, tmp_path: Path, open_page: Callable[..., Probe], beacon: Beacon
) -> None:
    path = corpus_copy(name, tmp_path / "lib")
    early = Document.read(path).layout == "early"
    if early:
        _oo("sync", str(path.parent), "--migrate")
    else:
        _oo("sync", str(path.parent))
    inject(path, f"{beacon.url}/{name}/pixel.png")
    probe = opened(open_page, beacon, path)
    page = probe.page
    assert page.evaluate(
        "[...document.head.querySelectorAll('meta[http-equiv=\"Content-Security-Policy\"]')]"
        ".some(m => m.content.includes(\"default-src 'none'\"))"
    ), name
    assert page.evaluate("document.getElementById('beacon-img-2').naturalWidth") == 0
    assert _hits(beacon, name) == [], f"{name} ({'migrated' if early else 'synced'}) loaded it"
    # refused by the policy (not merely cancelled): Chromium says so for the image
    refused = [
        c for c in probe.console if "Content Security Policy directive" in c and beacon.url in c
    ]
    assert refused, probe.console


_ORIGINAL_META = (
    "<meta content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\" "
    'http-equiv="Content-Security-Policy"/>'
)


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("comment", "ai-model-landscape.o-o.html"),  # early: --migrate
        ("title", "ai-model-landscape.o-o.html"),
        ("comment", "agi-declared.o-o.html"),  # marker layout: plain sync
        ("title", "agi-declared.o-o.html"),
    ],
)
def test_a_policy_meta_commented_out_or_in_the_title_still_gets_an_enforced_policy(
    kind: str, name: str, tmp_path: Path, open_page: Callable[..., Probe], beacon: Beacon
) -> None:
    """An original whose policy meta was commented out (or sits in its title as text): the
    bootstrap went inside that comment or title, never ran, and the synced page loaded an
    external image."""
    path = corpus_copy(name, tmp_path / "lib")
    text = path.read_text()
    assert _ORIGINAL_META in text
    if kind == "comment":
        text = text.replace(_ORIGINAL_META, f"<!-- {_ORIGINAL_META} -->", 1)
    else:
        text = text.replace(_ORIGINAL_META + "\n", "", 1).replace(
            "<title>", f"<title>{_ORIGINAL_META} ", 1
        )
    path.write_text(text)
    _oo("sync", str(path.parent), *(["--migrate"] if Document(text).layout == "early" else []))
    tag = f"odd-{kind}-{name}"
    inject(path, f"{beacon.url}/{tag}/pixel.png")
    probe = opened(open_page, beacon, path)
    assert probe.page.evaluate("document.getElementById('beacon-img-2').naturalWidth") == 0
    assert _hits(beacon, tag) == [], f"{name} with its policy meta in a {kind} loaded it"
