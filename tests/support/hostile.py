"""Hostile agent output through the real pipeline: ``validate_proposal`` → ``build_candidate``
→ ``store.write_document``, then the written file is checked as a browser and as bash would see
it (``payloads.active_findings``, ``payloads.shell_findings``) and every embedded image is
decoded and checked against the contract's limits."""

from __future__ import annotations

import base64
import binascii
import io
import re
import shutil
import struct
import zlib
from collections import Counter
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from oo_nb.errors import OOError
from oo_nb.format.document import Document
from oo_nb.store.store import write_document
from tests.support.corpus import corpus_dir
from tests.support.figures import Figure
from tests.support.payloads import PAYLOADS, Payload, active_findings, shell_findings

__all__ = ["detector_misses", "hostile_output", "image_findings", "image_payloads", "run_proposal"]

TODAY = date(2026, 2, 20)
_IMG_SRC = re.compile(r"""<img\b[^>]*?\ssrc\s*=\s*["']([^"']*)["']""", re.IGNORECASE)


# --------------------------------------------------------------------------- hostile images
def _png(width: int, height: int, rows: bytes | None = None, *, trailer: bytes = b"") -> bytes:
    """A greyscale PNG written by hand (so a bomb needs no memory to build)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", binascii.crc32(kind + data))
        )

    z = zlib.compressobj(9)
    row = b"\x00" + b"\x00" * width
    body = (
        z.compress(rows) if rows is not None else b"".join(z.compress(row) for _ in range(height))
    )
    body += z.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", body)
        + chunk(b"IEND", b"")
        + trailer
    )


def _noise_png(nbytes: int) -> bytes:
    from PIL import Image

    side = int((nbytes / 3) ** 0.5) + 1
    img = Image.frombytes(
        "RGB", (side, side), bytes((i * 7919) % 251 for i in range(side * side * 3))
    )
    out = io.BytesIO()
    img.save(out, "PNG", compress_level=0)
    return out.getvalue()


@cache
def image_payloads() -> dict[str, bytes]:
    """Named "images" a hostile page could serve."""
    script = b"<script>window.ooPwned='image'</script>"
    return {
        "img-svg-script": b'<svg xmlns="http://www.w3.org/2000/svg" onload="window.ooPwned=1"><script>window.ooPwned=2</script></svg>',
        "img-svg-xml-decl": b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        "img-html": b"<!DOCTYPE html><html><body>" + script + b"</body></html>",
        "img-png-trailing-html": _png(64, 64) + script,
        "img-pdf": b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n" + script,
        "img-truncated-png": _png(200, 200)[:60],
        "img-bomb-16k": _png(16_000, 16_000),  # 256 Mpx of zeros: a few hundred KB compressed
        "img-bomb-header": _png(60_000, 60_000, rows=b"\x00" * 10),  # huge size, almost no data
        "img-oversized-noise": _noise_png(6 * 1024 * 1024),
        "img-empty": b"",
    }


def _valid_png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (120, 80), (30, 120, 200)).save(out, "PNG")
    return out.getvalue()


def image_findings(page: str, baseline: str, *, max_kb: int, max_px: int) -> list[str]:
    """Every image the update added must be a raster data URI that decodes, within the limits."""
    from PIL import Image

    old = set(_IMG_SRC.findall(baseline))
    found = []
    for src in set(_IMG_SRC.findall(page)) - old:
        m = re.match(r"data:image/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/=]+)$", src)
        if not m:
            found.append(f"image src is not a raster data URI: {src[:40]!r}")
            continue
        data = base64.b64decode(m.group(2))
        try:
            with Image.open(io.BytesIO(data)) as img:
                img.load()
                size = img.size
        except Exception as exc:
            found.append(f"embedded image does not decode ({type(exc).__name__})")
            continue
        if len(data) > max_kb * 1024 or max(size) > max_px:
            found.append(f"embedded image over the limits ({len(data)} bytes, {size[0]}x{size[1]})")
        if b"<script" in data.lower() or b"<svg" in data.lower():
            found.append("embedded image carries markup")
    return found


# --------------------------------------------------------------------------- proposals
def _proposals(p: Payload, section: str) -> list[dict[str, Any]]:
    url = p.text if p.context == "url" else f"https://example.org/{p.name}"
    link = f'<a href="{p.text}">link</a>' if p.context == "url" else ""
    full = {
        "summary": f"Update {p.text}",
        "sections": [
            {
                "id": section,
                "title": f"Existing {p.text}",
                "html": f"<p>Before {p.text} after [s901]. {link}</p>\n{p.text}",
            },
            {"id": f"new-{p.name}", "title": p.text, "html": f"<h2>{p.text}</h2><p>{p.text}</p>"},
        ],
        "sources": [
            {
                "id": "s901",
                "url": url,
                "title": f"Source {p.text}",
                "tier": p.text[:60],
                "accessed": "2026-02-20",
            }
        ],
        "facts": [{"text": f"Fact {p.text}", "source_ids": ["s901"]}],
        "images": [
            {
                "url": "https://img.example/ok.png",
                "page_url": "https://img.example/",
                "caption": f"Caption {p.text}",
                "alt": f"Alt {p.text}",
                "layout": "fig-right",
            }
        ],
        "sentinel": {"status": "unknown", "evidence": f"Evidence {p.text}"},
    }
    # A hostile section id makes the whole proposal invalid or is cleaned: try it on its own.
    by_id = {"summary": "id", "sections": [{"id": p.text, "title": "T", "html": "<p>x</p>"}]}
    return [full, by_id]


def _image_proposal(name: str) -> dict[str, Any]:
    return {
        "summary": f"image {name}",
        "sections": [{"id": "overview-img", "title": "Images", "html": "<p>Images.</p>"}],
        "images": [
            {
                "url": f"https://img.example/{name}.png",
                "page_url": "https://img.example/",
                "caption": name,
                "alt": name,
                "section": "overview-img",
            }
        ],
    }


def run_proposal(base: Path, raw: dict[str, Any], images: dict[str, bytes]) -> dict[str, Any]:
    """One proposal through the pipeline on a fresh copy of ``base``; what happened."""
    from oo_nb.agent.candidate import build_candidate
    from oo_nb.agent.proposal import validate_proposal
    from oo_nb.agent.types import RunInfo

    folder = base.parent / f"run-{len(list(base.parent.iterdir()))}"
    folder.mkdir()
    path = folder / base.name
    shutil.copy(base, path)
    before = path.read_bytes()
    doc = Document.read(path)

    def fetch(url: str) -> bytes:
        return images.get(url.rsplit("/", 1)[-1].removesuffix(".png"), _valid_png())

    urls = {s.get("url", "") for s in raw.get("sources", [])} | {
        i["url"] for i in raw.get("images", [])
    }
    run = RunInfo(backend="replay", model="claude-sonnet-5-5", seen_urls=urls)
    try:
        proposal = validate_proposal(raw)
        candidate = build_candidate(doc, proposal, run, today=TODAY, fetch_image=fetch)
        write_document(candidate.document, expected=before, action="hostile test")
    except OOError as exc:
        return {
            "outcome": "refused",
            "message": str(exc),
            "findings": [],
            "changed": path.read_bytes() != before,
        }
    except Exception as exc:
        return {
            "outcome": "crash",
            "message": f"{type(exc).__name__}: {exc}",
            "findings": [],
            "changed": path.read_bytes() != before,
        }
    after = path.read_bytes()
    text, old = after.decode("utf-8"), before.decode("utf-8")
    policy = doc.contract.images
    findings = active_findings(after, baseline=before)
    findings += image_findings(text, old, max_kb=policy.max_file_kb, max_px=policy.resize_max_px)
    findings += shell_findings(path)
    new = Document.parse(after)
    if new.manifest.version != doc.manifest.version + 1:
        findings.append(f"manifest version {doc.manifest.version} -> {new.manifest.version}")
    return {
        "outcome": "written",
        "message": "",
        "findings": findings,
        "changed": True,
        "warnings": candidate.warnings,
    }


def _bases(workdir: Path, docs: int) -> list[Path]:
    names = ["yc-w26-batch.o-o.html", "agi-declared.o-o.html"][:docs]
    bases = []
    for name in names:
        folder = workdir / name.split(".")[0]
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(corpus_dir() / name, folder / name)
        bases.append(folder / name)
    if docs > 2:
        from oo_nb.edit.new import NewSpec, create_document

        folder = workdir / "new"
        created = create_document(
            NewSpec.from_text("Hostile test / a new document"), folder, today=TODAY
        )
        assert created.path is not None
        bases.append(created.path)
    return bases


def detector_misses(base: Path) -> tuple[int, list[str]]:
    """The check must be able to fail: each HTML, URL and heredoc payload put into the page RAW
    (no sanitiser, no escaping) must be reported. Returns how many were tried and the missed."""
    data = base.read_bytes()
    doc = Document.parse(data)
    assert doc.article_span is not None
    at = doc.article_span.start
    missed = []
    tried = [p for p in PAYLOADS if p.context in ("html", "url") or p.name == "heredoc-terminator"]
    for p in tried:
        piece = f'<p><a href="{p.text}">x</a></p>' if p.context == "url" else f"<p>{p.text}</p>"
        page = doc.text[:at] + piece + doc.text[at:]
        if p.context == "shell":
            raw = base.parent / f"raw-{p.name}.o-o.html"
            raw.write_text(page, "utf-8")
            found = shell_findings(raw)
        else:
            found = active_findings(page, baseline=data)
        if not found:
            missed.append(p.name)
    return len(tried), missed


def hostile_output(workdir: Path, *, docs: int = 3) -> list[Figure]:
    """Every payload (and every hostile image) through the pipeline on ``docs`` documents."""
    workdir.mkdir(parents=True, exist_ok=True)
    images = image_payloads()
    active: Counter[str] = Counter()
    details: list[str] = []
    outcomes: Counter[str] = Counter()
    crashes: list[str] = []
    refused_changed = 0
    runs = 0
    for base in _bases(workdir, docs):
        sections = Document.read(base).article.sections
        section = next(
            (s.id for s in sections if s.level == 2 and s.id != "references"), "overview"
        )
        jobs: list[tuple[str, dict[str, Any]]] = [
            (p.name, raw) for p in PAYLOADS for raw in _proposals(p, section)
        ]
        jobs += [(name, _image_proposal(name)) for name in images]
        for name, raw in jobs:
            result = run_proposal(base, raw, images)
            runs += 1
            outcomes[result["outcome"]] += 1
            refused_changed += result["outcome"] != "written" and result["changed"]
            if result["outcome"] == "crash":
                crashes.append(f"{name}: {result['message'][:120]}")
            if result["findings"]:
                active[name] += 1
                details.append(f"{base.name}/{name}: {result['findings'][0]}")
    names = {p.name for p in PAYLOADS} | set(images)
    tried, missed = detector_misses(_bases(workdir / "raw", 1)[0])
    return [
        Figure(
            "4 hostile",
            "raw payloads the detector misses",
            tried,
            ", ".join(missed) or 0,
            "0",
            not missed,
        ),
        Figure(
            "4 hostile",
            "payloads (text, HTML, URL, shell, image)",
            len(names),
            len(names),
            "≥ 40",
            len(names) >= 40,
        ),
        Figure(
            "4 hostile",
            "pipeline runs (payload × field × doc)",
            runs,
            f"{outcomes['written']} written, {outcomes['refused']} refused",
            "info",
            None,
        ),
        Figure(
            "4 hostile",
            "payloads ACTIVE in a written file",
            len(names),
            len(active),
            "0",
            not active,
        ),
        Figure(
            "4 hostile",
            "… first finding",
            len(details),
            details[0] if details else "none",
            "info",
            None,
        ),
        Figure("4 hostile", "errors other than OOError", runs, len(crashes), "0", not crashes),
        Figure(
            "4 hostile",
            "… first error",
            len(crashes),
            crashes[0] if crashes else "none",
            "info",
            None,
        ),
        Figure(
            "4 hostile",
            "refused runs that changed the file",
            outcomes["refused"] + outcomes["crash"],
            refused_changed,
            "0",
            refused_changed == 0,
        ),
    ]
