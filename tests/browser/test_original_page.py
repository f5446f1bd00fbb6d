"""Pages that still run the original o-o page script stay inert in Chromium.

The original script turns three kinds of document text into markup (``oo_nb.format.legacy_script``
lists them): h2/h3 text and ids in the table of contents, paragraphs re-parsed by the citation
pass, and the contract values in the panel. Each corpus document gets the original script's
behaviour back (``tests.support.original_script``; the corpus holds a stand-in), then:

- an agent update through the loopback mock writes a payload into every heading level, the section
  title and paragraph attributes, once per action (a dialog, a navigation, a request): Chromium
  opens the page, a reader opens the contract panel and follows the table of contents, and
  nothing happens;
- ``oo contract`` is asked to put each payload into each value the panel shows: it refuses, the
  file is unchanged, and the panel opens without a dialog, a navigation or a request;
- controls: the same payloads written straight into the file (as a hand edit or the original
  o-o would) DO fire in each sink, and ``oo check`` reports each one: the sinks are real and the
  watchers see them.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from oo_nb.cli.main import main as oo_main
from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from oo_nb.format.legacy_script import runs_original_script
from tests.browser.conftest import Probe
from tests.browser.pages import agent_update, corpus_copy
from tests.conftest import DOC_NAMES
from tests.support.original_script import (
    ACTIONS,
    SHOWN_CONTRACT_EDITS,
    sink_proposal,
    with_original_script,
)
from tests.support.payloads import BEACON_HOST

DOCS = [n for n in DOC_NAMES if n != "index.o-o.html"]

# A reader's page after the script ran: the TOC holds only its own links, no attribute was split
# by the citation pass (an attribute named like '#s1"' is the trace of one), the panel is open.
PAGE_STATE = """() => ({
  tocTags: [...document.querySelectorAll('#toc *')].map(e => e.localName)
    .filter(t => !['strong', 'br', 'a'].includes(t)),
  tocText: document.getElementById('toc').textContent,
  split: [...document.querySelectorAll('#article *')].flatMap(e => [...e.attributes])
    .map(a => a.name).filter(n => /["#]/.test(n)),
  panel: document.getElementById('contract-panel').textContent,
  panelTags: [...document.querySelectorAll('#contract-panel *')].map(e => e.localName)
    .filter(t => !['dl', 'dt', 'dd', 'span', 'em'].includes(t)),
})"""


def original_page(name: str, folder: Path) -> Path:
    path = with_original_script(corpus_copy(name, folder))
    assert runs_original_script(Document.read(path))
    return path


def read_as_reader(probe: Probe, path: Path) -> tuple[list[str], dict[str, Any]]:
    """Open ``path``, open the contract panel, follow the last TOC entry; what happened."""
    from playwright.sync_api import Error as PlaywrightError

    probe.reset()
    page = probe.page
    own = path.resolve().as_uri()
    found: list[str] = []
    state: dict[str, Any] = {
        "tocTags": [],
        "panelTags": [],
        "split": [],
        "tocText": "",
        "panel": "",
    }
    try:
        probe.open(path)
        page.evaluate(
            """() => {
              document.querySelector('.version-badge').click();
              const toc = document.querySelectorAll('#toc a');
              if (toc.length) toc[toc.length - 1].click();
            }"""
        )
        page.wait_for_timeout(150)  # an image's error handler runs after its failed load
        state = page.evaluate(PAGE_STATE)
    except PlaywrightError as exc:  # the page went away under the reader
        found.append(f"page left while being read: {exc.message.splitlines()[0]}")
    if page.url.split("#")[0] != own:
        found.append(f"page left for {page.url}")
    found += [f"dialog {d}" for d in probe.dialogs]
    found += [f"network request {u}" for u in dict.fromkeys(probe.network_requests)]
    found += [f"navigated to {u}" for u in probe.navigations if u.split("#")[0] != own]
    found += [f"popup {u}" for u in probe.popups]
    found += [f"page error: {e}" for e in probe.errors]
    found += [f"markup in the table of contents: <{t}>" for t in state["tocTags"]]
    found += [f"markup in the contract panel: <{t}>" for t in state["panelTags"]]
    found += [f"the citation pass split an attribute: {n}" for n in state["split"]]
    return found, state


def _oo(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = oo_main(list(args))
    return code, out.getvalue()


# --------------------------------------------------------------------------- agent output
@pytest.mark.parametrize("action", list(ACTIONS))
@pytest.mark.parametrize("name", DOCS)
def test_agent_output_stays_inert_under_the_original_script(
    name: str, action: str, tmp_path: Path, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    path = original_page(name, tmp_path / "lib")
    doc = agent_update(path, sink_proposal(action))
    assert runs_original_script(doc)
    probe = open_page()
    found, state = read_as_reader(probe, path)
    if found:
        probe.screenshot(artifacts, f"original-{action}-{name}")
    assert found == [], f"{name}, {action}:\n" + "\n".join(found)
    # the reader still sees what the agent wrote, with look-alike brackets
    assert "Named \u2039img" in state["tocText"] and "Prices \u2039 10" in state["tocText"]


# --------------------------------------------------------------------------- contract edits
@pytest.mark.parametrize("action", list(ACTIONS))
@pytest.mark.parametrize(("op", "key"), SHOWN_CONTRACT_EDITS)
def test_contract_edits_cannot_put_markup_in_the_panel(
    op: str, key: str, action: str, tmp_path: Path, open_page: Callable[..., Probe]
) -> None:
    path = original_page("ai-model-landscape.o-o.html", tmp_path / "lib")
    before = path.read_bytes()
    code, said = _oo("contract", str(path), op, key, f"Value {ACTIONS[action]}")
    assert code != 0 and "original o-o page script" in said and "--migrate" in said, said
    assert path.read_bytes() == before
    found, state = read_as_reader(open_page(), path)
    assert found == [], f"{op} {key}, {action}:\n" + "\n".join(found)
    assert state["panel"], "the contract panel did not open"


# --------------------------------------------------------------------------- controls
def _raw_everywhere(path: Path, markup: str) -> None:
    """Every sink, written straight into the file: what a hand edit (or the original o-o) does."""
    doc = Document.read(path)

    def contract(c: dict[str, Any]) -> None:
        for field in ("subject", "scope", "audience", "tone"):
            c["identity"][field] = markup.replace("alert(1)", f"alert('{field}')")
        for field in ("intents", "required_sections"):
            c["research"][field] = [markup.replace("alert(1)", f"alert('{field}')")]

    doc = doc.edit_block("oo-contract", contract)
    escaped = {level: markup.replace("alert(1)", f"alert('{level}')") for level in ("h2", "h3")}
    doc = doc.with_article(
        doc.article_html
        + f'<h2 id="raw-h2">{escaped["h2"].replace("<", "&lt;").replace(">", "&gt;")}</h2>\n'
        + f"<div><h3>{escaped['h3'].replace('<', '&lt;').replace('>', '&gt;')}</h3></div>\n"
        + '<p>Raw <abbr title="[s1] split">attribute</abbr>.</p>\n'
    )
    path.write_bytes(doc.to_bytes())


def test_control_each_sink_fires_when_written_raw(
    tmp_path: Path, open_page: Callable[..., Probe]
) -> None:
    """The stand-in script has the original's sinks and the checks above see them fire."""
    path = original_page("yc-w26-batch.o-o.html", tmp_path / "lib")
    _raw_everywhere(path, ACTIONS["dialog"])
    found, _ = read_as_reader(open_page(), path)
    fired = {f.removeprefix("dialog alert: ") for f in found if f.startswith("dialog")}
    assert fired == {
        "h2", "h3", "subject", "scope", "audience", "tone", "intents", "required_sections",
    }  # fmt: skip
    assert any(f.startswith("the citation pass split an attribute") for f in found), found
    reported = {
        f.message.split(" ")[0:2][1] for f in check_path(path) if f.code == "html-injection"
    }
    assert {"#raw-h2", "#", "subject", "scope", "audience", "tone", "intents[0]"} <= reported
    assert {"required_sections[0]", "title="} <= reported


@pytest.mark.parametrize("action", ["navigation", "request"])
def test_control_navigation_and_request_are_seen(
    action: str, tmp_path: Path, open_page: Callable[..., Probe]
) -> None:
    path = original_page("anthropic-leadership.o-o.html", tmp_path / "lib")
    _raw_everywhere(path, ACTIONS[action])
    found, _ = read_as_reader(open_page(), path)
    assert any(f.startswith("network request") and BEACON_HOST in f for f in found), found


def test_a_hardened_original_page_reads_naturally(
    tmp_path: Path, open_page: Callable[..., Probe], artifacts: Path
) -> None:
    """A screenshot for a human look (test-artifacts/original-hardened.png)."""
    path = original_page("anthropic-leadership.o-o.html", tmp_path / "lib")
    agent_update(path, sink_proposal("dialog"))
    probe = open_page(viewport={"width": 1000, "height": 900})
    found, _ = read_as_reader(probe, path)
    assert found == []
    page = probe.page
    page.evaluate(
        """() => [...document.querySelectorAll('#article h2')]
            .find(h => h.textContent.startsWith('Prices')).scrollIntoView()"""
    )
    shots = [artifacts / "original-hardened.png", artifacts / "original-hardened-toc.png"]
    page.screenshot(path=str(shots[0]))
    page.locator("#toc").screenshot(path=str(shots[1]))
    assert all(shot.stat().st_size > 0 for shot in shots)
