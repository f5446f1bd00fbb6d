"""Synthetic candidates for tests, benchmarks and demos: a real document with the changes an
update makes (a paragraph changed, one added with a new cited source, one removed, an image
figure, version, dates and a changelog entry with its cost), without any agent."""

from __future__ import annotations

import base64
import io
import random
import re
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from oo_nb.format.document import Document
from oo_nb.review.blocks import changelog_entries, source_ids
from oo_nb.review.units import Unit, split_units

__all__ = [
    "Edits",
    "many_sections_candidate",
    "many_sources_candidate",
    "png_data_uri",
    "synthetic_article_document",
    "synthetic_candidate",
]

NEW_PID_HEX = "5eed0001"


def png_data_uri(width: int = 320, height: int = 200, colour: str = "#3b6ea5") -> str:
    """A small chart-like PNG as a data URI."""
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    for i in range(5):
        h = (i + 1) * height // 6
        draw.rectangle(
            (20 + i * (width - 40) // 5, height - h, 10 + (i + 1) * (width - 40) // 5, height),
            fill=colour,
        )
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


@dataclass(frozen=True)
class Edits:
    """Which changes to make; each ``*_at`` is the n-th paragraph (``<p>`` with a pid) of the
    article, or None to skip that change."""

    change_at: int | None = 0
    remove_at: int | None = 2
    add_after: int | None = 1
    image_after: int | None = 3
    cost_usd: float = 0.0421
    verified: bool = False
    date: str = "2026-03-01"
    summary: str = (
        "Synthetic update: one paragraph revised, one added with a new source, one removed."
    )


def _paragraphs(units: list[Unit]) -> list[int]:
    return [i for i, u in enumerate(units) if u.tag == "p" and u.pid and u.section != "references"]


def synthetic_candidate(doc: Document, edits: Edits = Edits()) -> tuple[Document, str]:
    """The candidate and the id of the new source it cites."""
    units, tail = split_units(doc.article_html)
    paras = _paragraphs(units)
    cache = doc.block_json("oo-source-cache")
    refs = next((u for u in units if u.is_references), None)
    n_refs = len(re.findall(r"<li\b", refs.body)) if refs else 0
    new_id = f"s{max(len(source_ids(cache)), n_refs) + 1}"
    bodies: dict[int, str] = {i: u.raw for i, u in enumerate(units)}
    if edits.change_at is not None:
        i = paras[edits.change_at]
        bodies[i] = units[i].lead + re.sub(
            r"</p>\s*$", " Revised in this update with newer figures.</p>", units[i].body, count=1
        )
    if edits.add_after is not None:
        i = paras[edits.add_after]
        sec = units[i].section
        bodies[i] += (
            f"\n<!-- pid:{sec}:{NEW_PID_HEX} -->\n<p>A new finding reported this month changes the picture "
            f"for this section [{new_id}].</p>"
        )
    if edits.image_after is not None:
        i = paras[edits.image_after]
        bodies[i] += (
            f'\n<!-- pid:{units[i].section}:5eed0002 -->\n<figure class="fig-right"><img src="{png_data_uri()}" '
            'alt="Bar chart of the figures"><figcaption>Figures by quarter. <span class="img-src">Source: '
            '<a href="https://example.org/chart">example.org</a></span></figcaption></figure>'
        )
    if edits.remove_at is not None:
        bodies[paras[edits.remove_at]] = ""
    if refs is not None and edits.add_after is not None:
        i = units.index(refs)
        prefix = f"[{new_id}] " if re.search(r"<li>\s*\[s\d+\]", refs.body) else ""
        li = f'<li>{prefix}<a href="https://example.org/{new_id}">New report on the subject</a> — Example, 2026</li>\n'
        bodies[i] = units[i].lead + re.sub(
            r"(</(?:ol|ul)>)\s*$", lambda m: li + m.group(1), units[i].body
        )
    article = "".join(bodies[i] for i in range(len(units))) + tail
    cand = doc.with_article(article)
    if edits.add_after is not None and isinstance(cache.get("sources"), list):
        source: dict[str, Any] = {
            "id": new_id,
            "url": f"https://example.org/{new_id}",
            "title": "New report on the subject",
            "tier": "secondary",
            "accessed": edits.date,
            "verified": edits.verified,
        }
        cache["sources"].append(source)
    cache["last_updated"] = edits.date
    cand = cand.with_block("oo-source-cache", cache)
    manifest = cand.block_json("oo-manifest")
    version = int(manifest.get("version") or 0) + 1
    manifest["version"], manifest["as_of"] = version, edits.date
    cand = cand.with_block("oo-manifest", manifest)
    entry = {
        "version": version,
        "timestamp": f"{edits.date}T09:00:00Z",
        "summary": edits.summary,
        "sources_added": [new_id] if edits.add_after is not None else [],
        "cost_usd": edits.cost_usd,
    }
    log = cand.block_json("oo-changelog")
    if isinstance(log, list):
        log.append(entry)
    else:
        log = {**log, "entries": [*changelog_entries(log), entry]}
    return cand.with_block("oo-changelog", log), new_id


def _prose(
    rng: random.Random, chars: int, vocabulary: list[str], weights: list[float], cite: int
) -> str:
    words: list[str] = []
    size = 0
    while size < chars:
        word = rng.choices(vocabulary, weights)[0]
        if len(words) % 18 == 17:
            word += "."
        if len(words) % 45 == 44:
            word += f" [s{(cite + len(words)) % 9 + 1}]"
        words.append(word)
        size += len(word) + 1
    return " ".join(words).capitalize()


def synthetic_article_document(
    doc: Document, paragraphs: int = 60, target_bytes: int = 150_000
) -> Document:
    """``doc`` with an article of ``paragraphs`` cited paragraphs in 6 sections, about
    ``target_bytes`` long (for the benchmark). The words follow a Zipf-like law over a
    2,000-word vocabulary, like prose: common words repeat, most words are rare."""
    rng = random.Random(7)
    syllables = [
        "ka",
        "lo",
        "mi",
        "ter",
        "an",
        "so",
        "vel",
        "ri",
        "du",
        "pen",
        "cor",
        "tal",
        "ne",
        "bi",
        "us",
    ]
    vocabulary = list(
        dict.fromkeys("".join(rng.choices(syllables, k=rng.randint(1, 4))) for _ in range(2600))
    )[:2000]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    per = max(200, target_bytes // paragraphs - 80)
    per_section = max(1, paragraphs // 6)
    out: list[str] = []
    sec = "section-1"
    for p in range(paragraphs):
        if p % per_section == 0:
            sec = f"section-{p // per_section + 1}"
            out.append(
                f'\n<!-- pid:{sec}:{p:08x} -->\n<h2 id="{sec}">Section {p // per_section + 1}</h2>\n'
            )
        out.append(
            f"\n<!-- pid:{sec}:{0x10000000 + p:08x} -->\n<p>{_prose(rng, per, vocabulary, weights, p)}.</p>\n"
        )
    out.append('\n<h2 id="references">References</h2>\n<ol>\n')
    out.extend(f'<li><a href="https://example.org/{i}">Source {i}</a></li>\n' for i in range(1, 10))
    out.append("</ol>\n")
    return doc.with_article("".join(out))


def many_sources_candidate(doc: Document, n: int, *, date: str = "2026-03-01") -> Document:
    """``synthetic_candidate(doc)`` with ``n`` more new sources in the source cache (unverified,
    each a distinct URL): what a runaway or hostile agent might propose."""
    cand, _ = synthetic_candidate(doc, Edits(date=date))
    cache = cand.block_json("oo-source-cache")
    sources = cache.setdefault("sources", [])
    start = len(source_ids(cache)) + 1
    for k in range(start, start + n):
        sources.append(
            {
                "id": f"s{k}",
                "url": f"https://example.org/bulk/{k}",
                "title": f"Bulk report number {k} on the subject",
                "tier": "secondary",
                "accessed": date,
                "verified": False,
            }
        )
    return cand.with_block("oo-source-cache", cache)


def many_sections_candidate(doc: Document, n: int) -> Document:
    """``doc`` with ``n`` new sections (a heading and a paragraph each, without pids) before its
    References: what a runaway agent might write."""
    html = doc.article_html
    extra = "".join(
        f'\n<h2 id="extra-{k}">Extra section {k}</h2>\n<p>Added text number {k} for it.</p>\n'
        for k in range(1, n + 1)
    )
    at = html.find('<h2 id="references"')
    at = len(html) if at < 0 else at
    return doc.with_article(html[:at] + extra + html[at:])
