"""build_candidate: proposal -> candidate document on every corpus document and on fixtures."""

from __future__ import annotations

import copy
import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.pricing import UsageFigures
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.errors import AgentError
from oo_nb.format.article import PID, pid_is_wellformed
from oo_nb.format.document import BLOCK_IDS, Document
from oo_nb.store.store import write_document
from tests.conftest import DOC_NAMES

TODAY = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, 12, 30, 5, tzinfo=UTC)
NEW_URL = "https://example.org/news/new-thing"
EXAMPLE: dict[str, Any] = {
    "summary": "what changed and why",
    "sections": [{"id": "section-id", "title": "Heading", "html": "<p>New finding [s17].</p>"}],
    "sources": [
        {
            "id": "s17",
            "url": NEW_URL,
            "title": "New thing",
            "tier": "primary",
            "accessed": "2026-03-01",
        }
    ],
    "drop_sources": ["s3"],
    "facts": [{"text": "A new fact", "source_ids": ["s17"]}],
    "images": [
        {
            "url": "https://example.org/x.png",
            "page_url": "https://example.org/",
            "caption": "c",
            "alt": "a",
            "layout": "fig-right",
        }
    ],
    "sentinel": {"status": "not_occurred", "evidence": "nothing yet"},
}


def run_info(*urls: str) -> RunInfo:
    return RunInfo(
        backend="anthropic", model="claude-test",
        usage=UsageFigures(input_tokens=1000, output_tokens=200, web_searches=2),
        cost_usd=0.0421, seen_urls=set(urls),
    )  # fmt: skip


def load(corpus_dir: Path, name: str) -> Document:
    return Document.read(corpus_dir / name)


def build(doc: Document, raw: dict[str, Any], *urls: str, **kw: Any) -> Candidate:
    return build_candidate(doc, validate_proposal(raw), run_info(*urls), today=TODAY, now=NOW, **kw)


def proposal(**over: Any) -> dict[str, Any]:
    raw = {"summary": "update", "sections": []}
    raw.update(over)
    return raw


def outside(doc: Document) -> list[str]:
    """The document's text outside the article and the four blocks."""
    spans = sorted([doc.article_span, *(doc.blocks[b] for b in BLOCK_IDS)], key=lambda s: s.start)  # type: ignore[list-item]
    parts, pos = [], 0
    for span in spans:
        parts.append(doc.text[pos : span.start])
        pos = span.end
    parts.append(doc.text[pos:])
    return parts


def section_of(doc: Document, sid: str) -> str:
    text = doc.article_html
    start = text.index(f'<h2 id="{sid}">')
    nxt = text.find("<h2", start + 4)
    return text[start : nxt if nxt >= 0 else len(text)]


def source_by_url(doc: Document, url: str) -> dict[str, Any]:
    return next(
        s
        for s in doc.block_json("oo-source-cache")["sources"]
        if isinstance(s, dict) and s.get("url") == url
    )


# --------------------------------------------------------------------------- every corpus document
@pytest.mark.parametrize("name", DOC_NAMES)
def test_issue_example_on_every_corpus_document(corpus_dir: Path, name: str) -> None:
    doc = load(corpus_dir, name)
    cand = build(doc, copy.deepcopy(EXAMPLE), NEW_URL)
    new = cand.document
    # only the article and the four blocks changed
    assert outside(new) == outside(doc)
    assert new.to_bytes() != doc.to_bytes()
    # manifest
    m_old, m_new = doc.block_json("oo-manifest"), new.block_json("oo-manifest")
    assert m_new["version"] == m_old["version"] + 1 == cand.version
    assert m_new["as_of"] == "2026-03-01"
    assert {k: v for k, v in m_new.items() if k not in ("version", "as_of", "changelog")} == {
        k: v for k, v in m_old.items() if k not in ("version", "as_of", "changelog")
    }
    # the new section cites the new source, which is verified
    src = source_by_url(new, NEW_URL)
    assert src["verified"] is True and src["id"] in cand.sources_added and cand.unverified == []
    assert f"[{src['id']}]" in section_of(new, "section-id")
    # the new section sits right before References
    ids = [s.id for s in new.article.sections if s.level == 2]
    assert ids[-2:] == ["section-id", "references"]
    # changelog in the document's own shape, with the run's figures
    log_old, log_new = doc.block_json("oo-changelog"), new.block_json("oo-changelog")
    assert isinstance(log_new, list) == isinstance(log_old, list)
    entries = log_new if isinstance(log_new, list) else log_new["entries"]
    entry = entries[-1]
    bare = name == "agi-declared.o-o.html"  # its entries are bare dates (see the date-form tests)
    assert entry["version"] == cand.version and entry["timestamp"] == (
        "2026-03-01" if bare else "2026-03-01T12:30:05Z"
    )
    assert entry["summary"] == "what changed and why" and entry["model"] == "claude-test"
    assert (
        entry["cost_usd"] == 0.0421 and entry["searches"] == 2 and entry["tokens"]["input"] == 1000
    )
    # cache
    assert new.block_json("oo-source-cache")["last_updated"] == "2026-03-01"
    # references: position N is sN, for every cited id
    refs = new.article.references
    cache = new.source_cache.by_id()
    for ref in refs:
        sid = ref.source_id or f"s{ref.position}"  # unlabelled originals: by position
        assert sid == f"s{ref.position}"
        if sid in cache and cache[sid].url:
            assert ref.url == cache[sid].url
    # the original entries keep their bytes (issue 12)
    old_items = re.findall(r"<li\b.*?</li>", section_of(doc, "references"), re.S)
    assert old_items and all(item in section_of(new, "references") for item in old_items)
    cited = {int(s[1:]) for s in new.article.cited_ids}
    assert len(refs) == max(cited)
    # every paragraph has a unique pid; new ones are well formed
    art = new.article
    assert len(art.pids) == len(set(art.pids))
    new_pids = [p.pid for p in art.paragraphs if p.section == "section-id"]
    assert new_pids and all(
        p is not None and pid_is_wellformed(p) and p.startswith("pid:section-id:") for p in new_pids
    )
    # the image had no downloader: a warning, no figure
    assert any("no image downloader" in w for w in cand.warnings)
    # the file is valid for the store
    Document.parse(new.to_bytes())


@pytest.mark.parametrize("name", DOC_NAMES)
def test_candidate_writes_through_the_store(tmp_path: Path, corpus_dir: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes((corpus_dir / name).read_bytes())
    doc = Document.read(path)
    cand = build(doc, copy.deepcopy(EXAMPLE), NEW_URL)
    write_document(cand.document, expected=doc.to_bytes(), action="update")
    assert Document.read(path).manifest.version == cand.version


def test_manifest_changelog_shapes(corpus_dir: Path) -> None:
    strings = build(load(corpus_dir, "ai-model-landscape.o-o.html"), proposal(summary="S"))
    assert strings.document.block_json("oo-manifest")["changelog"][-1] == "v2: S"
    empty = build(load(corpus_dir, "agi-declared.o-o.html"), proposal(summary="S"))
    assert empty.document.block_json("oo-manifest")["changelog"] == ["v3: S"]
    doc = load(corpus_dir, "yc-w26-batch.o-o.html")
    manifest = doc.block_json("oo-manifest")
    manifest["changelog"] = [{"version": 1, "date": "2026-02-16", "summary": "first"}]
    objects = build(doc.with_block("oo-manifest", manifest), proposal(summary="S"))
    assert objects.document.block_json("oo-manifest")["changelog"][-1] == {
        "version": 2,
        "date": "2026-03-01",
        "summary": "S",
    }
    del manifest["changelog"]
    none = build(doc.with_block("oo-manifest", manifest), proposal(summary="S"))
    assert "changelog" not in none.document.block_json("oo-manifest")
    bare = build(load(corpus_dir, "anthropic-leadership.o-o.html"), proposal(summary="S"))
    log = bare.document.block_json("oo-changelog")
    assert isinstance(log, list) and log[-1]["summary"] == "S"


# --------------------------------------------------------------------------- sections and pids
def test_replacing_a_section_keeps_unchanged_pids(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "yc-w26-batch.o-o.html")
    old = [p for p in doc.article.paragraphs if p.section == "overview" and p.tag == "p"]
    first, second = old[0], old[1]
    html = (
        f"<p>{first.text}</p>"  # unchanged text (citation spacing aside): keeps its pid
        f"<!-- {second.pid} --><p>Edited second paragraph [s3].</p>"  # model kept the pid
        "<p>A brand new paragraph [s1].</p>"
    )
    cand = build(
        doc, proposal(sections=[{"id": "overview", "title": "Overview & more", "html": html}])
    )
    new = cand.document
    paras = [p for p in new.article.paragraphs if p.section == "overview"]
    assert [p.pid for p in paras[:2]] == [first.pid, second.pid]
    assert (
        paras[2].pid is not None
        and paras[2].pid.startswith("pid:overview:")
        and paras[2].pid not in doc.article.pids
    )
    assert "Overview &amp; more</h2>" in new.article_html
    assert cand.sections_replaced == ["overview"] and cand.sections_added == []
    # other sections are byte-identical
    for sid in ("batch-statistics", "funding-exits"):
        if f'id="{sid}"' in doc.article_html:
            assert section_of(new, sid) == section_of(doc, sid)
    # the heading pid comment before the replaced h2 survives
    assert '<!-- pid:overview:a1b2c3d4 -->\n<h2 id="overview">' in new.article_html


def test_every_p_gets_a_pid_comment_and_no_pid_is_reused(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "agi-declared.o-o.html")
    kept_pid = next(p.pid for p in doc.article.paragraphs if p.section != "status" and p.pid)
    html = f"<!-- {kept_pid} --><p>steals a pid from another section</p><blockquote><p>q</p></blockquote><ul><li><p>li</p></li></ul>"
    new = build(
        doc, proposal(sections=[{"id": "status", "title": "Status", "html": html}])
    ).document
    body = section_of(new, "status")
    assert body.count("<p>") == 3
    assert len(re.findall(r"<!-- pid:status:[0-9a-f]{8} -->\s*<p>", body)) == 3
    assert kept_pid not in body
    assert len(new.article.pids) == len(set(new.article.pids))


def test_title_and_html_are_sanitised(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "ai-model-landscape.o-o.html")
    raw = proposal(
        sections=[
            {
                "id": "overview",
                "title": "<img src=x onerror=alert(1)>Over</h2><script>x</script>view",
                "html": "<p onclick=x>ok</p><script>alert(1)</script>",
            }
        ]
    )
    new = build(doc, raw).document
    sec = section_of(new, "overview")
    assert '<h2 id="overview">Overview</h2>' in sec
    assert "onclick" not in sec and "<script" not in sec


def test_empty_sections_are_not_applied(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "yc-w26-batch.o-o.html")
    cand = build(doc, proposal(sections=[
        {"id": "overview", "title": "O", "html": "<script>only junk</script>"},
        {"id": "new-one", "title": "N", "html": "<p>fine</p>"},
    ]))  # fmt: skip
    assert section_of(cand.document, "overview") == section_of(doc, "overview")
    assert any("no content after sanitising" in w for w in cand.warnings)
    with pytest.raises(AgentError, match="no usable section"):
        build(
            doc, proposal(sections=[{"id": "overview", "title": "O", "html": "<style>x</style>"}])
        )


def test_references_section_in_proposal_is_ignored(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "yc-w26-batch.o-o.html")
    cand = build(
        doc,
        proposal(sections=[{"id": "references", "title": "R", "html": "<ol><li>fake</li></ol>"}]),
    )
    assert "fake" not in cand.document.article_html
    assert any("references" in w for w in cand.warnings)


def test_index_is_refused(corpus_dir: Path) -> None:
    with pytest.raises(AgentError, match="index"):
        build(load(corpus_dir, "index.o-o.html"), proposal())


def test_stub_notice_removed_and_references_created(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "anthropic-leadership.o-o.html")
    stub = doc.with_article(
        '\n<div class="stub-notice"><p>This document has not been researched yet.</p></div>\n'
    )
    stub = stub.with_block("oo-source-cache", {"last_updated": None, "sources": [], "facts": []})
    assert stub.article.is_stub
    raw = proposal(
        sections=[{"id": "overview", "title": "Overview", "html": "<p>Now populated [s1].</p>"}],
        sources=[{"id": "s1", "url": NEW_URL, "title": "T"}],
    )
    new = build(stub, raw, NEW_URL).document
    assert "stub-notice" not in new.article_html and not new.article.is_stub
    assert [s.id for s in new.article.sections] == ["overview", "references"]
    assert new.article.references[0].url == NEW_URL


# --------------------------------------------------------------------------- sources
def test_unverified_and_rejected_sources(corpus_dir: Path) -> None:
    doc = load(
        corpus_dir, "anthropic-leadership.o-o.html"
    )  # require_https, deny reddit/quora/medium
    raw = proposal(
        sections=[
            {
                "id": "overview",
                "title": "Overview",
                "html": "<p>A [s40] B [s41] C [s42] D [s43] E [s99].</p>",
            }
        ],
        sources=[
            {"id": "s40", "url": "https://unseen.example/a", "title": "Unseen"},
            {"id": "s41", "url": "http://plain.example/a", "title": "Plain http"},
            {"id": "s42", "url": "https://www.reddit.com/r/x", "title": "Denied"},
            {"id": "s43", "url": "javascript:alert(1)", "title": "Bad"},
        ],
    )
    cand = build(doc, raw)
    new = cand.document
    src = source_by_url(new, "https://unseen.example/a")
    assert src["verified"] is False and cand.unverified == [src["id"]]
    assert any("UNVERIFIED" in w for w in cand.warnings)
    text = section_of(new, "overview")
    assert (
        f"A [{src['id']}] B" in text
        and "[s41]" not in text
        and "[s42]" not in text
        and "[s99]" not in text
    )
    urls = [s.get("url") for s in new.block_json("oo-source-cache")["sources"]]
    assert "http://plain.example/a" not in urls and "https://www.reddit.com/r/x" not in urls
    assert not any("javascript" in str(u) for u in urls)
    joined = " | ".join(cand.warnings)
    assert (
        "requires https" in joined
        and "deny list" in joined
        and "not an absolute http(s) URL" in joined
    )
    assert "s99" in joined


def test_a_new_source_with_a_cached_url_takes_its_id_and_cached_twins_stay(
    corpus_dir: Path,
) -> None:
    doc = load(corpus_dir, "yc-w26-batch.o-o.html")
    cache = doc.block_json("oo-source-cache")
    s2 = cache["sources"][1]
    # a duplicate of s2 already in the cache, cited in the article and a fact
    cache["sources"].append(
        {"id": "s10", "url": s2["url"].replace("https://www.", "http://") + "/", "title": "dup"}
    )
    cache["facts"].append({"key": "k", "value": "v", "source": "s10"})
    doc = doc.with_block("oo-source-cache", cache)
    doc = doc.with_article(doc.article_html.replace("[s2]", "[s10]", 1))
    raw = proposal(
        sections=[{"id": "new-sec", "title": "N", "html": "<p>same page again [s11]</p>"}],
        sources=[{"id": "s11", "url": s2["url"] + "?utm_source=x#frag", "title": "again"}],
    )
    cand = build(doc, raw)
    new = cand.document
    ids = [s["id"] for s in new.block_json("oo-source-cache")["sources"]]
    # issue 26: an update never merges cached twins (that rewrote untouched paragraphs)
    assert "s10" in ids and "s11" not in ids and cand.sources_added == []
    assert "[s10]" in new.article_html and "[s11]" not in new.article_html
    assert "same page again [s2]" in new.article_html
    assert new.block_json("oo-source-cache")["facts"][-1]["source"] == "s10"


def test_new_source_reusing_a_cached_id_is_renumbered(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "agi-declared.o-o.html")  # s1..s19 cached
    old_s5 = source_by_url(doc, doc.source_cache.by_id()["s5"].url)
    raw = proposal(
        sections=[{"id": "status", "title": "Status", "html": "<p>New [s5].</p>"}],
        sources=[{"id": "s5", "url": NEW_URL, "title": "New"}],
    )
    cand = build(doc, raw, NEW_URL)
    new = cand.document
    assert cand.sources_added == ["s20"]
    assert source_by_url(new, NEW_URL)["id"] == "s20"
    assert new.source_cache.by_id()["s5"].url == old_s5["url"]  # old id keeps its meaning
    assert "New [s20]." in section_of(new, "status")


def test_drop_sources(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "yc-w26-batch.o-o.html")
    cache = doc.block_json("oo-source-cache")
    cache["sources"].append(
        {"id": "s10", "url": "https://uncited.example/", "title": "never cited"}
    )
    doc = doc.with_block("oo-source-cache", cache)
    cited = set(doc.article.cited_ids)
    facts = {i for f in doc.source_cache.facts for i in f.source_ids}
    uncited = [s.id for s in doc.source_cache.sources if s.id not in cited and s.id not in facts]
    assert uncited, "fixture needs an uncited source"
    still = sorted(cited)[0]
    cand = build(doc, proposal(drop_sources=[uncited[0], still, "s77"]))
    ids = [s["id"] for s in cand.document.block_json("oo-source-cache")["sources"]]
    assert uncited[0] not in ids and still in ids
    assert cand.sources_dropped == [uncited[0]]
    assert any(f"{still} not dropped" in w for w in cand.warnings)


def test_sources_recovered_from_references_when_cache_is_empty(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "anthropic-leadership.o-o.html")
    new = build(doc, proposal()).document
    cache = new.source_cache
    assert [s.id for s in cache.sources] == [f"s{i}" for i in range(1, 17)]
    assert cache.by_id()["s1"].url == "https://www.anthropic.com/company"
    assert new.article.references[0].url == "https://www.anthropic.com/company"


# --------------------------------------------------------------------------- facts
def test_facts_in_the_caches_own_form(corpus_dir: Path) -> None:
    raw = proposal(
        sections=[{"id": "x-new", "title": "X", "html": "<p>x [s30]</p>"}],
        sources=[{"id": "s30", "url": NEW_URL, "title": "T"}],
        facts=[{"text": "Fact one", "source_ids": ["s30", "s999"]}, {"text": "Fact two"}],
    )
    strings = build(load(corpus_dir, "agi-declared.o-o.html"), raw, NEW_URL)
    facts = strings.document.block_json("oo-source-cache")["facts"]
    assert facts[-2:] == ["Fact one [s20]", "Fact two"]
    assert strings.document.source_cache.facts[-2].source_ids == ("s20",)
    assert any("s999" in w for w in strings.warnings)
    objects = build(load(corpus_dir, "yc-w26-batch.o-o.html"), raw, NEW_URL)
    facts = objects.document.block_json("oo-source-cache")["facts"]
    assert facts[-2:] == [
        {"text": "Fact one", "source_ids": ["s10"]},
        {"text": "Fact two", "source_ids": []},
    ]
    assert objects.document.source_cache.facts[-2].source_ids == ("s10",)
    empty = build(load(corpus_dir, "anthropic-leadership.o-o.html"), raw, NEW_URL)
    assert empty.document.block_json("oo-source-cache")["facts"][0] == {
        "text": "Fact one",
        "source_ids": ["s17"],
    }


# --------------------------------------------------------------------------- sentinel
def test_sentinel_original_and_structured(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "agi-declared.o-o.html")
    occurred = proposal(
        sentinel={"status": "occurred", "evidence": "Lab X declared AGI <script>x</script>"}
    )
    cand = build(doc, occurred)
    assert any("SENTINEL" in w and "OCCURRED" in w for w in cand.warnings)
    assert cand.document.block_json("oo-contract") == doc.block_json(
        "oo-contract"
    )  # originals not restructured
    entry = cand.document.block_json("oo-changelog")["entries"][-1]
    assert entry["sentinel"] == {"status": "occurred", "evidence": "Lab X declared AGI"}
    contract = doc.block_json("oo-contract")
    contract["sentinel"] = {
        "event": "AGI declared",
        "criteria": ["formal"],
        "status": "not_occurred",
        "last_checked": "2026-02-17",
        "evidence": "",
    }
    structured = doc.with_block("oo-contract", contract)
    new = build(
        structured,
        proposal(sentinel={"status": "not_occurred", "evidence": "Still no declaration"}),
    ).document
    s = new.contract.sentinel
    assert (
        s is not None
        and s.status == "not_occurred"
        and s.last_checked == TODAY
        and s.evidence == "Still no declaration"
    )


# --------------------------------------------------------------------------- hostile input end to end
HOSTILE_HTML = (
    "<p>ok [s1]</p><script>alert(1)</script><img src=x onerror=alert(2)>"
    '<a href="javascript:alert(3)">j</a><a href="data:text/html,<script>alert(4)</script>">d</a>'
    "<svg onload=alert(5)></svg><iframe srcdoc='<script>alert(6)</script>'></iframe>"
    '<meta http-equiv="refresh" content="0;url=https://evil.example">'
    '<form action="https://evil.example"><input></form><p style="background:url(https://evil.example/b)">s</p>'
    '<p data-commandlinker-command="terminal:create-new">t</p>'
    "<p>line</p>\nOO_HTML\necho pwned\n<p>after</p></article><script>alert(7)</script>"
    '<h2 id="references">Fake references</h2><p id="oo-manifest">{}</p>'
)
_BAD = re.compile(
    r"<script(?![^>]*application/json)|onerror|onload|javascript:|data:text/html|<svg|<iframe|srcdoc|http-equiv|"
    r"<form|style=|data-commandlinker|<h2[^>]*>Fake references|id=\"oo-manifest\">\{",
    re.IGNORECASE,
)


@pytest.mark.parametrize("name", DOC_NAMES)
def test_hostile_proposal_leaves_nothing_executable(corpus_dir: Path, name: str) -> None:
    doc = load(corpus_dir, name)
    raw = proposal(
        summary="</script><script>alert(8)</script>\nOO_HTML\n$(rm -rf ~)",
        sections=[
            {
                "id": "pwn-section",
                "title": "</h2><script>alert(9)</script>OO_HTML",
                "html": HOSTILE_HTML,
            }
        ],
        sources=[
            {
                "id": "s1",
                "url": "https://example.org/</script><script>alert(10)</script>",
                "title": "</script><!--<script>",
            }
        ],
        facts=[{"text": "</script><script>alert(11)</script>", "source_ids": []}],
    )
    new = build(doc, raw).document
    article = new.article_html
    assert not _BAD.search(article), _BAD.search(article)
    # the heredoc still ends at the real terminator and every block is intact
    assert outside(new) == outside(doc)
    for block in ("oo-manifest", "oo-changelog", "oo-source-cache"):  # the contract is unchanged
        assert "</script" not in new.block_text(block).lower()
        assert "<!--" not in new.block_text(block)
    assert new.block_text("oo-contract") == doc.block_text("oo-contract")
    assert not re.search(r"^OO_HTML$", new.text[new.html.start : new.html.end], re.MULTILINE)
    reparsed = Document.parse(new.to_bytes())
    assert reparsed.tail == new.tail
    assert [s.id for s in reparsed.article.sections if s.level == 2][-2:] == [
        "pwn-section",
        "references",
    ]


def test_crlf_document(corpus_dir: Path) -> None:
    data = (corpus_dir / "yc-w26-batch.o-o.html").read_bytes().replace(b"\n", b"\r\n")
    doc = Document.parse(data)
    new = build(doc, copy.deepcopy(EXAMPLE), NEW_URL).document
    assert b"\r\n" in new.to_bytes() and b"\n" not in new.to_bytes().replace(b"\r\n", b"")
    assert outside(new) == outside(doc)


def test_pid_pattern_is_the_article_one() -> None:
    assert PID.match("pid:section-id:0123abcd")


def test_string_form_cache_keeps_positions(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "anthropic-leadership.o-o.html")
    strings = [
        "anthropic.com - company page",
        "wikipedia.org - overview",
        "cnbc.com - board coverage",
    ]
    doc = doc.with_block(
        "oo-source-cache", {"last_updated": None, "sources": strings, "facts": ["Old fact"]}
    )
    raw = proposal(
        sections=[{"id": "overview", "title": "Overview", "html": "<p>new [s40]</p>"}],
        sources=[{"id": "s40", "url": NEW_URL, "title": "New"}],
        drop_sources=["s2"],
    )
    cand = build(doc, raw, NEW_URL)
    sources = cand.document.block_json("oo-source-cache")["sources"]
    assert sources[:3] == strings  # nothing removed or reordered
    new_id = source_by_url(cand.document, NEW_URL)["id"]
    assert cand.document.source_cache.by_id()[new_id].url == NEW_URL
    assert any("by position" in w for w in cand.warnings)
    # positions in References still match: s1..s16 are the old entries, byte for byte (issue 12)
    old_refs = section_of(doc, "references").split("</ol>")[0]
    assert old_refs in cand.document.article_html
    assert f'<li>[{new_id}] <a href="{NEW_URL}">New</a>, example.org</li>' in old_refs.join(
        cand.document.article_html.split(old_refs)[1:]
    )
    refs = cand.document.article.references
    assert [r.source_id for r in refs] == [f"s{i}" for i in range(1, len(refs) + 1)]


def test_twin_ids_in_cache_are_renumbered_not_lost(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "yc-w26-batch.o-o.html")
    cache = doc.block_json("oo-source-cache")
    cache["sources"].append({"id": "s3", "url": "https://twin.example/", "title": "twin"})
    doc = doc.with_block("oo-source-cache", cache)
    cand = build(doc, proposal())
    twin = source_by_url(cand.document, "https://twin.example/")
    assert twin["id"] == "s10" and any("twice" in w for w in cand.warnings)


def test_new_section_cannot_reuse_ids_of_kept_elements(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "anthropic-leadership.o-o.html")  # h3 id="dario-amodei" in co-founders
    raw = proposal(
        sections=[
            {
                "id": "new-sec",
                "title": "N",
                "html": '<h3 id="dario-amodei">D</h3><h3 id="fresh">F</h3><p>x</p>',
            }
        ]
    )
    sec = section_of(build(doc, raw).document, "new-sec")
    assert 'id="dario-amodei"' not in sec and 'id="fresh"' in sec


def test_sections_inside_containers_are_not_cut(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "yc-w26-batch.o-o.html")
    html = doc.article_html
    wrapped = html.replace('<h2 id="overview">', '<section><h2 id="overview">', 1).replace(
        "<!-- pid:batch-statistics", "</section>\n<!-- pid:batch-statistics", 1
    )
    doc = doc.with_article(wrapped)
    cand = build(doc, proposal(sections=[
        {"id": "overview", "title": "O", "html": "<p>x</p>"},
        {"id": "new-sec", "title": "N", "html": "<p>y</p>"},
    ]))  # fmt: skip
    assert section_of(cand.document, "overview") == section_of(doc, "overview")
    assert any("inside a container" in w for w in cand.warnings)
    assert cand.sections_added == ["new-sec"]


def test_new_section_id_used_by_a_subsection_is_renamed(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "anthropic-leadership.o-o.html")  # h3 id="dario-amodei"
    cand = build(doc, proposal(sections=[{"id": "dario-amodei", "title": "D", "html": "<p>x</p>"}]))
    assert cand.sections_added == ["dario-amodei-2"]
    assert cand.document.article_html.count('id="dario-amodei"') == 1


def test_long_summary_is_short_in_the_manifest(corpus_dir: Path) -> None:
    cand = build(load(corpus_dir, "ai-model-landscape.o-o.html"), proposal(summary="word " * 500))
    assert len(cand.document.block_json("oo-manifest")["changelog"][-1]) <= 305
    assert len(cand.document.block_json("oo-changelog")["entries"][-1]["summary"]) > 2000


def test_offered_pids_stay_on_their_own_paragraphs() -> None:
    """Regression: pids offered by the model were keyed by id() of transient lxml proxies and
    could move to another paragraph."""
    from datetime import date as _date

    from oo_nb.agent.candidate import build_candidate as _build
    from oo_nb.agent.proposal import validate_proposal as _validate
    from oo_nb.agent.types import RunInfo as _RunInfo
    from oo_nb.format.document import Document as _Document
    from tests.conftest import CORPUS as _CORPUS

    doc = _Document.read(_CORPUS / "agi-declared.o-o.html")
    html = doc.article_html
    status = html[html.index('<h2 id="status">') : html.index('<h2 id="leading-candidates">')]
    body = status[status.index("</h2>") + 5 :]
    proposal = _validate(
        # a paragraph added at the end: a proposal that changes nothing makes no version
        {
            "summary": "one more",
            "sections": [{"id": "status", "title": "Status", "html": body + "<p>Added.</p>"}],
        }
    )
    cand = _build(doc, proposal, _RunInfo(backend="t", model="m"), today=_date(2026, 11, 29))
    old = [p.pid for p in doc.article.paragraphs if p.section == "status"]
    new = [p.pid for p in cand.document.article.paragraphs if p.section == "status"]
    assert new[: len(old)] == old and len(new) == len(old) + 1


def test_source_access_dates_are_never_in_the_future() -> None:
    from datetime import date as _date

    from oo_nb.agent.candidate import build_candidate as _build
    from oo_nb.agent.proposal import validate_proposal as _validate
    from oo_nb.agent.types import RunInfo as _RunInfo
    from oo_nb.format.document import Document as _Document
    from tests.conftest import CORPUS as _CORPUS

    doc = _Document.read(_CORPUS / "yc-w26-batch.o-o.html")
    proposal = _validate(
        {
            "summary": "s",
            "sections": [
                {"id": "overview", "title": "Overview", "html": "<p>New [s20] and [s21].</p>"}
            ],
            "sources": [
                {"id": "s20", "url": "https://a.example/x", "title": "A", "accessed": "2030-01-01"},
                {"id": "s21", "url": "https://b.example/y", "title": "B", "accessed": "2026-11-02"},
            ],
        }
    )
    cand = _build(doc, proposal, _RunInfo(backend="t", model="m"), today=_date(2026, 11, 29))
    accessed = {s.url: s.accessed for s in cand.document.source_cache.sources}
    assert accessed["https://a.example/x"] == _date(2026, 11, 29)
    assert accessed["https://b.example/y"] == _date(2026, 11, 2)


@pytest.mark.parametrize(
    ("title", "shown", "warned"),
    [
        ("Models < 10B", "Models \u2039 10B", True),
        ("Q3 <img src=x onerror=alert(1)//", "Q3", False),
    ],
)
def test_heading_text_is_inert_on_the_original_page_script(
    corpus_dir: Path, title: str, shown: str, warned: bool
) -> None:
    """The original script re-reads heading text as HTML (FORMAT.md §7): no '<' may reach it."""
    doc = load(corpus_dir, "anthropic-leadership.o-o.html")
    raw = proposal(sections=[{"id": "new-sec", "title": title, "html": "<p>Body text.</p>"}])
    cand = build(doc, raw)
    new = next(s for s in cand.document.article.sections if s.id == "new-sec")
    assert new.title == shown
    assert any("look-alike" in w and "migrate=True" in w for w in cand.warnings) is warned


def test_heading_text_is_kept_on_our_page_script(tmp_path: Path) -> None:
    from oo_nb.edit.new import NewSpec, create_document

    doc = create_document(NewSpec("Ours"), tmp_path)
    cand = build(
        doc,
        proposal(
            sections=[{"id": "new-sec", "title": "Models < 10B", "html": "<p>Body text.</p>"}]
        ),
    )
    assert (
        next(s for s in cand.document.article.sections if s.id == "new-sec").title == "Models < 10B"
    )
    assert not any("look-alikes" in w for w in cand.warnings)


SINK_HTML = (
    "<p>Body [s1].</p><h3>&lt;img src=x onerror=alert(1)&gt;</h3>"
    "<h4>&#60;img src=x onerror=alert(4)&#62;</h4><h5>&lt;b&gt;5</h5><h6>&LT;i&GT;6</h6>"
    '<p>See <a href="https://a.example/[s1]" title="[s2]<img src=x onerror=alert(2)>">x</a></p>'
)


def _headings(doc: Document) -> list[str]:
    from lxml import html as lxml_html

    root = lxml_html.fragment_fromstring(doc.article_html, create_parent="div")
    return ["".join(h.itertext()) for h in root.iter("h1", "h2", "h3", "h4", "h5", "h6")]


@pytest.mark.parametrize("name", ["anthropic-leadership.o-o.html", "agi-declared.o-o.html"])
def test_section_html_is_inert_on_the_original_page_script(corpus_dir: Path, name: str) -> None:
    """Every heading level and every attribute the citation pass would split: look-alikes."""
    from oo_nb.format.legacy_script import carries_markup, injection_risks

    doc = load(corpus_dir, name)
    title = "Models < 10B &lt; 20B"
    raw = proposal(sections=[{"id": "new-sec", "title": title, "html": SINK_HTML}])
    cand = build(doc, raw)
    assert injection_risks(cand.document) == []
    assert not [h for h in _headings(cand.document) if carries_markup(h)]
    article = cand.document.article_html
    assert "\u2039img src=x onerror=alert(1)\u203a" in article  # the reader still sees it
    assert "https://a.example/%5Bs1%5D" in article
    assert "Models \u2039 10B \u2039 20B" in article
    warned = [w for w in cand.warnings if "look-alike" in w]
    assert len(warned) == 1 and "section title" in warned[0] and "migrate=True" in warned[0]


def test_section_html_is_kept_on_our_page_script(tmp_path: Path) -> None:
    from oo_nb.edit.new import NewSpec, create_document

    doc = create_document(NewSpec("Ours"), tmp_path)
    cand = build(doc, proposal(sections=[{"id": "new-sec", "title": "A", "html": SINK_HTML}]))
    article = cand.document.article_html
    assert "<h3>&lt;img src=x onerror=alert(1)&gt;</h3>" in article  # our script shows text
    assert not any("look-alike" in w for w in cand.warnings)


# --------------------------------------------------------------------------- changelog date form
def _latest(doc: Document) -> dict[str, Any]:
    raw = doc.block_json("oo-changelog")
    entries: list[Any] = raw if isinstance(raw, list) else raw["entries"]
    return dict(entries[-1])


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("agi-declared.o-o.html", "2026-03-01"),  # its entries are bare dates
        ("ai-model-landscape.o-o.html", "2026-03-01T12:30:05Z"),  # its entries hold timestamps
        ("anthropic-leadership.o-o.html", "2026-03-01T12:30:05Z"),  # an empty changelog
    ],
)
def test_new_entry_is_dated_in_the_documents_own_form(
    corpus_dir: Path, name: str, expected: str
) -> None:
    doc = load(corpus_dir, name)
    entry = _latest(build(doc, copy.deepcopy(EXAMPLE), NEW_URL).document)
    assert entry["timestamp"] == expected
    assert "date" not in entry


def test_entry_date_form_follows_all_existing_entries(corpus_dir: Path) -> None:
    doc = load(corpus_dir, "agi-declared.o-o.html")

    def add(c: Any, **entry: Any) -> Any:
        c["entries"].append({"version": 3, "summary": "x", **entry})
        return c

    # one timestamped entry among bare dates: the full form
    mixed = doc.edit_block("oo-changelog", lambda c: add(c, timestamp="2026-02-20T08:00:00Z"))
    assert (
        _latest(build(mixed, copy.deepcopy(EXAMPLE), NEW_URL).document)["timestamp"]
        == "2026-03-01T12:30:05Z"
    )
    # entries dated under "date": the new one too, in their bare form
    dated = doc.edit_block(
        "oo-changelog",
        lambda c: {"entries": [{"version": 2, "date": "2026-02-17", "summary": "y"}]},
    )
    entry = _latest(build(dated, copy.deepcopy(EXAMPLE), NEW_URL).document)
    assert entry["date"] == "2026-03-01" and "timestamp" not in entry
    assert build(dated, copy.deepcopy(EXAMPLE), NEW_URL).document.changelog.latest.date == TODAY  # type: ignore[union-attr]
