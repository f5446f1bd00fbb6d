"""Terminal review (y/n/e/a/d/q, editor, colours) and the `oo review` / `oo diff` verbs."""

from __future__ import annotations

import io
import json
import stat
import sys
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.review.diff import diff_documents
from oo_nb.review.session import ReviewSession
from oo_nb.review.terminal import render_diff, render_hunk, review_in_terminal
from oo_nb.store import store
from tests.conftest import corpus_file
from tests.support.review_samples import synthetic_candidate

NAME = "agi-declared.o-o.html"


@pytest.fixture
def doc_path(tmp_path: Path) -> Path:
    return corpus_file(NAME, tmp_path)


def _review(
    doc: Document, cand: Document, answers: str, **kw: object
) -> tuple[Document | None, str]:
    out = io.StringIO()
    final = review_in_terminal(doc, cand, {}, input=io.StringIO(answers), output=out, **kw)  # type: ignore[arg-type]
    return final, out.getvalue()


def _expected(doc: Document, cand: Document, decisions: dict[str, str]) -> bytes:
    session = ReviewSession(doc, cand)
    for hid, d in decisions.items():
        session.decide(hid, d)  # type: ignore[arg-type]
    return session.apply().to_bytes()


def test_answers_per_hunk(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    ids = [h.id for h in ReviewSession(doc, cand).diff.decidable]
    final, text = _review(doc, cand, "y\n?\nn\nn\ny\nn\n")
    assert final is not None
    decisions = dict(zip(ids, ["accept", "reject", "reject", "accept", "reject"], strict=True))
    assert final.to_bytes() == _expected(doc, cand, decisions)
    assert "q - quit without writing anything" in text  # the help
    assert "(5/5) accept this change [y,n,e,a,d,q,?]?" in text
    assert "base64" not in text and "[oo-image:1: png image" in text
    assert "cost $0.0421" in text.splitlines()[0]
    assert "accepted 2, edited 0, rejected 3: version 2 → 3" in text


def test_accept_rest_reject_rest_and_quit(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    final, _ = _review(doc, cand, "a\n")
    assert final is not None and final.to_bytes() == cand.to_bytes()
    final, text = _review(doc, cand, "n\nd\n")
    assert final is not None and final.to_bytes() == doc.to_bytes()
    assert "nothing accepted" in text
    final, text = _review(doc, cand, "y\nq\n")
    assert final is None and "quit: nothing written" in text
    final, _ = _review(doc, cand, "y\n")  # input ends before the last answer: like quitting
    assert final is None


def test_non_interactive(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    final, _ = _review(doc, cand, "", accept_all=True)
    assert final is not None and final.to_bytes() == cand.to_bytes()
    final, _ = _review(doc, cand, "", reject_all=True)
    assert final is not None and final.to_bytes() == doc.to_bytes()
    with pytest.raises(OOError):
        _review(doc, cand, "", accept_all=True, reject_all=True)


def test_edit_from_typed_lines(doc_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, new_id = synthetic_candidate(doc)
    # hunk 3 is the added paragraph: a refused edit (unknown source), then one whose <script>
    # is said to go before it is used ("y": use it without), typed as plain text
    answers = f"n\nn\ne\n<p>Bad [s99]</p>\n.\ne\nTyped here [{new_id}].\n<script>x</script>\n.\ny\nn\nn\nk\n"
    final, text = _review(doc, cand, answers)
    assert final is not None
    assert "edit refused" in text and "s99" in text
    assert "will be removed:\n  <script> with everything in it" in text
    assert f"<p>Typed here [{new_id}].</p>" in final.article_html
    assert f"Typed here [{new_id}]." in final.article_html and "<script>x" not in final.article_html
    # the new source was rejected, but the edit cites it: asked, and kept ("k")
    assert f"You rejected the new source {new_id}" in text
    assert new_id in [s.id for s in final.source_cache.sources]


def test_edit_with_an_editor(doc_path: Path, tmp_path: Path) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    script = tmp_path / "fake-editor.py"
    script.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('Revised in this update', 'Edited in the editor'))\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    final, _ = _review(doc, cand, "e\nd\n", editor=f"{sys.executable} {script}")
    assert final is not None
    assert "Edited in the editor with newer figures." in final.article_html
    assert final.manifest.version == doc.manifest.version + 1


def test_colours_and_plain_markers(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / NAME)
    cand, _ = synthetic_candidate(doc)
    diff = diff_documents(doc, cand)
    changed = next(h for h in diff.hunks if h.kind == "changed" and h.area == "article")
    plain = render_hunk(changed)
    assert (
        "\x1b[" not in plain
        and "policymakers. {+Revised in this update with newer figures.+}" in plain
    )
    coloured = render_hunk(changed, color=True)
    assert "\x1b[1;30;42m" in coloured and "\x1b[36m@@ a1 changed" in coloured
    source = render_hunk(diff.hunk(next(h.id for h in diff.hunks if h.area == "sources")))
    assert "+ url:" in source and "! unverified" in source
    whole = render_diff(diff)
    assert whole.index("updated to match the decisions above:") > whole.index("@@ a4")


# --------------------------------------------------------------------------- oo review / oo diff
def _save_proposal(path: Path) -> tuple[Document, Document]:
    doc = Document.read(path)
    cand, _ = synthetic_candidate(doc)
    store.save_pending(path, cand, {"cost_usd": 0.0421, "backend": "replay"}, doc.to_bytes())
    return doc, cand


def test_oo_review_accept_all_then_rollback(
    doc_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, cand = _save_proposal(doc_path)
    assert main(["review", str(doc_path), "--accept-all"]) == 0
    assert doc_path.read_bytes() == cand.to_bytes()
    assert "wrote version 3" in capsys.readouterr().out
    with pytest.raises(OOError):
        store.load_pending(doc_path)  # discarded
    assert main(["rollback", str(doc_path), "--to", "2"]) == 0
    assert doc_path.read_bytes() == doc.to_bytes()


def test_oo_review_reject_all_writes_nothing(
    doc_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = _save_proposal(doc_path)
    assert main(["review", str(doc_path), "--reject-all"]) == 0
    assert doc_path.read_bytes() == doc.to_bytes()
    assert (
        store.read_history(doc_path)[-1].snapshot is None and len(store.read_history(doc_path)) == 1
    )
    assert "nothing accepted" in capsys.readouterr().out


def test_oo_review_interactive(
    doc_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, cand = _save_proposal(doc_path)
    ids = [h.id for h in ReviewSession(doc, cand).diff.decidable]
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\nn\nq\n"))
    assert main(["review", str(doc_path)]) == 1  # quit: nothing written, proposal kept
    assert doc_path.read_bytes() == doc.to_bytes()
    assert store.load_pending(doc_path).candidate.to_bytes() == cand.to_bytes()
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\nn\nd\n"))
    assert main(["review", str(doc_path)]) == 0
    expected = _expected(doc, cand, {ids[0]: "accept"})
    assert doc_path.read_bytes() == expected
    capsys.readouterr()


def test_oo_review_refuses_a_stale_proposal(
    doc_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = _save_proposal(doc_path)
    changed = doc.edit_block("oo-manifest", lambda m: m.update(title="Changed meanwhile"))
    store.write_document(changed, expected=doc.to_bytes(), action="edit")
    assert main(["review", str(doc_path), "--accept-all"]) == 1
    assert "changed since this proposal was made" in capsys.readouterr().out
    assert doc_path.read_bytes() == changed.to_bytes()
    # An older file's candidate would undo the edit made since (the title): an update never
    # changes the title, so even --force does not write it (a rebuilt proposal would keep it).
    assert main(["review", str(doc_path), "--accept-all", "--force"]) == 2
    assert "oo-manifest title" in capsys.readouterr().err
    assert doc_path.read_bytes() == changed.to_bytes()


def test_oo_diff_between_versions(doc_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = Document.read(doc_path)
    cand, new_id = synthetic_candidate(doc)
    store.write_document(cand, expected=doc.to_bytes(), action="update")
    assert main(["diff", str(doc_path), "--from", "2", "--to", "3"]) == 0
    out = capsys.readouterr().out
    assert "v2 → v3" in out and f"source {new_id}" in out and "@@ a1 changed" in out
    assert "\x1b[" not in out and "base64" not in out
    assert main(["diff", str(doc_path), "--from", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["version_after"] == 3
    assert main(["diff", str(doc_path), "--from", "7"]) == 2
    assert "no version 7" in capsys.readouterr().err


_RUN = {
    "cost_usd": 0.93,
    "budget_usd": 0.5,
    "recorded": True,
    "overspent": True,
    "warnings": [
        "SENTINEL EVENT REPORTED AS OCCURRED — check the evidence before accepting: press release",
        "source s9 rejected (not https): http://example.org/x",
        "images[0] skipped: download failed (timeout)",
        "odd \x1b[31mcolour\x1b[0m escape",
    ],
}


def test_the_runs_warnings_show_in_a_later_review(
    doc_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    store.save_pending(doc_path, cand, _RUN, doc.to_bytes())
    assert main(["review", str(doc_path), "--reject-all"]) == 0
    out = capsys.readouterr().out
    head = out[: out.index("nothing accepted")]  # shown before the outcome, under the summary
    assert "RECORDED run (replayed from a cassette)" in head
    assert "kept for review: budget exceeded (spent $0.9300 of $0.50)" in head
    assert "SENTINEL EVENT REPORTED AS OCCURRED" in head
    assert "source s9 rejected" in head and "images[0] skipped" in head
    assert (
        "\x1b[31m" not in out and "odd  [31mcolour" in out
    )  # a saved file cannot colour the terminal
    # interactive: the warnings come before the first question
    _, text = _review(doc, cand, "q\n")
    assert "warnings" not in text  # no run given: nothing to warn about
    out2 = io.StringIO()
    review_in_terminal(doc, cand, _RUN, input=io.StringIO("q\n"), output=out2)
    assert out2.getvalue().index("SENTINEL EVENT") < out2.getvalue().index("accept this change")


def test_set_aside_proposals_list_and_pick(
    doc_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from oo_nb.store.proposals import list_proposals, pick_proposal, set_aside_pending

    doc, cand = _save_proposal(doc_path)
    assert set_aside_pending(doc_path) is not None
    older = next(history_dir_of(doc_path).glob("pending-*.json")).name
    other, _ = synthetic_candidate(doc)
    other = other.edit_block("oo-manifest", lambda m: m.update(title="Second proposal"))
    store.save_pending(doc_path, other, {"cost_usd": 0.5, "version": 3}, doc.to_bytes())
    found = list_proposals(doc_path)
    assert [p.name for p in found] == ["pending.json", older] and not any(p.stale for p in found)
    assert found[0].cost_usd == 0.5 and found[0].version == 3
    assert main(["review", str(doc_path), "--list"]) == 0
    assert "(the one `oo review` opens)" in capsys.readouterr().out
    for bad in ("../x.json", "pending.json", "pending-1/../../x.json"):
        with pytest.raises(OOError, match="not a set-aside proposal"):
            pick_proposal(doc_path, bad)
    with pytest.raises(OOError, match="no set-aside proposal"):
        pick_proposal(doc_path, "pending-1.json")
    assert main(["review", str(doc_path), "--pick", older, "--accept-all"]) == 0
    assert doc_path.read_bytes() == cand.to_bytes()  # the first proposal, not the second
    (swapped,) = list_proposals(doc_path)
    assert swapped.name != "pending.json" and swapped.stale  # the second one, set aside in turn
    capsys.readouterr()


def history_dir_of(path: Path) -> Path:
    return store.history_dir(path)


def test_set_aside_proposals_can_be_discarded(
    doc_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from oo_nb.store.proposals import discard_proposal, list_proposals, set_aside_pending

    doc, _ = _save_proposal(doc_path)
    assert set_aside_pending(doc_path) is not None
    other, _ = synthetic_candidate(doc)
    store.save_pending(doc_path, other, {"cost_usd": 0.25, "version": 3}, doc.to_bytes())
    assert set_aside_pending(doc_path) is not None
    names = [p.name for p in list_proposals(doc_path)]
    assert len(names) == 2 and "pending.json" not in names
    before = doc_path.read_bytes()
    capsys.readouterr()
    # only set-aside ones: plain `oo review` lists them with a hint and is not a failure
    assert main(["review", str(doc_path)]) == 0
    out = capsys.readouterr().out
    assert "no current proposal" in out and all(n in out for n in names)
    assert "--pick NAME" in out and "--discard NAME" in out
    # asking to accept everything when nothing is current is (nothing was accepted)
    assert main(["review", str(doc_path), "--accept-all"]) == 1
    assert "nothing written" in capsys.readouterr().out
    for bad in ("../x.json", "pending-1/../../x.json", "log.jsonl"):
        with pytest.raises(OOError, match="not a saved proposal name"):
            discard_proposal(doc_path, bad)
    with pytest.raises(OOError, match=r"no saved proposal pending-1\.json"):
        discard_proposal(doc_path, "pending-1.json")
    assert main(["review", str(doc_path), "--discard", *names]) == 0
    out = capsys.readouterr().out
    assert (
        all(f"discarded {n}" in out for n in names)
        and "$0.2500" in out
        and "0 saved proposal(s) left" in out
    )
    assert list_proposals(doc_path) == [] and doc_path.read_bytes() == before
    # nothing saved at all: still an error
    assert main(["review", str(doc_path)]) == 2
    # the current one can be discarded by name too
    store.save_pending(doc_path, other, {}, doc.to_bytes())
    assert main(["review", str(doc_path), "--discard", "pending.json"]) == 0
    assert list_proposals(doc_path) == []
    capsys.readouterr()


def test_stdin_closed_is_the_end_of_input(doc_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`oo review DOC <&-` (stdin closed, as a daemon runs): Python has no sys.stdin. That is
    the end of input, as for /dev/null (quit, nothing written), not an AttributeError."""
    doc = Document.read(doc_path)
    cand, _ = synthetic_candidate(doc)
    monkeypatch.setattr(sys, "stdin", None)
    out = io.StringIO()
    assert review_in_terminal(doc, cand, {}, output=out) is None
    assert "quit: nothing written" in out.getvalue()


def test_a_rejected_source_that_accepted_text_cites_is_asked_before_writing(
    doc_path: Path,
) -> None:
    doc = Document.read(doc_path)
    cand, new_id = synthetic_candidate(doc)
    # every change accepted but the new source: asked whether to keep it or drop its text
    final, text = _review(doc, cand, "y\ny\ny\ny\nn\nc\n")
    assert final is not None
    assert f"! You rejected the new source {new_id} (" in text
    assert text.index("keep the source or change the text") < text.index("accepted 3")
    assert new_id not in [s.id for s in final.source_cache.sources]
    session = ReviewSession(doc, cand)
    session.accept_all()
    session.reject(f"src:{new_id}")
    session.resolve(session.conflicts()[0], keep=False)
    assert final.to_bytes() == session.apply().to_bytes()
    final, _ = _review(doc, cand, "y\ny\ny\ny\nn\nk\n")  # keep it: the source is accepted
    assert final is not None and new_id in [s.id for s in final.source_cache.sources]
    final, text = _review(doc, cand, "y\ny\ny\ny\nn\n")  # input ends: nothing written
    assert final is None and "quit: nothing written" in text
