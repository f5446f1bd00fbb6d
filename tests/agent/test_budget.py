from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oo_nb.agent.budget import Budget, clip_to_tokens, estimate_tokens, text_tokens
from oo_nb.agent.context import AgentContext, build_context
from oo_nb.agent.pricing import UsageFigures, price_for
from oo_nb.agent.proposal import validate_proposal
from oo_nb.errors import BudgetExceeded
from oo_nb.format.document import Document
from tests.support.agent_helpers import CORPUS, TODAY, backend, run_backend, start_mock
from tests.support.mock_api import error_reply
from tests.support.mock_scenarios import research_scenario

SONNET = price_for("claude-sonnet-5-5")


def test_bound_counts_every_pass_and_the_searches() -> None:
    b = Budget(1.0, SONNET, search_tokens=1000, fetch_tokens=2000, fetch_overhead_tokens=0)
    # no tools: one pass
    assert b.bound(10_000, 1000) == pytest.approx((10_000 * 2 + 1000 * 10) / 1e6)
    # one fetch then one search, largest growth first: passes 10k, 12k, 13k
    assert b.bound(10_000, 1000, searches=1, fetches=1) == pytest.approx(
        (35_000 * 2 + 1000 * 10) / 1e6 + 0.01
    )


def test_plan_shrinks_research_as_the_budget_shrinks() -> None:
    plans = [
        Budget(limit, SONNET).plan(14_000, max_tokens=8192, min_tokens=2048, searches=5, fetches=3)
        for limit in (5.0, 1.0, 0.5)
    ]
    uses = [p.searches + p.fetches for p in plans]
    assert uses == sorted(uses, reverse=True) and uses[0] == 8 and uses[-1] > 0


def test_plan_without_research_then_with_fewer_tokens_then_refuses() -> None:
    b = Budget(0.09, SONNET)
    plan = b.plan(14_000, max_tokens=8192, min_tokens=2048, searches=5, fetches=3)
    assert not plan.research and plan.max_tokens < 8192 and plan.bound_usd <= 0.09
    b.spent_usd = 0.08
    with pytest.raises(BudgetExceeded) as err:
        b.plan(14_000, max_tokens=8192, min_tokens=2048, searches=5, fetches=3)
    assert "budget reached" in str(err.value) and err.value.cost_usd == pytest.approx(0.08)


def test_record_notes_overshoot_and_overspend() -> None:
    b = Budget(0.10, SONNET)
    b.plan(1000, max_tokens=1000, min_tokens=500, searches=0, fetches=0)
    b.record(UsageFigures(input_tokens=1000, output_tokens=100))
    assert not b.overspent and not b.overshoots
    b.plan(1000, max_tokens=1000, min_tokens=500, searches=0, fetches=0)
    b.record(UsageFigures(input_tokens=60_000, output_tokens=1000))
    assert b.overshoots and "more than its bound" in b.overshoots[0]
    assert b.overspent and b.spent_usd > 0.10


def test_estimate_is_pessimistic() -> None:
    assert estimate_tokens("x" * 2500) == 1000 + 3000


# A pessimistic count per character for each script: what a byte-level tokenizer could need at
# worst short of byte fallback, and well above what real text averages (CJK about 1-1.5).
_PESSIMISTIC = [
    ("人工知能の最新動向について" * 800, 2.0),  # Japanese: kanji and kana
    ("人工智能最新发展" * 1000, 2.0),  # Chinese
    ("인공지능의 최신 동향" * 800, 2.0),  # Korean Hangul
    ("Искусственный интеллект: последние новости " * 200, 1.0),  # Cyrillic
    ("🤖🧠📈" * 1000, 2.0),  # emoji (4 bytes each)
    ("👨‍👩‍👧 " * 500, 3.0),  # a ZWJ sequence: 5 code points, 18 bytes
]


@pytest.mark.parametrize(
    ("text", "per_char"), _PESSIMISTIC, ids=["ja", "zh", "ko", "ru", "emoji", "zwj"]
)
def test_estimate_covers_non_latin_text(text: str, per_char: float) -> None:
    """Regression: 2.5 characters a token gave 10,400 kanji 4,160 tokens."""
    est = estimate_tokens(text) - 3000  # without the tool overhead
    assert est >= per_char * len(text)
    # and the hard bound of a byte-level tokenizer: one token per byte outside ASCII
    other_bytes = sum(len(ch.encode()) for ch in text if ord(ch) >= 128)
    assert est >= other_bytes


def test_cjk_regression_figure() -> None:
    assert estimate_tokens("人工知能の最新動向について" * 800) >= 3 * 10_400 + 3000


def test_estimate_mixes_scripts_and_json() -> None:
    latin = "x" * 250  # 100 tokens
    assert estimate_tokens(latin + "日本") == 3000 + 100 + 6
    # JSON parts are counted as sent (ensure_ascii=False keeps the real characters)
    assert estimate_tokens({"k": "Ж" * 10}) == 3000 + math.ceil(len('{"k": ""}') / 2.5 + 20)


@given(st.text(max_size=300))
def test_estimate_never_below_one_token_per_non_ascii_byte_nor_latin_rate(text: str) -> None:
    t = text_tokens(text)
    ascii_chars = sum(ord(c) < 128 for c in text)
    assert t >= ascii_chars / 2.5 - 1e-9
    assert t >= len(text.encode("utf-8", "surrogatepass")) - ascii_chars - 1e-9
    assert t >= len(text) / 2.5 - 1e-9  # never below the old rate


@given(st.text(max_size=200), st.integers(0, 200))
def test_clip_to_tokens(text: str, tokens: int) -> None:
    out = clip_to_tokens(text, tokens)
    assert text.startswith(out) and text_tokens(out) <= tokens
    if out != text:
        assert text_tokens(text[: len(out) + 1]) > tokens


@settings(max_examples=200, deadline=None)
@given(
    limit=st.floats(0.01, 10),
    spent_share=st.floats(0, 1),
    prompt=st.integers(1000, 200_000),
    model=st.sampled_from(
        ["claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5", "claude-fable-5-2"]
    ),
)
def test_a_plan_never_exceeds_what_is_left(
    limit: float, spent_share: float, prompt: int, model: str
) -> None:
    b = Budget(limit, price_for(model))
    b.spent_usd = limit * spent_share
    try:
        plan = b.plan(prompt, max_tokens=8192, min_tokens=2048, searches=5, fetches=3)
    except BudgetExceeded as exc:
        assert exc.cost_usd == pytest.approx(b.spent_usd)
        return
    assert plan.bound_usd + plan.reserve_usd <= b.remaining_usd + 1e-9
    assert plan.max_tokens >= 2048


def test_wrapup_after_long_search_results_fits_the_reserve() -> None:
    """Regression: the wrap-up request was priced on the full history (long encrypted search
    results) although its reserve was sized for the compacted one, so a run could pay for
    research and then stop with "budget reached"."""
    from datetime import date as _date

    from oo_nb.agent.backends.conversation import AgentSettings, Conversation
    from oo_nb.agent.context import build_context
    from oo_nb.agent.pricing import price_for
    from oo_nb.agent.types import RunInfo
    from oo_nb.format.document import Document
    from tests.conftest import CORPUS

    model = "claude-sonnet-4-5"
    ctx = build_context(
        Document.read(CORPUS / "ai-model-landscape.o-o.html"), today=_date(2026, 6, 1)
    )
    budget = Budget(0.43, price_for(model))
    conv = Conversation(
        ctx, AgentSettings(model=model), budget, RunInfo(backend="t", model=model), lambda x: x
    )
    first = conv.next_request()
    assert "web_search" in [t["name"] for t in first["tools"]]
    results = [
        {
            "type": "web_search_result",
            "url": f"https://e.example/{k}",
            "title": "t",
            "encrypted_content": "A" * 12000,
            "page_age": None,
        }
        for k in range(10)
    ]
    conv.on_response(
        {
            "content": [
                {
                    "type": "server_tool_use",
                    "id": "srv0",
                    "name": "web_search",
                    "input": {"query": "q"},
                },
                {"type": "web_search_tool_result", "tool_use_id": "srv0", "content": results},
                {"type": "text", "text": "found"},
            ],
            "stop_reason": "end_turn",
            "usage": {
                "input_tokens": 34000,
                "output_tokens": 8000,
                "server_tool_use": {"web_search_requests": 1},
            },
        }
    )
    wrapup = conv.next_request()  # raised BudgetExceeded before the fix
    assert [t["name"] for t in wrapup["tools"]] == ["submit_proposal"]
    assert wrapup["max_tokens"] == AgentSettings(model=model).max_tokens
    assert conv.last_plan.bound_usd <= budget.limit_usd - budget.spent_usd


def test_compacted_fetch_of_a_cjk_page_stays_inside_the_wrapup_reserve() -> None:
    from oo_nb.agent.backends.conversation import FETCH_EXCERPT_TOKENS, compact_history

    page = {
        "type": "document",
        "title": "t",
        "source": {"type": "text", "media_type": "text/plain", "data": "日本語の記事" * 2000},
    }
    messages = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "web_fetch_tool_result",
                    "tool_use_id": "f",
                    "content": {
                        "type": "web_fetch_result",
                        "url": "https://e.example/",
                        "content": page,
                    },
                },
            ],
        },
    ]
    text = compact_history(messages)[1]["content"][0]["text"]
    assert "日本語の記事" in text
    assert (
        text_tokens(text) <= FETCH_EXCERPT_TOKENS + 20 <= Budget(1.0, SONNET).compact_fetch_tokens
    )


def test_first_request_researches_with_fewer_output_tokens_before_refusing() -> None:
    """Regression: --budget 0.20 was refused although one search fits with fewer output tokens."""
    prompt = 14_000
    full = Budget(1.0, SONNET).research_minimum(prompt, 8192, 5, 3)
    limit = full.bound_usd + full.reserve_usd - 0.005  # one search at 8,192 tokens no longer fits
    b = Budget(limit, SONNET)
    assert not b.plan(prompt, max_tokens=8192, min_tokens=2048, searches=5, fetches=3).research
    plan = b.plan(
        prompt, max_tokens=8192, min_tokens=2048, searches=5, fetches=3, require_research=True
    )
    assert plan.research and 2048 <= plan.max_tokens < 8192
    assert plan.bound_usd + plan.reserve_usd <= limit + 1e-9
    # the reserve covers a wrap-up with the same output allowance
    assert plan.reserve_usd == pytest.approx(
        b.bound(
            b.wrapup_prompt(prompt, plan.max_tokens, plan.searches, plan.fetches), plan.max_tokens
        )
    )


def test_refusal_names_the_real_minimum_and_that_minimum_suffices() -> None:
    prompt = 14_000
    smallest = Budget(1.0, SONNET).research_minimum(prompt, 2048, 5, 3)
    need = smallest.bound_usd + smallest.reserve_usd
    assert smallest.max_tokens == 2048 and smallest.searches + smallest.fetches == 1
    with pytest.raises(BudgetExceeded) as err:
        Budget(need - 0.001, SONNET).plan(
            prompt, max_tokens=8192, min_tokens=2048, searches=5, fetches=3, require_research=True
        )
    text = str(err.value)
    assert f"could cost up to ${smallest.bound_usd:.4f} plus ${smallest.reserve_usd:.4f}" in text
    assert f"${need:.4f} in all" in text and f"at least ${math.ceil(need * 100) / 100:.2f}" in text
    assert "2,048 output tokens" in text
    # what the message asks for is enough
    plan = Budget(math.ceil(need * 100) / 100, SONNET).plan(
        prompt, max_tokens=8192, min_tokens=2048, searches=5, fetches=3, require_research=True
    )
    assert plan.research


@settings(max_examples=100, deadline=None)
@given(limit=st.floats(0.01, 2), prompt=st.integers(1000, 100_000))
def test_required_research_plan_never_exceeds_the_budget(limit: float, prompt: int) -> None:
    b = Budget(limit, SONNET)
    try:
        plan = b.plan(
            prompt, max_tokens=8192, min_tokens=2048, searches=5, fetches=3, require_research=True
        )
    except BudgetExceeded as exc:
        smallest = b.research_minimum(prompt, 2048, 5, 3)
        assert smallest.bound_usd + smallest.reserve_usd > limit
        assert "at least $" in str(exc)
        return
    assert plan.research and plan.max_tokens >= 2048
    assert plan.bound_usd + plan.reserve_usd <= limit + 1e-9


# --------------------------------------------------------------------------- exact prompt count
def _cjk_context() -> AgentContext:
    """A document whose article is 40,000 CJK characters: the character estimate (3 tokens per
    character, the byte bound) is about 4x what a tokenizer gives such text."""
    doc = Document.read(CORPUS / "agi-declared.o-o.html")
    body = "".join(f"<p>{'人工知能の最新動向について調査する。' * 100}</p>\n" for _ in range(22))
    article = doc.span_text(doc.article_span)
    return build_context(
        doc.with_article(article + '<h2 id="jp">日本語</h2>\n' + body), today=TODAY
    )


@pytest.mark.parametrize("exact_count", [False, True])
def test_the_api_count_replaces_the_estimate_of_the_first_prompt(exact_count: bool) -> None:
    """$0.60 cannot cover the estimated prompt, and covers the counted one."""
    ctx = _cjk_context()
    mock = start_mock(research_scenario(with_image=False))
    try:
        b = backend(mock, exact_count=exact_count)
        run = b.new_run(0.60)
        budget = Budget(0.60, price_for(b.model))
        if exact_count:
            assert b.run(ctx, budget=budget, run=run, validate=validate_proposal) is not None
        else:
            with pytest.raises(BudgetExceeded, match="budget"):
                b.run(ctx, budget=budget, run=run, validate=validate_proposal)
        counted = [r for r in mock.requests if r.path == "/v1/messages/count_tokens"]
    finally:
        mock.stop()
    assert len(counted) == (1 if exact_count else 0)
    if exact_count:  # the count covered the whole first prompt, and the estimate was far above it
        assert (
            counted[0].body["system"] == ctx.system
            and "日本語" in counted[0].body["messages"][0]["content"]
        )
        assert estimate_tokens(ctx.system, ctx.user) > 3 * (len(counted[0].raw) // 4)


def test_a_failed_count_falls_back_to_the_estimate_with_a_warning() -> None:
    mock = start_mock(research_scenario(with_image=False))
    mock.count_tokens_error = error_reply(404, "not_found_error", "no count_tokens here")
    try:
        proposal, run, _ = run_backend(backend(mock))
    finally:
        mock.stop()
    assert proposal is not None and mock.message_requests
    assert any("could not be counted" in w and "character estimate" in w for w in run.warnings)
