"""Images: real-type checks with Pillow, bombs, resizing with format and alpha kept, size limit,
the https-only downloader (against an httpx2 MockTransport), figures in the candidate."""

from __future__ import annotations

import io
import random
import struct
import zlib
from datetime import date
from pathlib import Path
from typing import Any

import httpx2
import pytest
from PIL import Image

from oo_nb.agent.candidate import build_candidate
from oo_nb.agent.image_fetch import fetch_image_https
from oo_nb.agent.images import ImageRejected, figure_html, prepare_image
from oo_nb.agent.proposal import validate_proposal
from oo_nb.agent.types import RunInfo
from oo_nb.format.document import Document


def encode(img: Image.Image, fmt: str, **kw: Any) -> bytes:
    out = io.BytesIO()
    img.save(out, fmt, **kw)
    return out.getvalue()


def noisy(size: tuple[int, int], mode: str = "RGB", seed: int = 1) -> Image.Image:
    rnd = random.Random(seed)
    return Image.frombytes(
        mode, size, bytes(rnd.getrandbits(8) for _ in range(size[0] * size[1] * len(mode)))
    )


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` (the decompression-bomb shape)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


SVG = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'


# --------------------------------------------------------------------------- prepare_image
def test_png_resized_with_alpha_kept() -> None:
    img = Image.new("RGBA", (2000, 1000), (255, 0, 0, 255))
    img.paste((0, 0, 0, 0), (0, 0, 1000, 1000))  # left half fully transparent
    out = prepare_image(encode(img, "PNG"), max_px=800, max_kb=150)
    assert out.format == "PNG" and (out.width, out.height) == (800, 400)
    back = Image.open(io.BytesIO(out.data)).convert("RGBA")
    assert back.getpixel((10, 10))[3] == 0 and back.getpixel((790, 10))[3] == 255
    assert out.data_uri.startswith("data:image/png;base64,")


def test_palette_png_transparency_kept() -> None:
    img = Image.new("P", (100, 100), 0)
    img.putpalette([0, 0, 0, 255, 255, 255] + [0] * 762)
    img.paste(1, (50, 0, 100, 100))
    out = prepare_image(encode(img, "PNG", transparency=0), max_px=50, max_kb=50)
    back = Image.open(io.BytesIO(out.data)).convert("RGBA")
    assert back.getpixel((5, 5))[3] == 0 and back.getpixel((45, 5))[3] == 255


def test_jpeg_shrinks_under_limit_and_drops_exif() -> None:
    img = noisy((1600, 1200))
    exif = Image.Exif()
    exif[0x010F] = "CameraMaker"  # Make
    data = encode(img, "JPEG", quality=95, exif=exif.tobytes())
    assert b"CameraMaker" in data
    out = prepare_image(data, max_px=800, max_kb=60)
    assert out.format == "JPEG" and len(out.data) <= 60 * 1024 and max(out.width, out.height) <= 800
    assert b"CameraMaker" not in out.data


@pytest.mark.parametrize("fmt", ["GIF", "WEBP"])
def test_other_formats_keep_their_format(fmt: str) -> None:
    out = prepare_image(encode(noisy((300, 200)), fmt), max_px=100, max_kb=100)
    assert out.format == fmt and max(out.width, out.height) <= 100


def test_cannot_shrink_enough_is_refused() -> None:
    with pytest.raises(ImageRejected, match="smaller than 1 KB"):
        prepare_image(encode(noisy((800, 800)), "PNG"), max_px=800, max_kb=1)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (SVG, "markup"),
        (b"\xef\xbb\xbf" + SVG, "markup"),
        (b"<html><script>alert(1)</script></html>", "markup"),
        (b"GIF89a" + b"\x00" * 10, "Pillow"),
        (b"not an image at all", "Pillow"),
        (b"", "Pillow"),
        (png_header_only(10_000, 10_000), "bomb"),
        (png_header_only(100_000, 100_000), "bomb"),
        (png_header_only(30_000, 10), "bomb"),
    ],
)
def test_refused_inputs(data: bytes, reason: str) -> None:
    with pytest.raises(ImageRejected, match=reason):
        prepare_image(data)


def test_oversized_input_refused() -> None:
    with pytest.raises(ImageRejected, match="too large"):
        prepare_image(b"\x89PNG" + b"\x00" * (11 * 1024 * 1024))


def test_other_pillow_formats_refused() -> None:
    with pytest.raises(ImageRejected, match="BMP"):
        prepare_image(encode(noisy((10, 10)), "BMP"))
    with pytest.raises(ImageRejected, match="TIFF"):
        prepare_image(encode(noisy((10, 10)), "TIFF"))


def test_truncated_png_refused() -> None:
    data = encode(noisy((200, 200)), "PNG")
    with pytest.raises(ImageRejected):
        prepare_image(data[: len(data) // 2])


def test_figure_html_escapes_and_links() -> None:
    out = prepare_image(encode(Image.new("RGB", (10, 10)), "PNG"))
    fig = figure_html(
        out,
        caption='A "cap" <script>x</script>',
        alt="<b>alt</b>",
        source_url="https://www.example.org/page",
        layout="fig-left",
    )
    assert fig.startswith('<figure class="fig-left"><img src="data:image/png;base64,')
    assert 'alt="alt"' in fig and "<script" not in fig
    assert (
        '<figcaption>A "cap". <span class="img-src">Source: <a href="https://www.example.org/page" rel="noopener noreferrer">example.org</a></span></figcaption>'
        in fig
    )
    no_link = figure_html(out, caption="c", alt="", source_url="javascript:alert(1)", layout="nope")
    assert (
        'class="fig-right"' in no_link and "javascript" not in no_link and "img-src" not in no_link
    )


# --------------------------------------------------------------------------- the downloader
def client_for(handler: Any) -> httpx2.MockTransport:
    return httpx2.MockTransport(handler)


PNG = encode(Image.new("RGB", (20, 20), (1, 2, 3)), "PNG")


def test_fetch_success_and_limits() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if path == "/ok.png":
            return httpx2.Response(200, content=PNG, headers={"content-type": "image/png"})
        if path == "/big":
            return httpx2.Response(200, content=b"x" * 5000)
        if path == "/liar":
            return httpx2.Response(200, content=b"x" * 10, headers={"content-length": "999999"})
        if path == "/svg":
            return httpx2.Response(200, content=SVG, headers={"content-type": "image/svg+xml"})
        if path == "/to-http":
            return httpx2.Response(302, headers={"location": "http://img.example/ok.png"})
        if path == "/to-ok":
            return httpx2.Response(301, headers={"location": "/ok.png"})
        if path == "/loop":
            return httpx2.Response(302, headers={"location": "/loop"})
        return httpx2.Response(404)

    t = client_for(handler)

    def get(p: str, **kw: Any) -> bytes:
        return fetch_image_https(f"https://img.example{p}", transport=t, check_host=False, **kw)

    assert get("/ok.png") == PNG
    assert get("/to-ok") == PNG
    for path, reason in [
        ("/big", "limit"),
        ("/liar", "limit"),
        ("/svg", "svg"),
        ("/to-http", "https"),
        ("/loop", "redirects"),
        ("/missing", "404"),
    ]:
        with pytest.raises(ImageRejected, match=reason):
            get(path, max_bytes=1000)


def test_fetch_refuses_http_and_private_hosts() -> None:
    calls: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(str(request.url))
        return httpx2.Response(200, content=PNG)

    t = client_for(handler)
    for url, reason in [
        ("http://img.example/a.png", "https"),
        ("javascript:alert(1)", "https"),
        ("https://127.0.0.1/a.png", "non-public"),
        ("https://[::1]/a.png", "non-public"),
        ("https://10.0.0.7/a.png", "non-public"),
    ]:
        with pytest.raises(ImageRejected, match=reason):
            fetch_image_https(url, transport=t)
    assert calls == []


_OCTAL = "https://0177.0.0.1/x.png"  # octal: the client refuses to read it
_WIDE = "https://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com/x.png"  # a full-width host


@pytest.mark.parametrize(
    ("url", "check_host"),
    [
        (_OCTAL, True),
        (_WIDE, True),
        (_OCTAL, False),
        (_WIDE, False),
        ("https://img.example/to-octal", False),  # a redirect to one (the host check resolves)
        ("https://img.example/to-wide", False),
    ],
)
def test_fetch_refuses_urls_the_client_cannot_read(url: str, check_host: bool) -> None:
    """Regression: ``httpx2.InvalidURL`` (not an ``HTTPError``) escaped instead of a refusal."""
    calls: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(str(request.url))
        where = {"/to-octal": _OCTAL, "/to-wide": _WIDE}
        location = where[request.url.path].encode()  # as a server sends it: UTF-8 bytes
        return httpx2.Response(302, headers=[(b"location", location)])

    t = client_for(handler)
    with pytest.raises(ImageRejected, match=r"not a URL that can be fetched \(Invalid"):
        fetch_image_https(url, transport=t, check_host=check_host)
    assert all("img.example" in c for c in calls)


# --------------------------------------------------------------------------- in the candidate
def _doc(corpus_dir: Path, images: dict[str, Any] | None = None) -> Document:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    if images is not None:
        contract = doc.block_json("oo-contract")
        contract["images"].update(images)
        doc = doc.with_block("oo-contract", contract)
    return doc


def _build(doc: Document, images: list[dict[str, Any]], fetch: Any) -> Any:
    raw = {
        "summary": "s",
        "sections": [{"id": "new-sec", "title": "N", "html": "<p>text</p>"}],
        "images": images,
    }
    return build_candidate(
        doc,
        validate_proposal(raw),
        RunInfo("anthropic", "m"),
        today=date(2026, 3, 1),
        fetch_image=fetch,
    )


def img(url: str = "https://img.example/a.png", **kw: Any) -> dict[str, Any]:
    return {
        "url": url,
        "page_url": "https://www.example.org/story",
        "caption": "A chart",
        "alt": "chart",
        **kw,
    }


def test_figures_inserted_in_their_section(corpus_dir: Path) -> None:
    big = encode(noisy((1200, 900)), "JPEG", quality=95)
    fetched: list[str] = []

    def fetch(url: str) -> bytes:
        fetched.append(url)
        return big

    cand = _build(
        _doc(corpus_dir),
        [img(section="overview", layout="fig-full"), img(section="nowhere")],
        fetch,
    )
    html = cand.document.article_html
    assert cand.images_added == 2 and len(fetched) == 2
    figures = cand.document.article.figures
    assert [f.section for f in figures] == [
        "overview",
        "overview",
    ]  # unknown section -> the first one
    assert all(f.mime == "image/jpeg" and f.bytes <= 150 * 1024 for f in figures)
    assert '<figure class="fig-full"><img src="data:image/jpeg;base64,' in html
    assert (
        'Source: <a href="https://www.example.org/story" rel="noopener noreferrer">example.org</a>'
        in html
    )
    assert any("nowhere" in w for w in cand.warnings)


def test_image_limits_and_refusals(corpus_dir: Path) -> None:
    calls: list[str] = []

    def fetch(url: str) -> bytes:
        calls.append(url)
        if url.endswith("svg"):
            return SVG
        if url.endswith("boom"):
            raise OSError("connection reset")
        if url.endswith("bomb"):
            return png_header_only(50_000, 50_000)
        return PNG

    images = [
        img("https://img.example/x.svg"),
        img("https://img.example/boom"),
        img("https://img.example/bomb"),
        img("http://img.example/plain.png"),
        img("https://www.reddit.com/a.png"),
        img("https://img.example/1.png"),
        img("https://img.example/2.png"),
        img("https://img.example/3.png"),
    ]
    cand = _build(_doc(corpus_dir, {"max_per_article": 2}), images, fetch)
    assert cand.images_added == 2
    joined = " | ".join(cand.warnings)
    for needle in ("markup", "connection reset", "bomb", "only https", "max_per_article=2"):
        assert needle in joined, needle
    assert "https://img.example/3.png" not in calls and not any("plain" in c for c in calls)
    assert "<svg" not in cand.document.article_html


def test_deny_listed_image_domain(corpus_dir: Path) -> None:
    cand = _build(_doc(corpus_dir), [img("https://i.reddit.com/a.png")], lambda url: PNG)
    assert cand.images_added == 0 and any("deny list" in w for w in cand.warnings)


def test_images_not_allowed(corpus_dir: Path) -> None:
    cand = _build(_doc(corpus_dir, {"allow": False}), [img()], lambda url: PNG)
    assert cand.images_added == 0 and "<figure" not in cand.document.article_html
    assert any("does not allow images" in w for w in cand.warnings)
