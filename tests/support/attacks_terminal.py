"""Reliability part 8 (attacks, round six): control and bidi characters (s34 findings 1, 2, 13).
Each row counts the breaks found.

- printed: a document whose paragraphs and changelog summary hold each payload (an erase-line
  escape, an OSC 8 link, an OSC title ended by BEL, C1 CSI, a right-to-left override, an isolate);
  ``oo review`` (answers piped, with and without colour), ``oo diff`` (plain, colour, JSON),
  ``oo history`` and ``oo show`` (plain, JSON). A break is a payload character in what a verb
  printed, on stdout or stderr;
- written: an update through the loopback mock whose paragraph holds every payload, raw and as
  character references; a break is one of them in the written article, or no warning naming it;
- already there: each payload in an article paragraph, an attribute value and the manifest's
  title; a break is ``oo check`` giving no ``unsafe-text`` finding.
"""

from __future__ import annotations

import io
import sys
import unittest.mock
from pathlib import Path
from typing import Any

from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from oo_nb.store import store
from tests.support.agent_helpers import copy_doc
from tests.support.attacks_errors import _mock, _scenario, oo
from tests.support.figures import Figure
from tests.support.tiny_docs import page, source, updated

__all__ = ["attacks"]

PART = "8 attack"
PAYLOADS = {
    "erase line": "\x1b[2K\x1b[1A",
    "OSC 8 link": "\x1b]8;;https://evil.example/\x1b\\",
    "OSC title": "\x1b]0;owned\x07",
    "C1 CSI": "\x9b2J",
    "right-to-left override": "\u202e",
    "isolate": "\u2066",
}
# what a terminal or a browser acts on (the rest of a payload is harmless text); the colours of
# `--color` are oo's own ESC[...m, none of these
_ACTIVE = ("\x1b[2K", "\x1b[1A", "\x1b]", "\x07", "\x9b", "\u202e", "\u2066")
# on the written version 2 first, then on the same change as a proposal (the file set back)
_VERBS = (
    ("diff", "--from", "1"),
    ("diff", "--from", "1", "--color"),
    ("diff", "--from", "1", "--json"),
    ("history",),
    ("show",),
    ("show", "--json"),
    ("review", "--reject-all"),
    ("review",),
    ("review", "--color"),
)


def _row(measure: str, trials: int, breaks: int) -> Figure:
    return Figure(PART, measure, trials, breaks, "0", breaks == 0)


def attacks(workdir: Path) -> list[Figure]:
    workdir.mkdir(parents=True, exist_ok=True)
    return [_printed(workdir / "printed"), _written(workdir / "written"), _checked(workdir)]


def _hostile_pair(payload: str) -> tuple[Document, Document]:
    old = page([("aaaaaaa1", "Tides rise [s1].")], [source(1)])
    new = updated(
        [("aaaaaaa1", f"Tides rise{payload} [s1]."), ("aaaaaaa2", f"A claim{payload} [s1].")],
        [source(1)],
        entry={"summary": f"Second{payload}."},
    )
    return old, new


def _printed(folder: Path) -> Figure:
    trials = breaks = 0
    for n, payload in enumerate(PAYLOADS.values()):
        old, new = _hostile_pair(payload)
        path = folder / str(n) / "tides.o-o.html"
        path.parent.mkdir(parents=True)
        path.write_bytes(old.to_bytes())
        store.write_document(new, expected=old.to_bytes(), action="update", path=path)
        for verb in _VERBS:
            if verb[0] == "review":  # a proposal to review: the same change, not yet written
                path.write_bytes(old.to_bytes())
                store.save_pending(path, new, {"cost_usd": 0.01}, old.to_bytes())
            with unittest.mock.patch.object(sys, "stdin", io.StringIO("n\n" * 6)):
                o = oo(verb[0], str(path), *verb[1:])
            trials += 1
            breaks += any(c in o.out + o.err for c in _ACTIVE) or o.code != 0
    return _row(
        "control/bidi characters printed raw by review, diff, history, show", trials, breaks
    )


def _written(folder: Path) -> Figure:
    trials = breaks = 0
    for n, spelled in enumerate(("raw", "references")):
        text = "".join(PAYLOADS.values())
        if spelled == "references":
            text = "".join(f"&#x{ord(c):x};" for c in text)

        def hostile(p: dict[str, object], text: str = text) -> dict[str, object]:
            sections = p["sections"]
            assert isinstance(sections, list)
            sections[0]["html"] = sections[0]["html"].replace("A new", f"A {text} new")
            return p

        path = copy_doc(folder / str(n))
        with _mock() as mock:
            mock.responder = _scenario(mock, hostile)
            o = oo("update", str(path), "--force", "--yes", "--base-url", mock.base_url)
        article = Document.read(path).article_html
        trials += 1
        breaks += (
            o.code != 0
            or any(c in article for c in _ACTIVE)
            or "&#x" in article
            or "\\u202e" not in o.out
        )
    return _row("control/bidi characters in agent HTML written into the article", trials, breaks)


def _checked(folder: Path) -> Figure:
    trials = breaks = 0
    for n, payload in enumerate(PAYLOADS.values()):
        base = page([("aaaaaaa1", "Tides rise [s1].")], [source(1)])

        def titled(manifest: dict[str, Any], payload: str = payload) -> None:
            manifest["title"] = f"Tides{payload}"

        for where, doc in (
            ("text", base.with_article(base.article_html + f"<p>Claim{payload}</p>\n")),
            ("attribute", base.with_article(base.article_html + f"<p title='{payload}'>x</p>\n")),
            ("title", base.edit_block("oo-manifest", titled)),
        ):
            path = folder / "checked" / f"{n}-{where}.o-o.html"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(doc.to_bytes())
            trials += 1
            breaks += not any(f.code == "unsafe-text" for f in check_path(path))
    return _row("control/bidi characters already in a document: oo check silent", trials, breaks)
