"""Hostile content stays inert in a real browser and in bash.

For every payload of ``tests.support.payloads`` (one test each), a library folder is built the way
a user builds one: ``oo new`` with the payload in the title, scope, audience, tone and sentinel
event; ``oo contract --add`` with it in the intents and required sections; an update through the
real agent pipeline (loopback mock → ``submit_proposal`` → sanitised candidate → store) with it in
the summary, a section heading and its HTML, a source title (and URL for URL payloads), a fact,
an image caption and the sentinel evidence; then ``oo index``. Chromium opens the document and the
index, the test opens the contract panel, toggles the theme, searches and sorts, and then checks:
no dialog, no canary (``window.ooPwned``) in any frame, no request leaving the machine, no popup
or navigation, nothing live in the DOM that a clean page does not have, and the page script
still did its work. ``bash DOC --help`` must print our usage and create nothing.

The controls at the end inject the same payloads raw (the way the original o-o did) and show that
these checks fire — so a payload that executes fails its test."""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from oo_nb.format.document import Document
from oo_nb.format.vocab import UNSAFE_CHARS
from oo_nb.store import store
from tests.browser.conftest import Probe
from tests.browser.pages import agent_update, new_document, oo
from tests.support.payloads import BEACON_HOST, CANARY, PAYLOADS, Payload, payload, shell_findings

# Everything in the live DOM (after the page script ran) that can act: what a clean page has is
# subtracted, the rest is a finding.
LIVE_SIGNATURE = r"""() => {
  const out = [];
  const active = new Set(['script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form',
    'base', 'link', 'meta', 'style', 'svg', 'math', 'template', 'noscript', 'portal', 'input', 'button',
    'textarea', 'select', 'video', 'audio', 'source', 'details', 'dialog', 'marquee']);
  const urlAttrs = new Set(['href', 'action', 'formaction', 'xlink:href', 'cite']);
  // fetched by the browser on its own: anything but a raster data: image calls home
  const resourceAttrs = new Set(['src', 'srcset', 'imagesrcset', 'poster', 'background', 'data', 'ping',
    'codebase', 'lowsrc', 'dynsrc', 'manifest', 'archive']);
  const hrefLoads = new Set(['link', 'image', 'use', 'feimage']);
  const raster = /^data:image\/(png|jpeg|gif|webp);base64,/;
  const clean = v => v.replace(/[\x00-\x20\x7f]/g, '').toLowerCase();
  // srcset URLs run to whitespace (a data: URI's commas do not split it)
  const srcsetUrls = v => v.split(/\s+/).filter(t => t && !/^\d+(\.\d+)?[wx],?$/.test(t) && t !== ',')
    .map(t => t.replace(/^,+|,+$/g, ''));
  const cssLoads = /url\s*\(|@import|expression\s*\(|image-set/i;
  // the page's own ids: a second element with one of them shadows the real one (DOM clobbering)
  const own = new Set(['article', 'doc-title', 'doc-asof', 'doc-version', 'contract-panel', 'toc', 'run-meta',
    'references', 'card-grid', 'doc-count', 'last-scan', 'search-input', 'oo-manifest', 'oo-contract',
    'oo-source-cache', 'oo-changelog']);
  for (const el of document.querySelectorAll('*')) {
    const tag = el.localName;
    if (own.has(el.id)) out.push(`page id #${el.id}`);
    if (active.has(tag)) out.push(`<${tag}> ${el.id || el.className || ''}`.trim());
    for (const a of el.attributes) {
      const n = a.name.toLowerCase();
      if (n.startsWith('on')) out.push(`handler ${tag}[${n}]`);
      else if (n.startsWith('data-commandlinker')) out.push(`JupyterLab command ${tag}[${n}]`);
      else if (n === 'srcdoc') out.push(`${tag}[srcdoc]`);
      // the style as the browser parsed it too: CSS escapes (u\72 l) resolved
      else if (n === 'style' && (cssLoads.test(a.value) || cssLoads.test(el.style ? el.style.cssText : '')))
        out.push(`CSS load ${tag}[style]`);
      else if (resourceAttrs.has(n) || ((n === 'href' || n === 'xlink:href') && hrefLoads.has(tag))) {
        const urls = (n === 'srcset' || n === 'imagesrcset') ? srcsetUrls(a.value) : [a.value];
        if (urls.some(u => clean(u) && !raster.test(clean(u)))) out.push(`resource load ${tag}[${n}]`);
      }
      else if (urlAttrs.has(n)) {
        const v = clean(a.value);
        if (/^(javascript|vbscript|livescript|data):/.test(v) && !raster.test(v)) out.push(`active URL ${tag}[${n}]`);
      }
    }
  }
  return out;
}"""
CANARY_JS = f"() => typeof window.{CANARY} === 'undefined' ? null : String(window.{CANARY})"


def _rewrite(text: str, context: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Put the payload everywhere the model writes."""

    def rewrite(proposal: dict[str, Any]) -> dict[str, Any]:
        source = proposal["sources"][0]
        proposal["summary"] = text
        section = proposal["sections"][0]
        section["title"] = text
        section["html"] = (
            f"<p>Before {text} after [{source['id']}]</p>\n{text}\n<h3>{text}</h3><p>{text}</p>"
        )
        source["title"] = text
        if context == "url":
            source["url"] = text
        for fact in proposal.get("facts", []):
            fact["text"] = text
        for image in proposal.get("images", []):
            image["caption"] = text
            image["alt"] = text
        if proposal.get("sentinel"):
            proposal["sentinel"]["evidence"] = text
        return proposal

    return rewrite


def build_library(folder: Path, text: str, context: str = "text") -> Path:
    """A library folder holding one document carrying ``text`` everywhere, and its index."""
    path = new_document(
        folder,
        f"{text} / scope {text}",
        f"--audience={text}",
        f"--tone={text}",
        f"--sentinel={text}",
    )
    if UNSAFE_CHARS.search(text) is None:
        oo("contract", str(path), "--add", "intent", text)
        oo("contract", str(path), "--add", "section", text)
        oo("contract", str(path), "--set", "subject", text)
    else:  # the editor refuses it: planted as a library from elsewhere would carry it
        _plant_in_contract(path, text)
    agent_update(path, _rewrite(text, context))
    oo("index", str(folder))
    return path


def _plant_in_contract(path: Path, text: str) -> None:
    """``text`` in the intents, required sections and subject, written into the contract block
    directly, after ``oo contract`` refused it naming the field (control, bidi or separator
    characters: what the editor never writes and a document from elsewhere may hold)."""
    with pytest.raises(AssertionError, match="intent"):
        oo("contract", str(path), "--add", "intent", text)
    base = path.read_bytes()

    def plant(contract: dict[str, Any]) -> None:
        contract["research"]["intents"].append(text)
        contract["research"]["required_sections"].append(text)
        contract["identity"]["subject"] = text

    doc = Document.parse(base, path=path).edit_block("oo-contract", plant)
    store.write_document(doc, expected=base, action="contract")


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> dict[str, Counter[str]]:
    """The live signature of a clean document and index, built the same way."""
    folder = tmp_path_factory.mktemp("clean")
    path = build_library(folder, "A plain title with nothing in it")
    signatures = {}
    for key, target in (("document", path), ("index", folder / "index.o-o.html")):
        ctx = browser.new_context()
        page = ctx.new_page()
        probe = Probe(ctx, page)
        probe.open(target)
        assert _exercise(page, key) == []
        signatures[key] = Counter(page.evaluate(LIVE_SIGNATURE))
        ctx.close()
    return signatures


# What a reader does, as DOM events (one round trip instead of a dozen actionability waits):
# open the contract panel, follow the last TOC entry and a citation, search and sort the index,
# switch the theme.
EXERCISE = """kind => {
  const click = sel => { const el = document.querySelector(sel); if (el) el.click(); };
  if (kind === 'document') {
    click('.version-badge');
    const toc = document.querySelectorAll('#toc a');
    if (toc.length) toc[toc.length - 1].click();
    click('#article a.cite');
  } else {
    const search = document.getElementById('search-input');
    if (search) {
      search.value = 'scope';
      search.dispatchEvent(new Event('input', {bubbles: true}));
      search.value = '';
      search.dispatchEvent(new Event('input', {bubbles: true}));
    }
    document.querySelectorAll('th.sortable').forEach(th => th.click());
  }
  click('button.theme-toggle');
}"""


# Instead of a fixed pause: wait until every image has loaded or failed (its error handler has
# then run) and no media element is still fetching, then two rendering frames (autofocus, toggle
# events) and one more task. False if that never happens: a finding, not a silent pass.
SETTLE = """async () => {
  const later = ms => new Promise(r => setTimeout(r, ms));
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  const busy = () => [...document.images].some(i => !i.complete)
    || [...document.querySelectorAll('video, audio')].some(m => m.networkState === HTMLMediaElement.NETWORK_LOADING);
  const deadline = performance.now() + 15000;
  while (busy()) { if (performance.now() > deadline) return false; await later(10); }
  await frame(); await frame(); await later(0);
  return true;
}"""


def _exercise(page: Any, kind: str) -> list[str]:
    page.evaluate(EXERCISE, kind)
    return [] if page.evaluate(SETTLE) else ["page still loading images or media after 15 s"]


def inspect(probe: Probe, target: Path, kind: str, clean: Counter[str] | None) -> list[str]:
    """Open ``target``, act like a reader, and list every sign that something ran or loaded."""
    probe.reset()
    page = probe.open(target)
    findings: list[str] = _exercise(page, kind)
    # Only the main frame is asked: a payload in a frame writes to its parent (and any frame at
    # all is a finding below); evaluating inside a hostile frame can block forever.
    value = page.evaluate(CANARY_JS)
    if value is not None:
        findings.append(f"canary set: window.{CANARY} = {value!r}")
    if len(page.frames) > 1:
        findings.append(f"frames: {[f.url for f in page.frames[1:]]}")
    findings += [f"dialog {d}" for d in probe.dialogs]
    findings += [f"network request {u}" for u in dict.fromkeys(probe.network_requests)]
    findings += [f"popup {u}" for u in probe.popups]
    own = target.resolve().as_uri()
    findings += [f"navigated to {u}" for u in probe.navigations if u.split("#")[0] != own]
    if page.url.split("#")[0] != own:
        findings.append(f"page left for {page.url}")
    if clean is not None:
        extra = Counter(page.evaluate(LIVE_SIGNATURE)) - clean
        findings += [f"live in the DOM: {k}" for k in sorted(extra)]
    findings += [f"page error: {e}" for e in probe.errors]
    return findings


def _shell(path: Path, tmp_path: Path) -> list[str]:
    """``bash DOC --help`` in an empty folder: only our usage text, nothing created."""
    work = tmp_path / "shell-cwd"
    work.mkdir(exist_ok=True)
    before = {p for p in path.parent.rglob("*")}
    run = subprocess.run(
        ["bash", str(path), "--help"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    problems = []
    if run.returncode != 0 or not run.stdout.startswith("Usage: bash "):
        problems.append(
            f"bash --help: exit {run.returncode}, {run.stdout[:200]!r} {run.stderr[:300]!r}"
        )
    created = [*work.iterdir(), *({p for p in path.parent.rglob("*")} - before)]
    problems += [f"bash created {p}" for p in created]
    return problems + shell_findings(path)


@pytest.mark.parametrize("name", [p.name for p in PAYLOADS])
def test_payload_stays_inert(
    name: str,
    tmp_path: Path,
    open_page: Callable[..., Probe],
    clean: dict[str, Counter[str]],
    artifacts: Path,
) -> None:
    p: Payload = payload(name)
    folder = tmp_path / "library"
    path = build_library(folder, p.text, p.context)
    doc = Document.read(path)

    probe = open_page()
    findings = [f"document: {f}" for f in inspect(probe, path, "document", clean["document"])]
    page = probe.page
    if findings:
        probe.screenshot(artifacts, f"hostile-{name}")
    # the page still works and shows the values as text: the payload is there, as text
    title = page.locator("#doc-title").evaluate("e => e.textContent")
    assert title == doc.manifest.title
    assert " ".join(p.text.split()) in " ".join(title.split()), "the payload did not reach the page"
    assert page.locator("#run-meta").evaluate("e => e.textContent").strip(), (
        "the page script did not finish"
    )
    headings = page.locator("#article h2, #article h3").count()
    assert page.locator("#toc a").count() == headings >= 1, "no table of contents"
    panel = page.locator("#contract-panel")
    if not panel.is_visible():
        page.locator(".version-badge").click()
    shown = panel.evaluate("e => e.textContent")
    identity = doc.block_json("oo-contract")["identity"]
    for key in ("subject", "scope", "audience", "tone"):
        assert identity[key] in shown, f"contract {key} not shown literally"

    findings += [
        f"index: {f}" for f in inspect(probe, folder / "index.o-o.html", "index", clean["index"])
    ]
    findings += _shell(path, tmp_path)
    findings += [f"index {f}" for f in _shell(folder / "index.o-o.html", tmp_path)]
    assert findings == [], f"payload {name!r} is not inert:\n" + "\n".join(findings)


# --------------------------------------------------------------------------- controls
def _raw_page(folder: Path, name: str, body: str) -> Path:
    """A polyglot page with ``body`` pasted in unescaped, as the original o-o did."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.o-o.html"
    path.write_text(
        "#!/usr/bin/env bash\n: << 'OO_HTML'\n<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f'<title>raw</title></head><body><article id="article">\n{body}\n</article>\n'
        "<script>window.stop();</script></body></html>\nOO_HTML\necho usage\nexit 0\n"
    )
    return path


CONTROLS = [p.name for p in PAYLOADS if p.context == "html"] + [
    "text-html-tags",
    "json-script-close",
]


@pytest.mark.parametrize("name", CONTROLS)
def test_control_raw_payload_is_detected(
    name: str, tmp_path: Path, open_page: Callable[..., Probe]
) -> None:
    """The same checks on a page where the payload was NOT escaped: they must fire."""
    probe = open_page()
    probe.open(_raw_page(tmp_path, "baseline", "<p>nothing</p>"))
    clean = Counter(probe.page.evaluate(LIVE_SIGNATURE))
    hostile = _raw_page(tmp_path, name, payload(name).text)
    assert inspect(probe, hostile, "document", clean), f"{name}: raw injection went unnoticed"


# Plain resource loads: nothing runs, the page only calls home.
BEACONS = [
    "img-beacon", "img-srcset", "picture-source-srcset", "video-poster", "table-background",
    "input-image", "link-prefetch", "css-url-attr", "css-url-escaped", "script-src", "object-data",
]  # fmt: skip


@pytest.mark.parametrize("name", BEACONS)
def test_control_raw_beacon_is_requested(
    name: str, tmp_path: Path, open_page: Callable[..., Probe]
) -> None:
    """Pasted raw, each beacon payload makes Chromium ask the beacon host, and the recorder sees
    it: the "no network request" check of ``test_payload_stays_inert`` can fail for them."""
    found = inspect(open_page(), _raw_page(tmp_path, name, payload(name).text), "document", None)
    assert any(f.startswith("network request") and BEACON_HOST in f for f in found), found


def test_control_canary_and_network_are_seen(
    tmp_path: Path, open_page: Callable[..., Probe]
) -> None:
    body = (
        f"<img src=x onerror=\"window.{CANARY}='img'\">"
        '<img src="https://oo-beacon.invalid/b.png"><script>alert("x")</script>'
    )
    found = inspect(open_page(), _raw_page(tmp_path, "controls", body), "document", None)
    assert any(f.startswith("canary set") for f in found), found
    assert any("oo-beacon.invalid" in f for f in found), found
    assert any(f.startswith("dialog") for f in found), found


def test_control_shell_injection_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "lib" / "x.o-o.html"
    path.parent.mkdir()
    path.write_text(
        ": << 'OO_HTML'\n<p>x</p>\nOO_HTML\ntouch pwned-control\necho 'Usage: bash x'\n"
    )
    assert _shell(path, tmp_path)
