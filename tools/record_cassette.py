"""Record cassettes for the replay backend.

- ``record_demo_cassette(doc_path, out_path, scenario)``: run a real update of ``doc_path`` against
  the loopback mock (scenario ``"research"``, ``"paused"`` or any mock responder), recording every
  exchange; the cassette holds no key and no auth header. Writes only ``out_path``.
- ``record_live_cassette(...)``: the same against a live endpoint (needs a key; the key is scrubbed).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from oo_nb.agent.backends.recording import RecordingTransport

__all__ = ["record_demo_cassette", "record_live_cassette"]

SCENARIOS = ("research", "paused")
_MARKER_KEY = "sk-ant-test-MARKER"  # what the mock is called with while recording (never written)


def _responder(scenario: str | Callable[..., Any]) -> Any:
    from tests.support.mock_scenarios import research_scenario

    if callable(scenario):
        return scenario
    if scenario not in SCENARIOS:
        raise ValueError(
            f"unknown scenario {scenario!r} (choose {', '.join(SCENARIOS)} or pass a responder)"
        )
    # No image: a replayed run could not download it from a mock that is gone.
    return research_scenario(with_image=False, pause_after_search=scenario == "paused")


def _record(
    doc_path: Path,
    out_path: Path,
    transport: RecordingTransport,
    *,
    api_key: str,
    base_url: str,
    model: str | None,
    today: date | None,
    budget_usd: float | None,
    label: str,
) -> Path:
    import httpx2

    from oo_nb.agent.backends.anthropic import AnthropicBackend, resolve_model
    from oo_nb.agent.backends.conversation import AgentSettings
    from oo_nb.agent.run import UpdateOptions, prepare_update
    from oo_nb.format.document import Document

    opts = UpdateOptions(force=True, model=model, budget_usd=budget_usd, today=today)
    chosen = resolve_model(model, Document.read(doc_path).contract.model)
    backend = AnthropicBackend(
        model=chosen,
        api_key=api_key,
        base_url=base_url,
        http_client=httpx2.Client(transport=transport),
        settings=AgentSettings(model=chosen),
        max_retries=0,
    )
    result = prepare_update(doc_path, opts, backend=backend)
    run = result.run
    return transport.save(
        out_path,
        label=label,
        document=doc_path.name,
        model=chosen,
        summary=result.message,
        cost_usd=round(run.cost_usd, 6) if run else 0.0,
    )


def record_demo_cassette(
    doc_path: str | Path,
    out_path: str | Path,
    scenario: str | Callable[..., Any] = "research",
    *,
    model: str | None = None,
    today: date | None = None,
    budget_usd: float | None = None,
) -> Path:
    """Record a demo cassette for ``doc_path`` from the loopback mock. Returns ``out_path``.
    The document itself is only read."""
    from tests.support.mock_api import MockAPI

    mock = MockAPI(api_key=_MARKER_KEY)
    mock.responder = _responder(scenario)
    with mock:
        transport = RecordingTransport()
        try:
            return _record(
                Path(doc_path),
                Path(out_path),
                transport,
                api_key=_MARKER_KEY,
                base_url=mock.base_url,
                model=model,
                today=today,
                budget_usd=budget_usd,
                label=f"demo: mock scenario {scenario if isinstance(scenario, str) else 'custom'}",
            )
        finally:
            transport.close()


def record_live_cassette(
    doc_path: str | Path,
    out_path: str | Path,
    *,
    api_key: str,
    base_url: str = "https://api.anthropic.com",
    model: str | None = None,
    budget_usd: float | None = None,
) -> Path:
    """Record a real update (costs money; the key is scrubbed from the cassette)."""
    transport = RecordingTransport()
    try:
        return _record(
            Path(doc_path),
            Path(out_path),
            transport,
            api_key=api_key,
            base_url=base_url,
            model=model,
            today=None,
            budget_usd=budget_usd,
            label="live",
        )
    finally:
        transport.close()
