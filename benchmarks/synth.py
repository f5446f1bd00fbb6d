"""Synthetic o-o libraries for benchmarks: realistic documents in every variant of FORMAT.md §2.

Reusable from any benchmark script in ``benchmarks/`` (its folder is on ``sys.path``)::

    from synth import Spec, make_document, make_library, random_spec

    paths = make_library(tmp_dir, 1000, seed=0)               # -> list[Path], index + history too
    paths = make_library(tmp_dir, 200, subdirs=4, corrupt_rate=0.01, with_index=False)
    data = make_document("my-doc", seed=1)                      # -> bytes of one document
    spec = random_spec("my-doc", seed=1)                        # the drawn variant, editable:
    spec.layout, spec.images, spec.string_sources = "marker", 1, True
    data = make_document("my-doc", seed=1, spec=spec)

Every document is deterministic for a given ``(slug, seed)``. Sizes are 30–200 KB; about one in
five carries a ~100 KB embedded image. Both layouts (early and marker, with the template hazard
after the terminator), every manifest / contract / source-cache / changelog variant, and a small
rate of the defects real files have (unresolved citations, paragraphs without pid, non-hex pids,
duplicate source URLs, denied domains, uncited sources, old sources, overdue documents).
"""

from __future__ import annotations

import base64
import html
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

__all__ = [
    "TODAY",
    "Spec",
    "make_document",
    "make_image_uri",
    "make_index",
    "make_library",
    "random_spec",
]

TODAY = date(2026, 2, 17)

_WORDS = (  # noqa: SIM905 (a word list reads better as prose)
    "model benchmark release pricing context window agent research lab funding round valuation "
    "board executive policy regulation safety evaluation dataset training inference latency "
    "throughput open-weight frontier reasoning coding multimodal vision audio startup founder "
    "investor acquisition revenue customers enterprise platform developer tooling infrastructure "
    "compute cluster chips energy datacenter partnership announcement roadmap preview launch "
    "leaderboard score accuracy parameter mixture experts tokens million billion quarter annual"
).split()
_SECTION_POOL = (
    "Overview",
    "Background",
    "Key Players",
    "Recent Developments",
    "Funding & Valuation",
    "Products",
    "Benchmarks & Rankings",
    "Pricing Comparison",
    "Regulation",
    "Leadership",
    "Market Share",
    "Timeline",
    "Open Questions",
    "Outlook",
    "Technical Details",
    "Partnerships",
)
_TIERS = (
    "primary",
    "secondary",
    "official",
    "industry",
    "technical",
    "news",
    "vendor",
    "aggregator",
    "tech_media",
    "academic_journal",
    "vc_analysis",
    "major_outlet",
    "regional_outlet",
    "reference",
)
_DOMAINS = (
    "anthropic.com",
    "openai.com",
    "reuters.com",
    "bloomberg.com",
    "techcrunch.com",
    "theverge.com",
    "arxiv.org",
    "nature.com",
    "wikipedia.org",
    "huggingface.co",
    "cnbc.com",
    "ft.com",
    "wsj.com",
    "nytimes.com",
    "sec.gov",
    "github.com",
    "ycombinator.com",
    "crunchbase.com",
    "venturebeat.com",
    "wired.com",
    "llm-stats.com",
    "artificialanalysis.ai",
)
_DENIED = ("reddit.com", "quora.com", "medium.com")
_CSS_RULE = ".c{n} {{ margin: 0 0 {n}px; padding: 0.{n}rem; color: var(--fg); border-bottom: 1px solid var(--rule); }}\n"
_JS_LINE = "  const el{n} = document.querySelector('[data-pid=\"p{n}\"]'); if (el{n}) el{n}.classList.add('seen');\n"
_SHELL_LINE = 'opt_{n}() {{ grep -o \'"as_of": *"[^"]*"\' "$FILE" | head -1 | sed "s/.*: *//"; }}\n'


def _sentences(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        words = rng.choices(_WORDS, k=rng.randint(9, 22))
        out.append(" ".join(words).capitalize() + ".")
    return out


# A fixed pool keeps generation fast and the output deterministic.
_POOL = _sentences(random.Random(20260217), 600)


@dataclass
class Spec:
    """Everything that varies between synthetic documents (``random_spec`` draws one)."""

    slug: str
    title: str
    layout: str = "early"  # early | marker
    size_kb: int = 60  # approximate total file size
    images: int = 0  # embedded ~100 KB images
    n_sources: int = 20
    n_facts: int = 10
    sections: list[str] = field(default_factory=list)
    as_of: date | None = TODAY
    cadence: tuple[str, Any] = (
        "update_every_days",
        7,
    )  # or ("freshness", "weekly") / ("none", None)
    manifest_changelog: str = "empty"  # empty | strings | objects
    instructions: str = "procedure"  # procedure | flags
    sentinel: str = "none"  # none | original | structured
    string_sources: bool = False
    fact_form: str = "objects"  # objects | strings
    changelog_form: str = "entries"  # entries | array
    ref_ids: bool = True  # references carry a leading [sN]
    pid_before_headings: bool = False
    close_body: bool = True
    custom_css: bool = False
    table: bool = False
    defects: dict[str, bool] = field(default_factory=dict)


def random_spec(slug: str, seed: int = 0) -> Spec:
    rng = random.Random(f"{seed}:{slug}")
    images = 1 if rng.random() < 0.2 else 0
    size_kb = rng.randint(110, 200) if images else int(rng.triangular(30, 200, 50))
    layout = "marker" if rng.random() < 0.5 else "early"
    populated = rng.random() > 0.03
    sentinel = rng.choice(["none"] * 8 + ["original", "structured"])
    cadence: tuple[str, Any]
    if layout == "marker":
        cadence = ("update_every_days", rng.choice([1, 7, 7, 14, 30, 90]))
    else:
        cadence = rng.choice(
            [
                ("freshness", "weekly"),
                ("freshness", "daily"),
                ("freshness", "monthly"),
                ("freshness", "fortnightly"),
                ("none", None),
                ("update_every_days", 30),
            ]
        )
    n_sections = rng.randint(3, 7)
    sections = (["Status"] if sentinel != "none" else []) + rng.sample(_SECTION_POOL, n_sections)
    defects = {
        name: rng.random() < rate
        for name, rate in (
            ("unresolved_citation", 0.08),
            ("missing_pid", 0.1),
            ("bad_pid", 0.05),
            ("duplicate_url", 0.1),
            ("denied_domain", 0.05),
            ("uncited_source", 0.3),
            ("old_source", 0.15),
            ("unsourced_fact", 0.2),
            ("orphan_reference", 0.05),
        )
    }
    return Spec(
        slug=slug,
        title=" ".join(w.capitalize() for w in rng.sample(_WORDS, rng.randint(2, 5))),
        layout=layout,
        size_kb=size_kb,
        images=images,
        n_sources=rng.randint(10, 40) if populated else 0,
        n_facts=rng.randint(5, 30) if populated else 0,
        sections=sections if populated else [],
        as_of=(TODAY - timedelta(days=int(rng.expovariate(1 / 40)))) if populated else None,
        cadence=cadence,
        manifest_changelog=rng.choice(["empty", "strings", "objects"]),
        instructions=rng.choice(["procedure", "procedure", "flags"]),
        sentinel=sentinel,
        string_sources=rng.random() < 0.15,
        fact_form=rng.choice(["objects", "strings"]),
        changelog_form="array" if rng.random() < 0.1 else "entries",
        ref_ids=rng.random() < 0.5,
        pid_before_headings=rng.random() < 0.3,
        close_body=rng.random() > 0.05,
        custom_css=layout == "marker" and rng.random() < 0.2,
        table=rng.random() < 0.4,
        defects=defects,
    )


# --------------------------------------------------------------------------- pieces
def _slugify(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("</", "<\\/")


def make_image_uri(rng: random.Random, nbytes: int = 75_000) -> str:
    """A data URI of about ``nbytes * 4/3`` characters (incompressible, like a real JPEG/PNG)."""
    mime, magic = rng.choice(
        [("image/jpeg", b"\xff\xd8\xff\xe0"), ("image/png", b"\x89PNG\r\n\x1a\n")]
    )
    return f"data:{mime};base64," + base64.b64encode(magic + rng.randbytes(nbytes)).decode("ascii")


def _sources(spec: Spec, rng: random.Random) -> list[Any]:
    out: list[Any] = []
    for i in range(spec.n_sources):
        domain = rng.choice(_DOMAINS)
        url = f"https://{rng.choice(['www.', ''])}{domain}/{'/'.join(rng.sample(_WORDS, 3))}-{i}"
        accessed = (spec.as_of or TODAY) - timedelta(days=rng.randint(0, 30))
        if spec.string_sources:
            out.append(f"{domain} - {' '.join(rng.sample(_WORDS, 4))} coverage")
            continue
        src: dict[str, Any] = {
            "id": f"s{i + 1}",
            "url": url,
            "title": " ".join(rng.sample(_WORDS, 5)).title(),
            "tier": rng.choice(_TIERS),
            "accessed": accessed.isoformat(),
        }
        if rng.random() < 0.2:
            src["verified"] = rng.random() < 0.8
        out.append(src)
    if out and not spec.string_sources:
        d = spec.defects
        if d.get("duplicate_url") and len(out) > 2:
            out[-1]["url"] = out[0]["url"]
        if d.get("denied_domain"):
            out[1]["url"] = f"https://www.{rng.choice(_DENIED)}/r/thread-{rng.randint(1, 999)}"
        if d.get("old_source"):
            out[2]["accessed"] = (TODAY - timedelta(days=rng.randint(400, 900))).isoformat()
    return out


def _facts(spec: Spec, rng: random.Random) -> list[Any]:
    out: list[Any] = []
    for i in range(spec.n_facts):
        text = rng.choice(_POOL)
        if spec.fact_form == "strings" or spec.string_sources:
            out.append(text)
        else:
            fact: dict[str, Any] = {"key": "_".join(rng.sample(_WORDS, 2)), "value": text[:60]}
            if not (spec.defects.get("unsourced_fact") and i == 0):
                fact["source"] = f"s{rng.randint(1, max(spec.n_sources, 1))}"
            out.append(fact)
    return out


def _pid(rng: random.Random, section: str) -> str:
    return f"<!-- pid:{section}:{rng.getrandbits(32):08x} -->\n"


def _paragraph(rng: random.Random, n_sources: int, cite_upto: int) -> str:
    parts = []
    for s in rng.choices(_POOL, k=rng.randint(3, 7)):
        parts.append(s)
        if n_sources and rng.random() < 0.45:
            ids = rng.sample(range(1, cite_upto + 1), k=min(cite_upto, rng.randint(1, 2)))
            sep = rng.choice(["", " "])
            parts[-1] = s[:-1] + " " + sep.join(f"[s{j}]" for j in ids) + "."
    return " ".join(parts)


def _table(rng: random.Random, section: str) -> str:
    rows = "".join(
        "<tr>" + "".join(f"<td>{w}</td>" for w in rng.sample(_WORDS, 4)) + "</tr>\n"
        for _ in range(6)
    )
    return (
        _pid(rng, section)
        + '<div class="table-wrap"><table>\n<thead><tr><th>Name</th><th>Kind</th>'
        "<th>Value</th><th>Note</th></tr></thead>\n<tbody>\n" + rows + "</tbody></table></div>\n"
    )


def _figure(rng: random.Random) -> str:
    cls = rng.choice(["fig-right", "fig-left", "fig-full", "fig-center"])
    domain = rng.choice(_DOMAINS)
    return (
        f'<figure class="{cls}"><img src="{make_image_uri(rng)}" alt="{rng.choice(_WORDS)} photo">'
        f'<figcaption>{rng.choice(_POOL)} <span class="img-src">Source: '
        f'<a href="https://{domain}/">{domain}</a></span></figcaption></figure>\n'
    )


def _article(spec: Spec, rng: random.Random, sources: list[Any], budget_chars: int) -> str:
    if not spec.sections:
        return (
            '\n<div class="stub-notice"><p>This document has not been populated yet. Run '
            f"<code>bash {spec.slug}.o-o.html</code> to research it.</p></div>\n"
        )
    n = len(sources)
    cite_upto = n + (2 if spec.defects.get("unresolved_citation") else 0)
    if spec.defects.get("uncited_source") and n > 3:
        cite_upto = n - 2  # the last sources are never cited
    out: list[str] = ["\n"]
    images_left = spec.images
    chunks = [_section_head(spec, rng, title) for title in spec.sections]
    size = sum(len(c[1]) for c in chunks)
    bodies: list[list[str]] = [[] for _ in chunks]
    i = 0
    while size < budget_chars:
        sid = chunks[i % len(chunks)][0]
        para = _paragraph(rng, n, max(cite_upto, 0))
        pid = _pid(rng, sid)
        if spec.defects.get("missing_pid") and rng.random() < 0.05:
            pid = ""
        if spec.defects.get("bad_pid") and rng.random() < 0.05:
            pid = f"<!-- pid:{sid}:intro-{rng.randint(1, 9)} -->\n"
        piece = f"{pid}<p>{para}</p>\n"
        if rng.random() < 0.15:
            piece += f'<h3 id="{sid}-{i}">{html.escape(rng.choice(_WORDS).title())}</h3>\n'
        bodies[i % len(chunks)].append(piece)
        size += len(piece)
        i += 1
    if spec.table:
        bodies[0].append(_table(rng, chunks[0][0]))
    for k in range(images_left):
        bodies[k % len(bodies)].insert(0, _figure(rng))
    for (_, head), body in zip(chunks, bodies, strict=True):
        out.append(head)
        out.extend(body)
        out.append("\n")
    out.append(_references(spec, rng, sources))
    return "".join(out)


def _section_head(spec: Spec, rng: random.Random, title: str) -> tuple[str, str]:
    sid = _slugify(title)
    pid = _pid(rng, sid) if spec.pid_before_headings else ""
    return sid, f'{pid}<h2 id="{sid}">{html.escape(title)}</h2>\n'


def _references(spec: Spec, rng: random.Random, sources: list[Any]) -> str:
    items = []
    for i, src in enumerate(sources):
        if isinstance(src, str):
            domain, _, rest = src.partition(" - ")
            items.append(f'<li><a href="https://{domain}/">{html.escape(rest)}</a>, {domain}</li>')
            continue
        lead = f"[s{i + 1}] " if spec.ref_ids else ""
        items.append(
            f'<li>{lead}<a href="{html.escape(src["url"])}">{html.escape(src["title"])}</a>'
            f" — {src['url'].split('/')[2]}</li>"
        )
    if spec.defects.get("orphan_reference"):
        lead = f"[s{len(sources) + 5}] " if spec.ref_ids else ""
        items.append(
            f'<li>{lead}<a href="https://example.org/gone">A source not in the cache</a></li>'
        )
    pid = _pid(rng, "references") if spec.pid_before_headings else ""
    return f'{pid}<h2 id="references">References</h2>\n<ol>\n' + "\n".join(items) + "\n</ol>\n"


def _manifest(spec: Spec) -> dict[str, Any]:
    m: dict[str, Any] = {"title": spec.title}
    key, value = spec.cadence
    if key != "none":
        m[key] = value
    version = 0 if spec.as_of is None else 1 + (len(spec.slug) % 6)
    m["version"] = version
    m["as_of"] = spec.as_of.isoformat() if spec.as_of else ""
    if spec.manifest_changelog == "strings" and version:
        m["changelog"] = [f"v{v}: update {v}" for v in range(1, version + 1)]
    elif spec.manifest_changelog == "objects" and version:
        m["changelog"] = [
            {
                "version": v,
                "date": spec.as_of.isoformat() if spec.as_of else "",
                "summary": f"update {v}",
            }
            for v in range(1, version + 1)
        ]
    else:
        m["changelog"] = []
    return m


def _contract(spec: Spec, rng: random.Random) -> dict[str, Any]:
    instructions: dict[str, Any] = {"role": "You are a o-o research agent."}
    if spec.instructions == "flags" and spec.sentinel == "none":
        instructions.update(
            read_file=True,
            edit_in_place=True,
            preserve_pids=True,
            add_citations=True,
            update_manifest=True,
        )
    else:
        steps = [f"{k}. {rng.choice(_POOL)}" for k in range(1, rng.choice([10, 12, 13]) + 1)]
        if spec.sentinel != "none":
            steps[1] = "2. SENTINEL CHECK: decide whether the event has occurred."
            instructions["sentinel"] = (
                "This is a SENTINEL document. The core event has NOT yet "
                "occurred. Stay concise until it happens, then give full coverage."
            )
        instructions["procedure"] = steps
    policy: dict[str, Any] = {
        "prefer_domains": rng.sample(_DOMAINS, 4),
        "deny_domains": list(_DENIED[:2]),
    }
    if rng.random() < 0.3:
        policy["require_https"] = True
    contract: dict[str, Any] = {
        "version": "2.0",
        "instructions": instructions,
        "identity": {
            "subject": spec.title,
            "scope": rng.choice(_POOL),
            "audience": "General readers",
            "tone": "Factual, concise",
        },
        "research": {
            "intents": [rng.choice(_POOL)[:40] for _ in range(4)],
            "required_sections": [*spec.sections, "References"],
            "source_policy": policy,
        },
        "budget": {"max_cost_usd": rng.choice([0.5, 1.0, 1.5, 2.0, 3.0, 5.0])},
        "images": {
            "allow": True,
            "max_per_article": 4,
            "max_file_kb": 150,
            "resize_max_px": 800,
            "preserve_format": True,
            "prefer_sources": ["press kits"],
            "layout_guidance": "fig-right for portraits",
            "caption_required": True,
            "source_attribution_required": True,
        },
        "output": {"format": "html", "citation_style": "inline_numbered", "preserve_pids": True},
    }
    if spec.sentinel == "structured":
        contract["sentinel"] = {
            "event": f"{spec.title} happens",
            "criteria": ["official announcement"],
            "status": rng.choice(["not_occurred", "occurred", "unknown"]),
            "last_checked": (spec.as_of or TODAY).isoformat(),
            "evidence": "",
        }
    return contract


def _changelog(spec: Spec, rng: random.Random) -> Any:
    if spec.changelog_form == "array" or spec.as_of is None:
        return [] if spec.changelog_form == "array" else {"entries": []}
    entries = []
    version = _manifest(spec)["version"]
    for v in range(1, version + 1):
        day = spec.as_of - timedelta(days=7 * (version - v))
        entry: dict[str, Any] = {
            "version": v,
            "timestamp": day.isoformat() + ("T09:30:00Z" if v % 2 else ""),
            "summary": rng.choice(_POOL),
        }
        if v > 1 and rng.random() < 0.5:
            entry["sources_added"] = [f"s{k}" for k in range(1, 3)]
            entry["sections"] = [_slugify(s) for s in spec.sections[:2]]
        if rng.random() < 0.4:  # an oo_nb run records what it cost
            entry.update(
                model="claude-sonnet-4-5",
                agent="anthropic",
                tokens={"input": rng.randint(5000, 90000), "output": rng.randint(1000, 9000)},
                searches=rng.randint(0, 12),
                cost_usd=round(rng.uniform(0.05, 1.2), 4),
            )
        entries.append(entry)
    return {"entries": entries}


def _css(rng: random.Random, n: int) -> str:
    return (
        ":root { --bg: #fff; --fg: #222; --rule: #ddd; }\nbody{font-size:0;line-height:0;color:var(--bg)}\n"
        + "".join(_CSS_RULE.format(n=k) for k in range(n))
    )


def make_document(slug: str, *, seed: int = 0, spec: Spec | None = None) -> bytes:
    """One synthetic o-o document (UTF-8 bytes). ``spec`` overrides the drawn variant."""
    spec = spec or random_spec(slug, seed)
    rng = random.Random(f"doc:{seed}:{slug}")
    sources = _sources(spec, rng)
    # Real stylesheets, browser scripts and shell sections are 5-15 KB each.
    css = _css(rng, 140)
    js = "(function(){\n" + "".join(_JS_LINE.format(n=k) for k in range(80)) + "})();\n"
    shell = "".join(_SHELL_LINE.format(n=k) for k in range(70))
    marker = spec.layout == "marker"
    fixed = len(css) + len(js) + len(shell) + 9000 + 200 * spec.n_sources + 120 * spec.n_facts
    budget_chars = max(spec.size_kb * 1024 - fixed - spec.images * 100_000, 2000)
    article = _article(spec, rng, sources, budget_chars)
    csp = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'" + (
        "; img-src data:" if marker else ""
    )
    style = f"<style>\n{css}</style>\n"
    if marker:
        style = f"<!-- OO:CSS:START -->\n{style}<!-- OO:CSS:END -->\n"
        if spec.custom_css:
            style += "<!-- OO:CUSTOM:START -->\n<style>\n.wrap { max-width: 60rem; }\n</style>\n<!-- OO:CUSTOM:END -->\n"
    script = f"<script>\n{js}</script>\n"
    if marker:
        script = f"<!-- OO:JS:START -->\n{script}<!-- OO:JS:END -->\n"
    title = html.escape(spec.title)
    cache = {
        "last_updated": spec.as_of.isoformat() if spec.as_of else None,
        "sources": sources,
        "facts": _facts(spec, rng),
    }
    parts = [
        "#!/usr/bin/env bash\n# o-o Living Document — self-updating via LLM agent\n",
        f"# To update: bash {spec.slug}.o-o.html [--agent claude] [--model sonnet]\n",
        f"# To read:   open {spec.slug}.o-o.html in any browser\n: << 'OO_HTML'\n",
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8"/>\n<title>{title}</title>\n',
        '<meta content="width=device-width, initial-scale=1" name="viewport"/>\n',
        f'<meta content="{csp}" http-equiv="Content-Security-Policy"/>\n',
        style,
        '</head>\n<body>\n<div class="wrap">\n<header>\n',
        f'<h1 id="doc-title">{title}</h1>\n<div class="meta">As of <span id="doc-asof">&mdash;</span> '
        '&bull; Version <span class="version-badge"><span id="doc-version">0</span></span></div>\n',
        '<div class="contract-panel" id="contract-panel"></div>\n</header>\n<nav class="toc" id="toc"></nav>\n',
        f'<article id="article">{article}</article>\n<footer id="run-meta"></footer>\n</div>\n',
        f'<script id="oo-manifest" type="application/json">\n{_dump(_manifest(spec))}\n</script>\n\n',
        script,
        f'\n<script id="oo-contract" type="application/json">\n{_dump(_contract(spec, rng))}\n</script>\n\n',
        "<!-- === RENDERING BOUNDARY === -->\n<script>window.stop();</script>\n\n",
        "<!-- MACHINE-READABLE ZONE -->\n",
        f'<script id="oo-source-cache" type="application/json">\n{_dump(cache)}\n</script>\n\n',
        f'<script id="oo-changelog" type="application/json">\n{_dump(_changelog(spec, rng))}\n</script>\n\n',
        "</body>\n</html>\n" if spec.close_body else "",
        "OO_HTML\n",
        _shell_tail(marker, shell),
    ]
    return "".join(parts).encode("utf-8")


def _shell_tail(marker: bool, shell: str) -> str:
    template = (
        '<script id="oo-manifest" type="application/json">\n'
        '{"title": "__TITLE__", "update_every_days": 7, "version": 0, "as_of": ""}\n</script>\n'
        '<script id="oo-contract" type="application/json">\n{"identity": {"subject": "__TITLE__"}}\n</script>\n'
        "<script>window.stop();</script>\n"
        '<script id="oo-source-cache" type="application/json">\n'
        '{"last_updated": null, "sources": [], "facts": []}\n</script>\n'
        '<script id="oo-changelog" type="application/json">\n{"entries": []}\n</script>\n'
    )
    if marker:
        return (
            "\n# OO:SHELL:START\nnew_doc() {\ncat > \"$1\" << 'TPL_EOF'\n: << 'OO_HTML'\n"
            + template
            + "OO_HTML\nTPL_EOF\n}\n"
            + shell
            + "# OO:SHELL:END\n\nexit 0\n"
        )
    return '\nset -euo pipefail\nFILE="$0"\n' + shell + "exit 0\n"


def make_index(names: Sequence[str]) -> bytes:
    """A small original-style index page (no JSON blocks; skipped by discovery)."""
    rows = "".join(f'    <tr><td><a href="{n}">{n}</a></td></tr>\n' for n in names[:50])
    return (
        "#!/usr/bin/env bash\n# o-o Document Library — index and management tool\n: << 'OO_HTML'\n"
        "<!DOCTYPE html>\n<html><head><title>o-o Document Library</title></head><body>\n"
        '<article id="article">\n  <!-- INDEX-CONTENT-START -->\n  <table>\n'
        + rows
        + "  </table>\n  <!-- INDEX-CONTENT-END -->\n</article>\n</body></html>\nOO_HTML\nexit 0\n"
    ).encode()


def _corrupt(data: bytes, rng: random.Random) -> bytes:
    kind = rng.choice(["truncate", "json", "utf8"])
    if kind == "truncate":
        return data[: len(data) // 3]
    if kind == "json":
        return data.replace(b'"version":', b'"version" ', 1)
    return data[:200] + b"\xff\xfe" + data[200:]


def make_library(
    directory: str | Path,
    n: int,
    seed: int = 0,
    *,
    subdirs: int = 0,
    corrupt_rate: float = 0.0,
    with_index: bool = True,
    history: bool = True,
) -> list[Path]:
    """Write ``n`` documents under ``directory`` (spread over ``subdirs`` sub-folders when > 0) and
    return their paths. ``corrupt_rate`` of them are damaged (truncated, invalid JSON, bad UTF-8).
    With ``with_index`` an index page is added, with ``history`` a ``.oo-history`` folder holding
    a document copy: both must be skipped by discovery and are not in the returned list."""
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    paths: list[Path] = []
    for i in range(n):
        slug = f"doc-{i:05d}"
        folder = root / f"topic-{i % subdirs}" if subdirs else root
        folder.mkdir(exist_ok=True)
        data = make_document(slug, seed=seed)
        if rng.random() < corrupt_rate:
            data = _corrupt(data, rng)
        path = folder / f"{slug}.o-o.html"
        path.write_bytes(data)
        paths.append(path)
    if with_index:
        (root / "index.o-o.html").write_bytes(make_index([p.name for p in paths]))
    if history and paths:
        snap = root / ".oo-history" / paths[0].name / "snapshots"
        snap.mkdir(parents=True, exist_ok=True)
        (snap / f"v1-{paths[0].name}").write_bytes(paths[0].read_bytes())
    return paths
