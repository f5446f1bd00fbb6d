"""Embedded images in a diff: each ``data:image/...;base64`` source is swapped for a short
reference (``oo-image:N``) so hunks never carry base64 text; thumbnails are made with Pillow
on demand and kept in a small cache."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, UnidentifiedImageError

from oo_nb.format.names import IMAGE_REF_PREFIX, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE

__all__ = ["REF_PREFIX", "ImageRef", "ImageTable"]

REF_PREFIX = IMAGE_REF_PREFIX  # a hunk shows an embedded image as oo-image:N
_DATA_SRC = re.compile(r"""data:(image/[a-zA-Z0-9.+-]+)((?:;[^,"'\s]*)?),([^"'\s)]*)""")
_REF = re.compile(rf"{re.escape(IMAGE_REF_PREFIX)}(\d+)")
THUMB_PX = 160


@dataclass(frozen=True)
class ImageRef:
    ref: str  # "oo-image:N", what hunks and editors show instead of the data
    mime: str
    size_bytes: int  # decoded size
    sha256: str
    src: str = field(repr=False)  # the full data URI, only for writing back

    @property
    def label(self) -> str:
        return f"{self.mime.removeprefix('image/')} image, {self.size_bytes / 1024:.1f} KB"

    def thumbnail_png(self) -> bytes | None:
        """A PNG at most 160 px on its longer side, or None when Pillow cannot read it."""
        return _thumbnail(self.src)

    def thumbnail_data_uri(self) -> str | None:
        png = self.thumbnail_png()
        return None if png is None else "data:image/png;base64," + base64.b64encode(png).decode()


class ImageTable:
    """The embedded images of both documents in a diff, numbered once."""

    def __init__(self) -> None:
        self._by_src: dict[str, ImageRef] = {}
        self._by_ref: dict[str, ImageRef] = {}

    def shrink(self, html: str) -> tuple[str, tuple[ImageRef, ...]]:
        """``html`` with every embedded image replaced by its reference, and those images."""
        if "data:image" not in html:
            return html, ()
        found: list[ImageRef] = []

        def swap(m: re.Match[str]) -> str:
            image = self.add(m.group(0), m.group(1), m.group(2), m.group(3))
            found.append(image)
            return image.ref

        return _DATA_SRC.sub(swap, html), tuple(dict.fromkeys(found))

    def add(self, src: str, mime: str, params: str, payload: str) -> ImageRef:
        known = self._by_src.get(src)
        if known is not None:
            return known
        size = _decoded_size(payload, ";base64" in params.lower())
        image = ImageRef(
            f"{REF_PREFIX}{len(self._by_src) + 1}",
            mime.lower(),
            size,
            hashlib.sha256(src.encode()).hexdigest(),
            src,
        )
        self._by_src[src] = image
        self._by_ref[image.ref] = image
        return image

    def expand(self, html: str) -> str:
        """Put the full data back for every known reference (unknown ones stay as they are)."""
        return _REF.sub(
            lambda m: self._by_ref[m.group(0)].src if m.group(0) in self._by_ref else m.group(0),
            html,
        )

    def thumbnails(self, html: str) -> str:
        """Replace references with thumbnails, for previews."""

        def thumb(m: re.Match[str]) -> str:
            image = self._by_ref.get(m.group(0))
            return (image.thumbnail_data_uri() or "") if image else ""

        return _REF.sub(thumb, html)

    def get(self, ref: str) -> ImageRef | None:
        return self._by_ref.get(ref)


def _decoded_size(payload: str, is_base64: bool) -> int:
    if not is_base64:
        return len(payload)
    return (len(payload.rstrip("=")) * 3) // 4


@lru_cache(maxsize=128)
def _thumbnail(src: str) -> bytes | None:
    m = _DATA_SRC.match(src)
    if m is None or ";base64" not in m.group(2).lower():
        return None
    try:
        data = base64.b64decode(m.group(3), validate=False)
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
        with img:
            width, height = img.size
            # the limit an image a proposal brings is held to: a larger one (a document's
            # 12000 px square) was decoded whole for a 160 px thumbnail (+144 MB, 1.8 s, and
            # Pillow's warning printed in the notebook); its label says what it is
            if (
                width > MAX_IMAGE_SIDE
                or height > MAX_IMAGE_SIDE
                or width * height > MAX_IMAGE_PIXELS
            ):
                return None
            img.thumbnail((THUMB_PX, THUMB_PX))
            out = img.convert("RGBA" if "A" in img.getbands() or img.mode == "P" else "RGB")
            buf = io.BytesIO()
            out.save(buf, format="PNG", optimize=True)
            return buf.getvalue()
    except (
        binascii.Error,
        UnidentifiedImageError,
        OSError,
        ValueError,
        Image.DecompressionBombError,
        Image.DecompressionBombWarning,
    ):
        return None
