"""Images for a proposal: download (https only, size and time limits), check the real type with
Pillow, resize, shrink under the contract's size limit, embed as a ``data:`` URI in a figure.

Pillow decides what a file is, never its name or Content-Type. Accepted: PNG, JPEG, GIF, WebP
(SVG and everything else refused). Decompression bombs are stopped before decoding by an explicit
pixel limit, and Pillow's own ``DecompressionBombWarning`` is turned into a refusal. Re-encoding
drops metadata (EXIF, GPS, text chunks); animations keep their first frame only.
"""

from __future__ import annotations

import base64
import binascii
import html as html_lib
import io
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image, ImageFile, UnidentifiedImageError

from oo_nb.errors import ValidationError
from oo_nb.format.article_model import Model, Node, read_model
from oo_nb.format.blocks import Contract, ImagePolicy, domain_of
from oo_nb.format.model_edits import IMG_START, spliced
from oo_nb.format.names import MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE
from oo_nb.format.sanitize import safe_http_url, sanitize_html, sanitize_text
from oo_nb.format.vocab import listed_domain

if TYPE_CHECKING:
    from oo_nb.agent.proposal import ProposedImage
    from oo_nb.agent.sections import Chunk

__all__ = [
    "MAX_DOWNLOAD_BYTES",
    "MAX_PIXELS",
    "ImageRejected",
    "InlineImages",
    "PreparedImage",
    "add_images",
    "count_images",
    "figure_html",
    "prepare_image",
]

MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024
MAX_PIXELS = MAX_IMAGE_PIXELS  # (format.names: the review's thumbnails keep to it too)
MAX_SIDE = MAX_IMAGE_SIDE
MIN_SIDE = 48  # shrinking stops here: smaller than this is not worth showing
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
_DATA_URI = re.compile(r"^data:(image/[a-z]+);base64,(.*)$", re.DOTALL)
_SIZE = frozenset(("width", "height"))  # an image re-encoded here loses the original's size


class ImageRejected(ValidationError):
    """The image cannot be used (wrong type, too large, a bomb, cannot be shrunk enough)."""


@dataclass(frozen=True)
class PreparedImage:
    format: str  # PNG | JPEG | GIF | WEBP
    data: bytes
    width: int
    height: int

    @property
    def mime(self) -> str:
        return _FORMATS[self.format]

    @property
    def data_uri(self) -> str:
        return f"data:{self.mime};base64," + base64.b64encode(self.data).decode("ascii")


# --------------------------------------------------------------------------- checking and shrinking
def _open(data: bytes) -> Image.Image:
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            img = Image.open(io.BytesIO(data))
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise ImageRejected(f"refused as a decompression bomb ({exc})") from None
        except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
            raise ImageRejected("not an image Pillow can read") from None
    return img


def _check(data: bytes) -> tuple[str, int, int]:
    head = data[:1024].lstrip().lower()
    if head.startswith((b"<", b"\xef\xbb\xbf<")) or b"<svg" in head:
        raise ImageRejected("markup (SVG or HTML) is not accepted as an image")
    img = _open(data)
    fmt = img.format or ""
    if fmt not in _FORMATS:
        raise ImageRejected(f"type {fmt or 'unknown'} is not accepted (PNG, JPEG, GIF, WebP only)")
    width, height = img.size
    if (
        width < 1
        or height < 1
        or width > MAX_SIDE
        or height > MAX_SIDE
        or width * height > MAX_PIXELS
    ):
        raise ImageRejected(
            f"{width}x{height} pixels is over the limit ({MAX_PIXELS} pixels): possible decompression bomb"
        )
    try:
        img.verify()  # checks structure and CRCs without decoding pixels
    except Exception as exc:  # Pillow raises many types for broken files
        raise ImageRejected(f"the image is damaged ({type(exc).__name__})") from None
    return fmt, width, height


def _load(data: bytes) -> Image.Image:
    img = _open(data)  # verify() leaves the object unusable: open again
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        previous = ImageFile.LOAD_TRUNCATED_IMAGES
        ImageFile.LOAD_TRUNCATED_IMAGES = False
        try:
            img.seek(0)
            img.load()
        except Exception as exc:
            raise ImageRejected(f"the image cannot be decoded ({type(exc).__name__})") from None
        finally:
            ImageFile.LOAD_TRUNCATED_IMAGES = previous
    return img


def _normalise_mode(img: Image.Image, fmt: str) -> Image.Image:
    keep_transparency = img.info.get("transparency")
    if fmt == "JPEG":
        return img if img.mode in ("RGB", "L") else img.convert("RGB")
    if fmt == "GIF":
        return img if img.mode in ("P", "L") else img.convert("P", palette=Image.Palette.ADAPTIVE)
    if img.mode in ("RGBA", "RGB", "LA", "L"):
        return img
    if img.mode == "P" or keep_transparency is not None:
        return img.convert("RGBA")  # palette or keyed transparency -> real alpha, kept
    return img.convert("RGBA" if "A" in img.getbands() else "RGB")


def _encode(img: Image.Image, fmt: str, step: int) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        quality = (85, 75, 65, 55, 45)[min(step, 4)]
        img.save(out, "JPEG", quality=quality, optimize=True, progressive=True)
    elif fmt == "WEBP":
        quality = (80, 70, 60, 50, 40)[min(step, 4)]
        img.save(out, "WEBP", quality=quality, method=4)
    elif fmt == "GIF":
        img.save(out, "GIF", optimize=True)
    else:
        target = img
        if step >= 1 and img.mode in ("RGBA", "RGB"):
            target = img.quantize(colors=256 if step == 1 else 64, method=Image.Quantize.FASTOCTREE)
        target.save(out, "PNG", optimize=True)
    return out.getvalue()


def prepare_image(data: bytes, *, max_px: int = 800, max_kb: int = 150) -> PreparedImage:
    """Check, resize to at most ``max_px`` on the longer side (format kept, PNG alpha kept) and
    shrink until at most ``max_kb`` KiB. Raises ``ImageRejected`` with the reason."""
    if len(data) > MAX_DOWNLOAD_BYTES * 2:
        raise ImageRejected(f"{len(data)} bytes is too large")
    fmt, _, _ = _check(data)
    img = _normalise_mode(_load(data), fmt)
    transparency = img.info.get("transparency")
    img.info = {"transparency": transparency} if transparency is not None else {}
    side = max(16, min(max_px, 4000))
    if max(img.size) > side:
        resample = Image.Resampling.NEAREST if img.mode == "P" else Image.Resampling.LANCZOS
        img.thumbnail((side, side), resample)
    limit = max(1, max_kb) * 1024
    for _ in range(12):
        for step in range(5 if fmt in ("JPEG", "WEBP") else 3 if fmt == "PNG" else 1):
            encoded = _encode(img, fmt, step)
            if len(encoded) <= limit:
                return PreparedImage(fmt, encoded, img.width, img.height)
        if min(img.size) * 3 // 4 < MIN_SIDE:
            break
        img = img.resize(
            (img.width * 3 // 4, img.height * 3 // 4),
            Image.Resampling.LANCZOS if img.mode != "P" else Image.Resampling.NEAREST,
        )
    raise ImageRejected(f"cannot be made smaller than {max_kb} KB")


# --------------------------------------------------------------------------- figure
def figure_html(
    image: PreparedImage, *, caption: str, alt: str, source_url: str, layout: str
) -> str:
    """``<figure class=LAYOUT><img src=data: alt><figcaption>Caption. <span class="img-src">
    Source: <a href=page>domain</a></span></figcaption></figure>``, sanitised."""
    text = sanitize_text(caption, max_len=600)
    if text and text[-1] not in ".!?…":
        text += "."
    alt_text = sanitize_text(alt, max_len=300) or text
    link = safe_http_url(source_url)
    credit = ""
    if link:
        credit = (
            f' <span class="img-src">Source: <a href="{html_lib.escape(link)}">'
            f"{html_lib.escape(domain_of(link), quote=False)}</a></span>"
        )
    layout = (
        layout if layout in ("fig-right", "fig-left", "fig-full", "fig-center") else "fig-right"
    )
    raw = (
        f'<figure class="{layout}"><img src="{image.data_uri}" alt="{html_lib.escape(alt_text)}">'
        f"<figcaption>{html_lib.escape(text, quote=False)}{credit}</figcaption></figure>"
    )
    return sanitize_html(raw)


def add_images(
    chunks: list[Chunk],
    images: Sequence[ProposedImage],
    contract: Contract,
    fetch_image: Callable[[str], bytes] | None,
    warnings_out: list[str],
    fetched: dict[str, bytes] | None = None,
) -> int:
    """Fetch, prepare and insert the proposal's images at the top of their sections (after the
    heading). Returns how many were added; every skip is a warning. ``fetched`` receives each
    inserted image's prepared bytes by URL (a saved proposal keeps them, so that its review
    rebuilds the candidate without downloading again)."""
    if not images:
        return 0
    policy = contract.images
    if not policy.allow:
        warnings_out.append(f"{len(images)} image(s) skipped: the contract does not allow images")
        return 0
    if fetch_image is None:
        warnings_out.append(f"{len(images)} image(s) skipped: no image downloader in this run")
        return 0
    room = policy.max_per_article - sum(count_images(c.text) for c in chunks)
    sections = [c for c in chunks if c.id and c.id != "references"]
    added = 0
    for i, item in enumerate(images):
        if room <= 0:
            warnings_out.append(
                f"images[{i}:] skipped: the article already has max_per_article={policy.max_per_article} images"
            )
            break
        url = safe_http_url(item.url)
        if url is None or not url.lower().startswith("https:"):
            warnings_out.append(f"images[{i}] skipped: only https image URLs are fetched")
            continue
        page = safe_http_url(item.page_url) or url
        denied = listed_domain(url, contract.deny_domains) or listed_domain(
            page, contract.deny_domains
        )
        if denied:
            warnings_out.append(f"images[{i}] skipped: {denied} is on the contract's deny list")
            continue
        try:
            data = fetch_image(url)
            prepared = prepare_image(data, max_px=policy.resize_max_px, max_kb=policy.max_file_kb)
        except ImageRejected as exc:
            warnings_out.append(f"images[{i}] skipped: {exc.message} ({domain_of(url)})")
            continue
        except Exception as exc:  # the downloader is injected: any failure only skips the image
            warnings_out.append(f"images[{i}] skipped: download failed ({_reason(exc)})")
            continue
        figure = figure_html(
            prepared, caption=item.caption, alt=item.alt, source_url=page, layout=item.layout
        )
        target = next((c for c in sections if c.id == item.section), None)
        if target is None:
            if item.section:
                warnings_out.append(
                    f"images[{i}]: no section {item.section!r}, placed in the first section"
                )
            target = sections[0] if sections else chunks[0]
        target.body = "\n" + figure + "\n" + target.body
        target.changed = True
        if fetched is not None:
            fetched[url] = prepared.data
        room -= 1
        added += 1
    return added


def count_images(text: str) -> int:
    """How many images an article fragment shows: every ``<img>`` element, in a figure or not
    (not the text "<img" in an attribute value or a comment)."""
    return len(read_model(text).elements("img")) if IMG_START.search(text) else 0


class InlineImages:
    """The ``data:`` images the model wrote inside section HTML, judged like the ``images``
    field: decoded and checked by Pillow (pixel limit, real type = declared type, raster only),
    resized and shrunk per the contract's policy and re-encoded, or dropped with a warning that
    names the section. The sanitiser only checks their text; this decodes them.

    An image whose exact ``src`` is already in the original article is kept as it is (it was
    judged when it came in). Every image counts against ``max_per_article``; ``kept_images`` is
    how many the untouched part of the article already shows."""

    def __init__(self, policy: ImagePolicy, original_article: Model, kept_images: int) -> None:
        self.policy = policy
        self.known = _image_srcs(original_article)
        self.room = policy.max_per_article - kept_images
        self.reencoded = 0
        self.dropped = 0
        self._seen: dict[str, PreparedImage | str] = {}  # src -> result or refusal, for repeats

    def vet(self, fragment: str, where: str, warnings_out: list[str]) -> str:
        """``fragment`` is sanitised section HTML; returns it with every new image re-encoded
        or removed (a figure left without an image goes too, caption included). An edit is a
        splice at the image's (or the figure's) span: every other byte stays."""
        if not IMG_START.search(fragment):
            return fragment
        edits: dict[int, tuple[int, str]] = {}  # start -> (end, replacement)
        dropped: set[int] = set()
        model = read_model(fragment)  # (held: a node's parent link is weak)
        for n, node in enumerate(model.elements("img"), 1):
            reason, src = self._judge(node)
            if reason is None:
                if src is not None:
                    edits[node.start] = (node.end, _image_tag(node, src))
                continue
            warnings_out.append(f"{where}: inline image {n} dropped: {reason}")
            self.dropped += 1
            dropped.add(id(node))
            edits[node.start] = (node.end, "")
            figure = node.parent
            if (
                figure is not None
                and figure.name == "figure"
                and all(id(img) in dropped for img in figure.elements("img"))
            ):
                edits[figure.start] = (figure.end, "")
        return spliced(fragment, edits)

    def _judge(self, node: Node) -> tuple[str | None, str | None]:
        """(None, the src to write, None when it stays as it is) when ``node`` stays, else (why
        it goes, None)."""
        src = (node.attr("src") or "").strip()
        if src in self.known:
            self.room -= 1
            return None, None
        if not self.policy.allow:
            return "the contract does not allow images", None
        if self.room <= 0:
            return (
                f"the article already has max_per_article={self.policy.max_per_article} images",
                None,
            )
        result = self._seen.get(src)
        if result is None:
            result = self._seen[src] = self._prepare(src)
        if isinstance(result, str):
            return result, None
        self.room -= 1
        self.reencoded += 1
        return None, result.data_uri

    def _prepare(self, src: str) -> PreparedImage | str:
        m = _DATA_URI.match(src)
        if m is None:
            return "only base64 data: images can be embedded"
        try:
            data = base64.b64decode(m.group(2), validate=True)
        except (binascii.Error, ValueError):
            return "the base64 data is damaged"
        try:
            fmt, _, _ = _check(data)  # cheap (no pixel decoding): refuse a mislabelled file first
            if _FORMATS[fmt] != m.group(1):
                return f"declared {m.group(1)} but the data is {fmt}"
            return prepare_image(
                data, max_px=self.policy.resize_max_px, max_kb=self.policy.max_file_kb
            )
        except ImageRejected as exc:
            return exc.message


def _image_srcs(article: Model) -> frozenset[str]:
    """The ``src`` of every image the article shows, read as a browser reads it: not an
    ``<img`` inside an attribute value, a comment or raw text, not a ``data-src``."""
    images = article.elements("img")
    return frozenset(src.strip() for img in images if (src := img.attr("src")))


def _image_tag(node: Node, src: str) -> str:
    """``node``'s start tag with ``src``, and without the size it had for the original image."""
    attrs = [(a.name, src if a.name == "src" else a.value) for a in node.attrs or ()]
    kept = "".join(f' {name}="{html_lib.escape(v)}"' for name, v in attrs if name not in _SIZE)
    return f"<img{kept}>"


def _reason(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return sanitize_text(str(message), max_len=200)
