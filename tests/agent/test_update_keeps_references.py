"""Issue 12, part 1: an update never rewrites what it did not change. On a real-style original
whose References entries read ``<a>Title</a> — Outlet, Date`` and whose References section ends
with a ``<p class="doc-footer">``: update through the loopback mock, then apply. Kept entries
keep their bytes, the footer stays, a new entry has its neighbours' shape, a dropped entry
changes only when the drop is accepted, and the review shows the list entry by entry."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.pending import open_review
from oo_nb.cli.main import main
from oo_nb.format.document import Document
from oo_nb.review.session import ReviewSession
from oo_nb.review.terminal import render_diff
from tests.support.agent_helpers import MARKER, start_mock
from tests.support.mock_api import MockAPI
from tests.support.mock_scenarios import research_scenario

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "issue12"
FOOTER = re.compile(r'<p class="doc-footer">.*?</p>', re.S)


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Any:
    mock = start_mock()
    mock.responder = research_scenario(base_url=lambda: mock.base_url, with_image=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", MARKER)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
    yield mock
    mock.stop()


def copy_fixture(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copyfile(FIXTURES / name, target)
    return target


def refs_section(doc: Document) -> str:
    html = doc.article_html
    return html[html.index('<h2 id="references">') :]


def items(doc: Document) -> list[str]:
    return re.findall(r"<li\b.*?</li>", refs_section(doc), re.S)


def proposed(tmp_path: Path, name: str) -> tuple[Path, Document, Any]:
    path = copy_fixture(tmp_path, name)
    before = Document.read(path)
    assert main(["update", str(path), "--force"]) == 0  # a proposal, saved for review
    return path, before, open_review(path)


def test_kept_entries_keep_their_bytes_and_the_footer_stays(api: MockAPI, tmp_path: Path) -> None:
    path, before, review = proposed(tmp_path, "refs-outlet-footer.o-o.html")
    old, new = items(before), items(review.candidate)
    assert len(old) == 16 and "— Qwen Team, September 2025</li>" in old[14]
    # s12 is cited nowhere: the mock proposes dropping it; every other entry is byte for byte
    assert [new[k] for k in range(16) if k != 11] == [old[k] for k in range(16) if k != 11]
    assert new[11] == '<li class="ref-missing"><em>source removed</em></li>'  # s12 keeps its place
    # the new source (s17, cited by the new section) follows its neighbours' shape: link, em
    # dash, outlet, date in the same form as the entry before it ("— VentureBeat, 2025")
    assert re.fullmatch(
        r'<li><a href="https://news\.example\.com/[^"]+/latest-developments">Latest developments'
        r"</a> — news\.example\.com, \d{4}</li>",
        new[16],
    ), new[16]
    assert len(new) == 17 and "[s" not in "".join(new)  # no "[sN] " prefix the original lacks
    assert FOOTER.findall(refs_section(review.candidate)) == FOOTER.findall(refs_section(before))

    # the review lists the References changes entry by entry
    session = ReviewSession(review.original, review.candidate, review.run)
    refs = session.hunk("refs")
    assert refs.lines and refs.kind == "changed"
    assert refs.before_text.splitlines() == [
        "[s12] Best Open Source LLMs: Complete 2026 Guide — Contabo, 2026"
    ]
    added = refs.after_text.splitlines()
    assert added[0] == "[s12] source removed" and added[1].startswith(
        "[s17] Latest developments — "
    )
    shown = render_diff(session.diff)
    assert "- [s12] Best Open Source LLMs" in shown and "+ [s17] Latest developments" in shown
    assert "[-" not in shown.split("References list")[1]  # no word diff of the list

    # accepted as a whole (`oo review --accept-all`): the file holds the candidate's list
    assert main(["review", str(path), "--accept-all"]) == 0
    written = Document.read(path)
    assert items(written) == new
    assert FOOTER.findall(refs_section(written)) == FOOTER.findall(refs_section(before))


def test_a_rejected_drop_keeps_the_entry_byte_for_byte(api: MockAPI, tmp_path: Path) -> None:
    _, before, review = proposed(tmp_path, "refs-outlet-footer.o-o.html")
    session = ReviewSession(review.original, review.candidate, review.run)
    session.accept_all()
    session.reject("src:s12")
    final = session.apply()
    old, new = items(before), items(final)
    assert new[:16] == old  # s12's entry too, as written
    assert new[16].startswith('<li><a href="https://news.example.com/')
    assert "s12" in final.source_cache.by_id()
    assert FOOTER.findall(refs_section(final)) == FOOTER.findall(refs_section(before))


def test_rejecting_the_new_source_keeps_the_list_as_it_was(api: MockAPI, tmp_path: Path) -> None:
    _, before, review = proposed(tmp_path, "refs-outlet-footer.o-o.html")
    session = ReviewSession(review.original, review.candidate, review.run)
    session.reject_all()
    for hunk_id in ("src:s12",):
        session.accept(hunk_id)  # only the drop
    final = session.apply()
    old, new = items(before), items(final)
    assert len(new) == 16 and [new[k] for k in range(16) if k != 11] == [
        old[k] for k in range(16) if k != 11
    ]
    assert "ref-missing" in new[11]


def test_a_list_out_of_source_order_is_flagged_and_left(api: MockAPI, tmp_path: Path) -> None:
    _, before, review = proposed(tmp_path, "refs-out-of-order.o-o.html")
    old, new = items(before), items(review.candidate)
    assert "artificialanalysis.ai/articles/opus" in old[1]  # s3's entry holds position 2
    assert [new[k] for k in range(16) if k != 11] == [old[k] for k in range(16) if k != 11]
    assert len(new) == 17 and "news.example.com" in new[16]  # appended, nothing renumbered
    warned = " ".join(review.run.get("warnings", []))
    session = ReviewSession(review.original, review.candidate, review.run)
    title = session.hunk("refs").title
    assert "not in source order (item 2 is s3)" in title, title
    assert "not in source order (item 2 is s3)" in warned or "source order" in render_diff(
        session.diff
    )
