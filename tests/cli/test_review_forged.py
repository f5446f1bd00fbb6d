"""Issue 17, item 2: a hand-written ``pending.json`` shown as one harmless heading edit must not
get a ``touch`` into the shell, ``<script>`` into the article or a budget of 999 into the
contract. Older files (a whole candidate) are refused naming what goes beyond an update;
current files are rebuilt through the agent's validation and sanitiser. Every forgery on every
corpus document and on a page ``oo new`` made: nothing hostile written, ``bash DOC --help``
creates no file, and ``oo check`` stays quiet about the page code."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

from oo_nb.agent.pending import ProposalRefused, open_review
from oo_nb.cli.main import main
from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from oo_nb.store.store import history_dir
from tests.conftest import CORPUS
from tests.support.agent_helpers import DOCS
from tests.support.forged_pending import (
    FORGERIES,
    bash_help_creates,
    forge,
    hostile_left,
)

NEW = "new"  # a page `oo new` made


def _document(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if name == NEW:
        assert (
            main(["new", "Tidal power / costs and projects", "--dir", str(folder), "--no-update"])
            == 0
        )
        return next(folder.glob("*.o-o.html"))
    target = folder / name
    shutil.copyfile(CORPUS / name, target)
    target.chmod(0o755)
    return target


@pytest.mark.parametrize("name", [*DOCS, NEW])
@pytest.mark.parametrize("kind", FORGERIES)
def test_a_forged_pending_file_writes_nothing_hostile(
    kind: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _document(tmp_path, name)
    capsys.readouterr()
    original = Document.read(path)
    forge(path, kind)
    code = main(["review", str(path), "--accept-all"])
    out = capsys.readouterr()
    written = Document.read(path)
    assert hostile_left(original, written) == []
    assert not bash_help_creates(path)
    assert not [f for f in check_path(path) if f.code == "unknown-page-code"]
    if kind == "proposal":  # rebuilt: the heading edit, sanitised; the rest ignored
        assert code == 0 and written.manifest.version == original.manifest.version + 1
        assert "<script" not in written.article_html.replace(
            "<script", "", original.article_html.count("<script")
        )
    else:  # an older file's candidate goes beyond an update: refused, nothing written
        assert code == 2 and path.read_bytes() == original.to_bytes()
        assert "saved proposal refused, nothing written" in out.err
        assert (history_dir(path) / "pending.json").exists()  # kept, and how to drop it is said
        assert "--discard pending.json" in out.err


@pytest.mark.parametrize(
    ("kind", "named"),
    [
        ("shell-tail", "the shell after the heredoc"),
        ("shell-header", "the shell header before the heredoc"),
        ("page-script", "the page outside the article and the JSON blocks"),
        ("article-script", "a <script> element"),
        ("budget", "oo-contract budget.max_cost_usd: 5.0 → 999"),
        ("contract", "oo-manifest title"),
    ],
)
def test_the_refusal_names_every_changed_region(kind: str, named: str, tmp_path: Path) -> None:
    path = _document(tmp_path, "agi-declared.o-o.html")
    forge(path, kind)
    with pytest.raises(ProposalRefused) as caught:
        open_review(path)
    assert named in str(caught.value)


def test_the_interactive_review_and_the_widget_refuse_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from oo_nb.notebook.review_widget import ReviewWidget

    path = _document(tmp_path, "yc-w26-batch.o-o.html")
    before = path.read_bytes()
    forge(path, "shell-tail")
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\ny\ny\ny\n"))
    assert main(["review", str(path)]) == 2
    assert "the shell after the heredoc" in capsys.readouterr().err
    with pytest.raises(ProposalRefused, match="the shell after the heredoc"):
        ReviewWidget.from_pending(path)
    assert path.read_bytes() == before and not bash_help_creates(path)


def test_the_widget_shows_a_rebuilt_forgery_sanitised(tmp_path: Path) -> None:
    from oo_nb.notebook.review_widget import ReviewWidget

    path = _document(tmp_path, "anthropic-leadership.o-o.html")
    original = Document.read(path)
    forge(path, "proposal")
    widget = ReviewWidget.from_pending(path)
    shown = widget.session.candidate
    assert hostile_left(original, shown) == []
    widget.accept_all_button.click()
    widget.write_button.click()
    assert widget.error.value == "" and hostile_left(original, Document.read(path)) == []


def test_the_outside_attack_as_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One file with all three (shown as one heading edit before): refused, each one named."""
    import json

    path = _document(tmp_path, "agi-declared.o-o.html")
    doc = Document.read(path)
    marker = tmp_path / "oo-forged-pwned"
    cand = doc.with_article(
        doc.article_html.replace("</h2>", " (updated)</h2>", 1) + "<script>alert(1)</script>\n"
    ).edit_block("oo-contract", lambda c: c["budget"].update(max_cost_usd=999))
    text = cand.text[: cand.terminator.end] + f"touch {marker}\n" + cand.text[cand.terminator.end :]
    pending = history_dir(path) / "pending.json"
    pending.parent.mkdir(parents=True, exist_ok=True)
    pending.write_text(
        json.dumps({"base_sha256": "0" * 64, "created": "", "run": {}, "candidate": text}), "utf-8"
    )
    assert main(["review", str(path), "--accept-all", "--force"]) == 2
    err = capsys.readouterr().err
    for named in (
        "the shell after the heredoc",
        "a <script> element",
        "budget.max_cost_usd: 5.0 → 999",
    ):
        assert named in err
    assert path.read_bytes() == doc.to_bytes() and not bash_help_creates(path)
