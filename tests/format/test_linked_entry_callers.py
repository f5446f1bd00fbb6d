"""Which References entry is source N's, one rule (``vocab.linked_entry``: the page's
``byLabel[label] || items[N - 1]``), answered alike by every caller, each through its own entry
point: the article model, the agent's ledger (a cited source recovered from the list), the
References edit (does a cited source already have its entry), the review (does an edit cite a
source something provides) and the notebook preview (where a citation links to). A caller that
grows its own rule again fails here."""

from __future__ import annotations

import re

import pytest

from oo_nb.agent.ledger import SourceLedger
from oo_nb.agent.references import _linked, _parse
from oo_nb.errors import ValidationError
from oo_nb.format.article import Article
from oo_nb.format.article_model import first_list, read_model
from oo_nb.format.vocab import entry_source, linked_entry
from oo_nb.notebook.preview import clean_fragment
from oo_nb.review.apply import build_final
from oo_nb.review.hunks import Choice
from oo_nb.review.session import ReviewSession
from tests.support.tiny_docs import page, updated

# Each case: the entries ("s1": labelled [s1]; "": unlabelled; "-s2"/"-": a placeholder for a
# dropped source, with or without its label, and no link), a source id, and the index of the
# entry the page links a citation of it to (None: no entry).
CASES: list[tuple[str, tuple[str, ...], str, int | None]] = [
    ("labelled", ("s1", "s2", "s3"), "s2", 1),
    ("labelled, past the end", ("s1", "s2"), "s3", None),
    ("unlabelled", ("", "", ""), "s3", 2),
    ("unlabelled, past the end", ("", ""), "s3", None),
    ("mixed", ("s1", "", "s3"), "s2", 1),
    ("mixed: a label before its place", ("s2", ""), "s2", 0),
    ("mixed: the place of a label found earlier", ("s2", ""), "s1", 0),
    ("mixed: a label after its place", ("", "s1"), "s1", 1),
    ("mixed: the place a later label holds", ("", "s1"), "s2", 1),
    ("labels out of order: s1", ("s2", "s1"), "s1", 1),
    ("labels out of order: s2", ("s2", "s1"), "s2", 0),
    ("duplicate labels: the first is the entry", ("s1", "s1"), "s1", 0),
    ("duplicate labels: the second by its place", ("s1", "s1"), "s2", 1),
    ("[s9] first, linking s1's URL: s1", ("s9", "s2"), "s1", 0),
    ("[s9] first, linking s1's URL: s9", ("s9", "s2"), "s9", 0),
    ("[s9] first, linking s1's URL: s2", ("s9", "s2"), "s2", 1),
    ("a labelled placeholder", ("s1", "-s2", "s3"), "s2", 1),
    ("an unlabelled placeholder", ("", "-", ""), "s2", 1),
    ("s0 is no entry", ("s1",), "s0", None),
]
IDS = [c[0] for c in CASES]


def _url(k: int) -> str:
    return f"https://e{k + 1}.example/page"


def _item(k: int, spec: str) -> str:
    label = spec.lstrip("-")
    lead = f"[{label}] " if label else ""
    if spec.startswith("-"):
        return f'<li class="ref-missing">{lead}<em>source removed</em></li>'
    return f'<li>{lead}<a href="{_url(k)}">Entry {k + 1}</a></li>'


def _items(specs: tuple[str, ...]) -> list[str]:
    return [_item(k, s) for k, s in enumerate(specs)]


def _linked_url(specs: tuple[str, ...], k: int | None) -> str | None:
    """The URL of the entry at ``k``: what a caller that holds URLs can tell of it."""
    return None if k is None or specs[k].startswith("-") else _url(k)


def _references_body(specs: tuple[str, ...]) -> str:
    return "\n<ol>\n" + "\n".join(_items(specs)) + "\n</ol>\n"


@pytest.mark.parametrize(("name", "specs", "sid", "k"), CASES, ids=IDS)
def test_the_vocabulary_answers_the_table(
    name: str, specs: tuple[str, ...], sid: str, k: int | None
) -> None:
    labels = [entry_source(re.sub(r"<[^>]*>", "", i)) for i in _items(specs)]
    assert linked_entry(sid, labels) == k


@pytest.mark.parametrize(("name", "specs", "sid", "k"), CASES, ids=IDS)
def test_the_article_model_answers_the_table(
    name: str, specs: tuple[str, ...], sid: str, k: int | None
) -> None:
    html = f'<p>Rise [{sid}].</p>\n<h2 id="references">References</h2>{_references_body(specs)}'
    article = Article.parse(html)
    ref = article.reference_for(sid)
    assert (None if ref is None else ref.position - 1) == k
    assert article.listed_ids([sid]) == ({sid} if k is not None else set())


@pytest.mark.parametrize(("name", "specs", "sid", "k"), CASES, ids=IDS)
def test_the_ledger_recovers_a_cited_source_from_its_entry(
    name: str, specs: tuple[str, ...], sid: str, k: int | None
) -> None:
    doc = page([("00000001", f"Rise [{sid}].")], refs=_items(specs), cache_sources=False)
    ledger = SourceLedger({"sources": []}, doc.contract, set(), "2026-03-01", [], [])
    ledger.load(doc.article)
    assert (ledger.url_of(sid) or None) == _linked_url(specs, k)


@pytest.mark.parametrize(("name", "specs", "sid", "k"), CASES, ids=IDS)
def test_the_references_edit_finds_a_cited_sources_entry(
    name: str, specs: tuple[str, ...], sid: str, k: int | None
) -> None:
    body = _references_body(specs)
    lst = first_list(read_model(body).root.children)
    assert lst is not None
    items, _ = _parse(body, lst, {})
    # which entry links the source's URL when the source is the one at each place
    found = [j for j in range(len(specs)) if _linked(sid, items, {sid: {"url": _url(j)}})]
    expected = _linked_url(specs, k)
    assert found == ([] if expected is None else [k])


def _review(specs: tuple[str, ...]) -> tuple[ReviewSession, str]:
    """A review of an update that changed one paragraph, the cache holding no source: only the
    References list provides any."""
    paras = [("00000001", "Rise."), ("00000002", "Fall.")]
    doc = page(paras, refs=_items(specs), cache_sources=False).with_path("tides.o-o.html")
    changed = [("00000001", "Rise."), ("00000002", "Fall further.")]
    cand = updated(changed, refs=_items(specs), cache_sources=False).with_path("tides.o-o.html")
    session = ReviewSession(doc, cand)
    (hunk,) = [h for h in session.hunks if h.area == "article"]
    return session, hunk.id


@pytest.mark.parametrize(("name", "specs", "sid", "k"), CASES, ids=IDS)
def test_the_review_takes_an_edit_citing_a_listed_source(
    name: str, specs: tuple[str, ...], sid: str, k: int | None
) -> None:
    session, hunk_id = _review(specs)
    edit = f"<p>Fall, as the report says [{sid}].</p>"
    if k is None:
        with pytest.raises(ValidationError, match=f"cites {sid}, which neither version"):
            session.edit(hunk_id, edit)
    else:
        assert f"[{sid}]" in session.edit(hunk_id, edit)


@pytest.mark.parametrize(("name", "specs", "sid", "k"), CASES, ids=IDS)
def test_the_final_check_writes_text_citing_a_listed_source(
    name: str, specs: tuple[str, ...], sid: str, k: int | None
) -> None:
    session, hunk_id = _review(specs)  # (an edit that bypassed the session's own check)
    choice = {hunk_id: Choice("edit", f"<p>Fall, as the report says [{sid}].</p>")}
    if k is None:
        with pytest.raises(ValidationError, match=f"cites {sid}, which no source provides"):
            build_final(session.diff, choice)
    else:
        assert f"[{sid}]" in build_final(session.diff, choice).document.article_html


@pytest.mark.parametrize(("name", "specs", "sid", "k"), CASES, ids=IDS)
def test_the_preview_links_a_citation_to_its_entry(
    name: str, specs: tuple[str, ...], sid: str, k: int | None
) -> None:
    html = f'<p>Rise [{sid}].</p>\n<h2 id="references">References</h2>{_references_body(specs)}'
    body = clean_fragment(html)
    link = re.search(r'<a class="oo-cite" href="about:srcdoc#(oo-ref-[^"]+)"', body)
    entries = body.split("<li")[1:]
    linked = [j for j, e in enumerate(entries) if link and f'id="{link.group(1)}"' in e]
    assert linked == ([] if k is None else [k])


def test_the_preview_links_no_citation_past_any_list_however_long_its_number() -> None:
    # int() of a 5,000-digit label raised ValueError: the whole preview failed
    html = f'<p>Rise [s{"1" * 5000}].</p><h2 id="references">References</h2><ol><li>A</li></ol>'
    assert "oo-cite" not in clean_fragment(html)
