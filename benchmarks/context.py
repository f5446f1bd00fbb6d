"""Context size: bytes of the file versus bytes of the FIRST API request (the real JSON body the
SDK sends: system prompt, user message, tool definitions) for every corpus document, for corpus
documents with large embedded images, and for synthetic image documents (benchmarks/synth.py).
Target: ≤ 20% for image-heavy documents. Also the budget's token estimate of each first prompt
(ASCII at 2.5 chars a token, other characters one token per UTF-8 byte) against the old rule
(2.5 chars a token for everything), and on non-Latin samples.

    PYTHONPATH=. python benchmarks/context.py
"""

from __future__ import annotations

import base64
import contextlib
import io
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from oo_nb.agent.backends.anthropic import AnthropicBackend
from oo_nb.agent.backends.conversation import AgentSettings
from oo_nb.agent.budget import CHARS_PER_TOKEN, Budget, text_tokens
from oo_nb.agent.context import build_context
from oo_nb.agent.pricing import price_for
from oo_nb.errors import AgentError
from oo_nb.format.document import Document
from tests.support.corpus import corpus_dir
from tests.support.mock_api import MockAPI, error_reply

CORPUS = corpus_dir()  # OO_CORPUS, else tests/fixtures/corpus
DOCS = [
    "agi-declared.o-o.html",
    "ai-model-landscape.o-o.html",
    "anthropic-leadership.o-o.html",
    "yc-w26-batch.o-o.html",
]
TODAY = __import__("datetime").date(2026, 11, 29)
KEY = "sk-ant-test-MARKER"


@dataclass(frozen=True)
class Row:
    name: str
    file_bytes: int
    image_bytes: int  # bytes of the file taken by data: URIs
    request_bytes: int
    large_images: bool  # the case: a document with large images (target ≤ 20%)

    @property
    def ratio(self) -> float:
        return self.request_bytes / self.file_bytes

    @property
    def image_share(self) -> float:
        return self.image_bytes / self.file_bytes


def data_uri_bytes(doc: Document) -> int:
    return sum(len(m) for m in re.findall(r"data:image/[^\"']+", doc.text))


def photo_png(kb: int, seed: int) -> str:
    """A noisy RGB PNG of about ``kb`` KB (noise does not compress: realistic photo weight)."""
    from PIL import Image

    rng = random.Random(seed)
    side = int((kb * 1024 / 3) ** 0.5)
    img = Image.frombytes(
        "RGB", (side, side), bytes(rng.getrandbits(8) for _ in range(side * side * 3))
    )
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def with_images(doc: Document, count: int, kb: int) -> Document:
    """The document with ``count`` figures (the contract allows up to 8 of 150 KB each)."""
    sections = [
        s.id for s in doc.article.sections if s.level == 2 and s.id and s.id != "references"
    ]
    html = doc.article_html
    for i in range(count):
        sid = sections[i % len(sections)]
        fig = (
            f'\n<figure class="fig-right"><img src="{photo_png(kb, i)}" alt="Figure {i}"><figcaption>Figure {i}. '
            '<span class="img-src">Source: <a href="https://commons.wikimedia.org/">commons.wikimedia.org</a></span>'
            "</figcaption></figure>\n"
        )
        marker = f'<h2 id="{sid}">'
        at = html.index(marker) + len(marker)
        at = html.index("</h2>", at) + len("</h2>")
        html = html[:at] + fig + html[at:]
    return doc.with_article(html)


def first_request_bytes(doc: Document) -> int:
    """Send the first request to the loopback mock and measure its body."""
    with MockAPI(
        lambda req: error_reply(400, "invalid_request_error", "measured", should_retry=False),
        api_key=KEY,
    ) as mock:
        backend = AnthropicBackend(
            api_key=KEY,
            base_url=mock.base_url,
            max_retries=0,
            settings=AgentSettings(model="claude-sonnet-5-5"),
        )
        ctx = build_context(doc, today=TODAY)
        budget = Budget(5.0, price_for(backend.model))
        with contextlib.suppress(AgentError):
            backend.run(ctx, budget=budget, run=backend.new_run(5.0), validate=lambda raw: raw)
        return len(mock.message_requests[0].raw)


def rows(*, synth_docs: int = 4) -> list[Row]:
    out = []
    for name in DOCS:
        doc = Document.read(CORPUS / name)
        out.append(Row(name, len(doc.to_bytes()), 0, first_request_bytes(doc), False))
    for name, count in (("agi-declared.o-o.html", 4), ("yc-w26-batch.o-o.html", 8)):
        doc = with_images(Document.read(CORPUS / name), count, 150)
        out.append(
            Row(
                f"{name} + {count}×150 KB images",
                len(doc.to_bytes()),
                data_uri_bytes(doc),
                first_request_bytes(doc),
                True,
            )
        )
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        from synth import make_document, random_spec
    except ImportError:
        return out
    found = 0
    for i in range(200):
        spec = random_spec(f"bench-{i}", 0)
        if not spec.images or found >= synth_docs:
            continue
        found += 1
        doc = Document.parse(make_document(spec.slug, spec=spec))
        out.append(
            Row(
                f"synth {spec.slug}",
                len(doc.to_bytes()),
                data_uri_bytes(doc),
                first_request_bytes(doc),
                False,
            )
        )
    return out


def render(table: list[Row]) -> str:
    lines = [f"{'document':46} {'file B':>10} {'images':>7} {'1st request B':>14} {'ratio':>6}"]
    for r in table:
        mark = "  <- large images: target ≤ 20%" if r.large_images else ""
        lines.append(
            f"{r.name:46} {r.file_bytes:>10,} {r.image_share:>7.0%} {r.request_bytes:>14,} {r.ratio:>6.0%}{mark}"
        )
    heavy = [r for r in table if r.large_images]
    if heavy:
        worst = max(r.ratio for r in heavy)
        lines.append(
            f"documents with large images, worst ratio: {worst:.1%} ({'PASS' if worst <= 0.20 else 'FAIL'}, target ≤ 20%)"
        )
    lines.append(
        "(images = share of the file's bytes in data: URIs; 1st request = JSON body sent: system, user, tools)"
    )
    return "\n".join(lines)


SAMPLES = {
    "Japanese": "人工知能の最新動向について",
    "Chinese": "人工智能最新发展动态",
    "Russian": "Искусственный интеллект: последние новости",
    "emoji": "🤖🧠📈👨\u200d👩\u200d👧",
}


def estimates() -> str:
    """The token estimate against the old characters-only rule."""
    lines = [f"{'prompt':46} {'chars':>8} {'estimate':>9} {'old rule':>9} {'ratio':>6}"]
    texts = [
        (
            name,
            (lambda c: c.system + c.user)(build_context(Document.read(CORPUS / name), today=TODAY)),
        )
        for name in DOCS
    ]
    texts += [(f"sample: {k} ×800", v * 800) for k, v in SAMPLES.items()]
    for name, text in texts:
        new, old = text_tokens(text), len(text) / CHARS_PER_TOKEN
        lines.append(f"{name:46} {len(text):>8,} {new:>9,.0f} {old:>9,.0f} {new / old:>6.2f}")
    return "\n".join(lines)


def main() -> None:
    print(render(rows()))
    print()
    print(estimates())


if __name__ == "__main__":
    main()
