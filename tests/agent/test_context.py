from __future__ import annotations

import base64
import os
import re
from dataclasses import replace

import pytest

from oo_nb.agent.context import build_context, compact_article, contract_view, next_source_id
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.run import restore_images
from oo_nb.format.document import Document
from tests.support.agent_helpers import CORPUS, DOCS, TODAY


def image_heavy(name: str = "agi-declared.o-o.html", images: int = 4, kb: int = 150) -> Document:
    """A corpus document with large embedded figures (as the image policy allows)."""
    doc = Document.read(CORPUS / name)
    figures = "".join(
        f'\n<figure class="fig-right"><img src="data:image/png;base64,{base64.b64encode(os.urandom(kb * 1024)).decode()}" '
        f'alt="Chart {i}"><figcaption>Caption {i}. <span class="img-src">Source: <a href="https://example.org/">example.org</a>'
        "</span></figcaption></figure>\n"
        for i in range(images)
    )
    html = doc.article_html.replace(
        '<h2 id="leading-candidates">', figures + '<h2 id="leading-candidates">', 1
    )
    return doc.with_article(html)


@pytest.mark.parametrize("name", DOCS)
def test_context_keeps_structure_and_drops_page_machinery(name: str) -> None:
    doc = Document.read(CORPUS / name)
    ctx = build_context(doc, today=TODAY)
    text = ctx.system + ctx.user
    for section in doc.article.sections:
        if section.level == 2 and section.id:
            assert f'id="{section.id}"' in ctx.user
    for pid in doc.article.pids:
        assert f"<!-- {pid} -->" in ctx.user or f"<!--{pid}-->" in ctx.user
    for cited in set(doc.article.cited_ids):
        assert f"[{cited}]" in ctx.user
    assert "<script" not in text and "<style" not in text and "window.stop" not in text
    assert "#!/usr/bin/env bash" not in text and "OO_HTML" not in text
    assert "Today is 2026-11-29" in ctx.user
    as_of = doc.manifest.as_of
    assert as_of is not None and f"SINCE {as_of.isoformat()}" in ctx.user
    assert (
        "<source_cache>" in ctx.user
        and "<recent_changelog>" in ctx.user
        and "<contract>" in ctx.user
    )
    assert "submit_proposal" in ctx.system and "exactly once" in ctx.system
    assert ctx.size_bytes < len(doc.to_bytes()) * 1.05


def test_sentinel_rules_only_for_sentinel_documents() -> None:
    sentinel = build_context(Document.read(CORPUS / "agi-declared.o-o.html"), today=TODAY)
    plain = build_context(Document.read(CORPUS / "yc-w26-batch.o-o.html"), today=TODAY)
    assert (
        sentinel.sentinel
        and "SENTINEL document" in sentinel.system
        and "sentinel.status" in sentinel.system
    )
    assert not plain.sentinel and "SENTINEL" not in plain.system


def test_domains_and_https_rules() -> None:
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    doc = doc.edit_block(
        "oo-contract",
        lambda c: c["research"]["source_policy"].update(
            prefer_domains=["nature.com"], require_https=True
        ),
    )
    ctx = build_context(doc, today=TODAY)
    assert "Prefer these domains" in ctx.system and "nature.com" in ctx.system
    assert "reddit.com" in ctx.system and ctx.blocked_domains == ("reddit.com", "quora.com")
    assert "Only https://" in ctx.system and ctx.require_https


def test_file_editing_steps_are_not_shown() -> None:
    raw = Document.read(CORPUS / "agi-declared.o-o.html").block_json("oo-contract")
    steps = contract_view(raw)["instructions"]["procedure"]
    assert any("SENTINEL CHECK" in s for s in steps)
    assert not any("Edit tool" in s or "oo-manifest" in s for s in steps)
    assert "role" not in contract_view(raw)["instructions"]


def test_image_heavy_document_context_is_small() -> None:
    doc = image_heavy()
    ctx = build_context(doc, today=TODAY)
    assert "data:image" not in ctx.user
    assert (
        len(ctx.image_refs) == 4 and 'src="oo-image:1"' in ctx.user and 'alt="Chart 0"' in ctx.user
    )
    assert "Caption 0." in ctx.user
    ratio = ctx.size_bytes / len(doc.to_bytes())
    assert ratio <= 0.20, ratio


def test_compact_article_strips_scripts_styles_handlers() -> None:
    html = (
        '<h2 id="a">A</h2><!-- pid:a:0123abcd --><p style="color:red" onclick="x()">Hi [s1]</p>'
        "<script>alert(1)</script><style>p{}</style><!-- other comment --><svg><circle/></svg>tail"
    )
    out, refs = compact_article(html)
    assert (
        "<script" not in out
        and "<style" not in out
        and "onclick" not in out
        and "style=" not in out
    )
    assert "<!-- pid:a:0123abcd -->" in out and "[s1]" in out and "other comment" not in out
    assert "[inline SVG graphic omitted]" in out and "tail" in out and refs == {}


def test_compact_article_keeps_the_comments_every_reader_reads_as_pids() -> None:
    html = "<!-- pid:a:0123abcd --><p>x</p><!-- pid: a note, not a pid --><p>y</p>"
    out, _ = compact_article(html)
    assert "pid:a:0123abcd" in out and "a note" not in out


def test_next_source_id_is_above_cache_and_article() -> None:
    assert next_source_id(Document.read(CORPUS / "agi-declared.o-o.html")) == "s20"
    # empty cache: the article's citations count
    assert next_source_id(Document.read(CORPUS / "anthropic-leadership.o-o.html")) == "s17"


def test_placeholders_are_restored_after_validation() -> None:
    doc = image_heavy(images=1, kb=10)
    ctx = build_context(doc, today=TODAY)
    original_src = ctx.image_refs["oo-image:1"]
    proposal = validate_proposal(
        {
            "summary": "s",
            "sections": [
                {
                    "id": "status",
                    "title": "Status",
                    "html": '<figure><img src="oo-image:1" alt="x"></figure><p>t</p>',
                }
            ],
        }
    )
    restored = restore_images(proposal, ctx.image_refs)
    assert (
        original_src in restored.sections[0].html and "oo-image:1" not in restored.sections[0].html
    )
    assert restore_images(replace(proposal), {}) == proposal
    assert re.search(r"oo-image:\d", proposal.sections[0].html)


def test_prompt_states_the_effective_budget() -> None:
    """Regression: the prompt gave the contract's budget even when --budget overrode it."""
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    assert doc.contract.max_cost_usd == 5.0
    plain = build_context(doc, today=TODAY)
    assert "Budget for this update: $5.00." in plain.user and plain.budget_usd == 5.0
    given = build_context(doc, today=TODAY, budget_usd=0.75)
    assert "Budget for this update: $0.75." in given.user and "$5.00" not in given.user
    assert given.budget_usd == 0.75
    # the contract's own figure is not shown next to it (it would contradict the effective one)
    assert "max_cost_usd" not in given.user
    changed = plain.with_budget(0.75)
    assert changed.user == given.user and changed.budget_usd == 0.75
    assert plain.with_budget(5.0) is plain


def test_conversation_tells_the_model_the_budget_that_holds() -> None:
    from oo_nb.agent.backends.conversation import AgentSettings, Conversation
    from oo_nb.agent.budget import Budget
    from oo_nb.agent.pricing import price_for
    from oo_nb.agent.types import RunInfo

    model = "claude-sonnet-5-5"
    ctx = build_context(Document.read(CORPUS / "agi-declared.o-o.html"), today=TODAY)
    conv = Conversation(
        ctx,
        AgentSettings(model=model),
        Budget(1.25, price_for(model)),
        RunInfo(backend="t", model=model),
        lambda x: x,
    )
    first = conv.next_request()["messages"][0]["content"][0]["text"]  # one block, cache-marked
    assert "Budget for this update: $1.25." in first and "$5.00" not in first
