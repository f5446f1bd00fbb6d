"""Inline ``data:`` images the model writes inside ``sections[].html`` go through the same checks
as the ``images`` field: decoded by Pillow with the pixel limit, real type = declared type, raster
only, resized and shrunk per the contract, counted against ``max_per_article``; or dropped with a
warning naming the section. Images already in the original article are not re-judged."""

from __future__ import annotations

import base64
import binascii
import io
import random
import re
import struct
import zlib
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from oo_nb.agent.candidate import Candidate, build_candidate
from oo_nb.agent.images import InlineImages, count_images
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.article_model import read_model
from oo_nb.format.blocks import ImagePolicy
from oo_nb.format.document import Document
from oo_nb.format.sanitize import is_safe_image_src, sanitize_html
from tests.support.hostile import image_findings

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="window.ooPwned=1"><script>window.ooPwned=2</script></svg>'
_SRC = re.compile(r'<img\b[^>]*?\ssrc="([^"]*)"')


def uri(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def encode(img: Image.Image, fmt: str, **kw: Any) -> bytes:
    out = io.BytesIO()
    img.save(out, fmt, **kw)
    return out.getvalue()


def small_png(colour: tuple[int, int, int] = (30, 120, 200)) -> bytes:
    return encode(Image.new("RGB", (120, 80), colour), "PNG")


def bomb_png(width: int, height: int) -> bytes:
    """A real 1-bit greyscale PNG of ``width`` x ``height`` black pixels: about 20 KB for
    13000 x 13000, 169 million pixels once decoded (``height`` a multiple of 500)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", binascii.crc32(kind + data))
        )

    z = zlib.compressobj(9)
    rows = b"\x00" * ((1 + (width + 7) // 8) * 500)
    body = b"".join(z.compress(rows) for _ in range(height // 500)) + z.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def doc_with(corpus_dir: Path, *, article_extra: str = "", **policy: Any) -> Document:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    if policy:
        contract = doc.block_json("oo-contract")
        contract["images"].update(policy)
        doc = doc.with_block("oo-contract", contract)
    if article_extra:
        html = doc.article_html
        at = html.index("</h2>", html.index('<h2 id="overview"')) + len("</h2>")
        doc = doc.with_article(html[:at] + "\n" + article_extra + html[at:])
    return doc


def build(
    doc: Document, html: str, *, sid: str = "new-sec", images: list[dict[str, Any]] | None = None
) -> Candidate:
    raw: dict[str, Any] = {"summary": "s", "sections": [{"id": sid, "title": "N", "html": html}]}
    if images:
        raw["images"] = images
    return build_candidate(
        doc,
        validate_proposal(raw),
        RunInfo("anthropic", "m"),
        today=date(2026, 3, 1),
        fetch_image=lambda url: small_png(),
    )


def new_srcs(cand: Candidate, doc: Document) -> list[str]:
    old = set(_SRC.findall(doc.article_html))
    return [s for s in _SRC.findall(cand.document.article_html) if s not in old]


def test_decompression_bombs_are_dropped_with_a_warning(corpus_dir: Path) -> None:
    doc = doc_with(corpus_dir)
    bomb = bomb_png(13_000, 13_000)
    huge = _header_only(30_000, 30_000)
    assert len(bomb) < 30_000 and is_safe_image_src(uri(bomb))  # the text check alone lets it in
    html = "<p>Look.</p>" + "".join(f'<img src="{uri(bomb)}" alt="b">' for _ in range(4))
    html += f'<figure><img src="{uri(huge)}" alt="h"><figcaption>Huge</figcaption></figure>'
    cand = build(doc, html)
    assert new_srcs(cand, doc) == []
    assert "Huge" not in cand.document.article_html  # the figure went with its only image
    dropped = [w for w in cand.warnings if w.startswith("sections[0] (new-sec): inline image")]
    assert len(dropped) == 5 and all("decompression bomb" in w for w in dropped)
    assert "<p>Look.</p>" in cand.document.article_html.replace("\n", "")


def _header_only(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def test_markup_posing_as_an_image_is_dropped(corpus_dir: Path) -> None:
    doc = doc_with(corpus_dir)
    fake_gif = uri(SVG, "image/gif")
    assert is_safe_image_src(fake_gif)  # the sanitiser's text check alone lets it in
    gif_headed = uri(b"GIF89a" + SVG, "image/gif")
    png_then_html = uri(small_png() + b"<script>window.ooPwned=3</script>", "image/png")
    html = f'<p>x</p><img src="{fake_gif}" alt="a"><img src="{gif_headed}" alt="b"><img src="{png_then_html}" alt="c">'
    cand = build(doc, html)
    page = cand.document.article_html
    assert "PHN2Z" not in page and "<svg" not in page and "ooPwned" not in page
    srcs = new_srcs(cand, doc)
    assert len(srcs) == 1  # the PNG with trailing HTML is re-encoded: the trailer is gone
    assert b"<script" not in base64.b64decode(srcs[0].partition(",")[2])
    assert any("inline image 1 dropped" in w and "markup" in w for w in cand.warnings)
    assert any("inline image 2 dropped" in w and "markup" in w for w in cand.warnings)
    assert image_findings(cand.document.text, doc.text, max_kb=150, max_px=800) == []


def test_declared_type_must_match_the_data(corpus_dir: Path) -> None:
    doc = doc_with(corpus_dir)
    cand = build(doc, f'<p>x</p><img src="{uri(small_png(), "image/jpeg")}" alt="a">')
    assert new_srcs(cand, doc) == []
    assert any("declared image/jpeg but the data is PNG" in w for w in cand.warnings)


def test_oversized_image_is_resized_and_shrunk_per_policy(corpus_dir: Path) -> None:
    doc = doc_with(corpus_dir, resize_max_px=100, max_file_kb=12)
    rnd = random.Random(7)
    big = encode(Image.frombytes("RGB", (250, 180), rnd.randbytes(250 * 180 * 3)), "PNG")
    assert len(big) > 100 * 1024
    cand = build(
        doc,
        f'<p>x</p><figure><img src="{uri(big)}" alt="n" width="250" height="180"><figcaption>C</figcaption></figure>',
    )
    (src,) = new_srcs(cand, doc)
    data = base64.b64decode(src.partition(",")[2])
    assert src.startswith("data:image/png;base64,") and len(data) <= 12 * 1024
    with Image.open(io.BytesIO(data)) as img:
        assert img.format == "PNG" and max(img.size) <= 100
    assert 'width="250"' not in cand.document.article_html
    assert any("1 inline image(s)" in n for n in cand.notes)
    assert image_findings(cand.document.text, doc.text, max_kb=12, max_px=100) == []


def test_too_many_images_counts_inline_and_fetched(corpus_dir: Path) -> None:
    doc = doc_with(corpus_dir, max_per_article=2)
    pngs = [uri(small_png((i * 40, 100, 200))) for i in range(4)]
    html = "<p>x</p>" + "".join(f'<img src="{p}" alt="{i}">' for i, p in enumerate(pngs))
    fetched = [
        {
            "url": "https://img.example/a.png",
            "page_url": "https://img.example/",
            "caption": "c",
            "alt": "a",
        }
    ]
    cand = build(doc, html, images=fetched)
    assert len(new_srcs(cand, doc)) == 2 and cand.images_added == 0
    over = [w for w in cand.warnings if "max_per_article=2" in w]
    assert [w.split(":")[0] for w in over[:2]] == ["sections[0] (new-sec)"] * 2
    assert any(w.startswith("images[0:] skipped") for w in over)


def test_images_not_allowed_drops_new_inline_images(corpus_dir: Path) -> None:
    doc = doc_with(corpus_dir, allow=False)
    cand = build(doc, f'<p>x</p><img src="{uri(small_png())}" alt="a">')
    assert new_srcs(cand, doc) == []
    assert any("does not allow images" in w and "sections[0]" in w for w in cand.warnings)


def test_images_of_the_original_article_are_not_rejudged(corpus_dir: Path) -> None:
    # Over today's policy (80 KB > max_file_kb=1, larger than resize_max_px): kept byte for byte.
    rnd = random.Random(3)
    old = uri(encode(Image.frombytes("RGB", (200, 150), rnd.randbytes(200 * 150 * 3)), "PNG"))
    figure = f'<figure class="fig-right"><img src="{old}" alt="old"><figcaption>Old.</figcaption></figure>'
    doc = doc_with(
        corpus_dir, article_extra=figure, max_file_kb=1, resize_max_px=50, max_per_article=1
    )
    new = uri(small_png())
    cand = build(doc, f'<p>Rewritten.</p>{figure}<img src="{new}" alt="n">', sid="overview")
    page = cand.document.article_html
    assert page.count(old) == 1 and new not in page
    assert any("inline image 2 dropped" in w and "max_per_article=1" in w for w in cand.warnings)


@pytest.mark.parametrize(
    "hidden",
    [
        "<p title='<img src=\"{src}\">'>a title</p>",
        '<!-- <img src="{src}"> -->',
        '<p><img data-src="{src}" alt="lazy"></p>',
        '<textarea><img src="{src}"></textarea>',
    ],
)
def test_an_image_src_only_written_in_the_article_is_judged(corpus_dir: Path, hidden: str) -> None:
    """Only an image the original article shows is kept unjudged: the same text inside an
    attribute value, a comment, a ``data-src`` or raw text shows no image (issue 26)."""
    rnd = random.Random(3)
    old = uri(encode(Image.frombytes("RGB", (200, 150), rnd.randbytes(200 * 150 * 3)), "PNG"))
    doc = doc_with(
        corpus_dir, article_extra=hidden.format(src=old), max_file_kb=1, resize_max_px=50
    )
    cand = build(doc, f'<p>Rewritten.</p><img src="{old}" alt="n">', sid="overview")
    shown = [n.attr("src") for n in read_model(cand.document.article_html).elements("img")]
    assert old not in shown
    assert any("inline image 1 dropped: cannot be made smaller" in w for w in cand.warnings)


def test_an_img_written_in_an_attribute_or_a_comment_counts_as_no_image(corpus_dir: Path) -> None:
    """``max_per_article`` counts the images the kept article shows (issue 26): the text "<img"
    in a title or a comment left no room for a real one."""
    assert count_images('<p title="<img src=x>">t</p><!-- <img> --><img src="x">') == 1
    hidden = '<p title=\'<img src="x">\'>a title</p><!-- <img src="y"> -->'
    doc = doc_with(corpus_dir, article_extra=hidden, max_per_article=1)
    cand = build(doc, f'<p>x</p><img src="{uri(small_png())}" alt="a">')
    assert len(read_model(cand.document.article_html).elements("img")) == 1, cand.warnings


def test_vetting_changes_only_the_images_it_judges() -> None:
    """The sanitised fragment keeps its bytes (an entity, a quoted attribute) around an image
    that goes, with its figure, or whose data is re-encoded."""
    figure = (
        '<figure><img src="data:image/png;base64,AAAA" alt="x"><figcaption>C</figcaption></figure>'
    )
    kept = f'<img src="{uri(small_png())}" alt="k" width="900">'
    text = '<p title="x&quot;y">a&nbsp;b</p>\n'
    fragment = sanitize_html(f"{text}{figure}\n{kept}")
    warnings: list[str] = []
    vetted = InlineImages(ImagePolicy(), read_model(""), 0).vet(fragment, "s", warnings)
    assert vetted.startswith(f"{text}\n<img ") and 'alt="k"' in vetted and "width" not in vetted
    assert len(warnings) == 1 and "inline image 1 dropped" in warnings[0]
