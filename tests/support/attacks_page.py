"""Reliability part 8 (attacks, round two): the page attacks. Each row counts the breaks found.

Issue 17, item 1: on a page still running the original o-o page script, text that script turns
into markup (``oo_nb.format.legacy_script`` lists its sinks) must not carry ``<``, ``>`` or a
reference that decodes to one, whoever writes it through oo_nb. Over every corpus document that
runs the original script:

- an agent update through the loopback mock puts a payload into every heading level, the section
  title and paragraph attributes; a break is a heading (any level) or a sink that still carries
  markup in the written file, or an update that did not write;
- ``oo contract`` is asked to put markup into every value the contract panel shows; a break is an
  edit that was accepted (exit 0 or a changed file);
- the same payloads written straight into every sink (a hand edit): a break is a sink that
  ``oo check`` or the library audit's digest does not report.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from lxml import html as lxml_html

from tests.support.figures import Figure

__all__ = ["attacks"]

PART = "8 attack"
# Where sink_proposal puts a payload: the title, h2 (made h3), h3 x3, h4, h5, h6, and three
# attributes in a paragraph (a link's href and title, an abbr's title).
UPDATE_PLACEMENTS = 11
CONTRACT_VALUES = ["<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;", "a > b"]
# Every sink, written raw: what check/audit must each report.
RAW_SINKS = {
    "contract subject",
    "contract scope",
    "contract audience",
    "contract tone",
    "contract intents[0]",
    "contract required_sections[0]",
    "heading #raw-h2",
    "heading #raw-h3",
    "attribute title= in a paragraph",
}


def attacks(workdir: Path) -> list[Figure]:
    from oo_nb.format.document import Document
    from oo_nb.format.legacy_script import runs_original_script
    from tests.conftest import CORPUS, DOC_NAMES

    names = [n for n in DOC_NAMES if runs_original_script(Document.read(CORPUS / n))]
    copies = {}
    for name in names:
        folder = workdir / "corpus"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CORPUS / name, folder / name)
        copies[name] = folder / name
    return [
        _updates(workdir / "update", copies),
        _contract_edits(workdir / "contract", copies),
        _reports(workdir / "check", copies),
    ]


def _fresh(source: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    shutil.copyfile(source, target)
    return target


# --------------------------------------------------------------------------- agent updates
def _update(path: Path, rewrite: Callable[[dict[str, Any]], dict[str, Any]]) -> bool:
    """One update through the loopback mock, written with "accept all"; whether it was."""
    from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
    from oo_nb.errors import OOError
    from tests.support.mock_api import MockAPI
    from tests.support.mock_scenarios import research_scenario

    key = "sk-ant-test-ATTACKPAGE"
    mock = MockAPI(api_key=key)
    mock.responder = research_scenario(base_url=lambda: mock.base_url, proposal=rewrite)
    try:
        with mock:
            opts = UpdateOptions(
                force=True,
                agent="anthropic",
                base_url=mock.base_url,
                api_key=key,
                today=date(2026, 3, 1),
                download_images=False,
            )
            result = prepare_update(path, opts)
            if result.status != "proposed":
                return False
            return write_result(result, yes=True).written is not None
    except OOError:
        return False


def _marked_up(path: Path) -> int:
    """Headings of every level and original-script sinks that still carry markup."""
    from oo_nb.format.document import Document
    from oo_nb.format.legacy_script import carries_markup, injection_risks

    doc = Document.read(path)
    root = lxml_html.fragment_fromstring(doc.article_html, create_parent="div")
    levels = ("h1", "h2", "h3", "h4", "h5", "h6")
    headings = sum(carries_markup("".join(h.itertext())) for h in root.iter(*levels))
    others = [r for r in injection_risks(doc) if not r.where.startswith("heading #")]
    return headings + len(others)


def _updates(workdir: Path, copies: dict[str, Path]) -> Figure:
    from tests.support.original_script import ACTIONS, sink_proposal

    breaks = trials = 0
    for i, (name, source) in enumerate(copies.items()):
        path = _fresh(source, workdir / name.removesuffix(".o-o.html"))
        action = list(ACTIONS)[i % len(ACTIONS)]
        trials += UPDATE_PLACEMENTS
        if not _update(path, sink_proposal(action)):
            breaks += UPDATE_PLACEMENTS  # nothing written: nothing shown to be inert
            continue
        breaks += _marked_up(path)
    return Figure(
        PART,
        "original-script sinks carrying markup after an update",
        trials,
        breaks,
        "0",
        breaks == 0,
    )


# --------------------------------------------------------------------------- contract edits
def _oo(*args: str) -> int:
    from oo_nb.cli.main import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(args))


def _contract_edits(workdir: Path, copies: dict[str, Path]) -> Figure:
    from tests.support.original_script import SHOWN_CONTRACT_EDITS

    breaks = trials = 0
    for name, source in copies.items():
        path = _fresh(source, workdir / name.removesuffix(".o-o.html"))
        before = path.read_bytes()
        for op, key in SHOWN_CONTRACT_EDITS:
            for value in CONTRACT_VALUES:
                trials += 1
                code = _oo("contract", str(path), op, key, value)
                if code == 0 or path.read_bytes() != before:
                    breaks += 1
                    path.write_bytes(before)
    return Figure(
        PART,
        "contract edits with markup accepted on original pages",
        trials,
        breaks,
        "0",
        breaks == 0,
    )


# --------------------------------------------------------------------------- check and audit
def _raw_sinks(path: Path) -> None:
    from oo_nb.format.document import Document

    markup = CONTRACT_VALUES[0]
    doc = Document.read(path)

    def contract(c: dict[str, Any]) -> None:
        c["identity"].update(subject=markup, scope=markup, audience=markup, tone=markup)
        c["research"].update(intents=[markup], required_sections=[markup])

    escaped = markup.replace("<", "&lt;").replace(">", "&gt;")
    doc = doc.edit_block("oo-contract", contract).with_article(
        doc.article_html
        + f'<h2 id="raw-h2">{escaped}</h2>\n<div><h3 id="raw-h3">{escaped}</h3></div>\n'
        + '<p>Raw <abbr title="[s1] x">y</abbr>.</p>\n'
    )
    path.write_bytes(doc.to_bytes())


def _reports(workdir: Path, copies: dict[str, Path]) -> Figure:
    from oo_nb.format.check import check_path
    from oo_nb.format.document import Document
    from oo_nb.library.digest import digest_document

    breaks = trials = 0
    for name, source in copies.items():
        path = _fresh(source, workdir / name.removesuffix(".o-o.html"))
        _raw_sinks(path)
        checked = " ".join(f.message for f in check_path(path) if f.code == "html-injection")
        digest = digest_document(Document.read(path), slug="x", nbytes=0)
        audited = {r.where for r in digest.injection_risks}
        for sink in sorted(RAW_SINKS):
            trials += 2
            breaks += (f"{sink} " not in checked) + (sink not in audited)
    return Figure(
        PART,
        "original-script sinks written raw that check or audit miss",
        trials,
        breaks,
        "0",
        breaks == 0,
    )
