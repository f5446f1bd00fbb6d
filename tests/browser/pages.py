"""Documents for the browser tests, made the way a user makes them: ``oo new``, then an update
written through the store (the agent pipeline against the loopback mock, or a direct article
edit where a test needs exact content)."""

from __future__ import annotations

import base64
import contextlib
import io
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oo_nb.cli.main import main as oo_main
from oo_nb.format.document import Document
from oo_nb.store import store
from tests.conftest import CORPUS


def oo(*args: str) -> str:
    """Run one ``oo`` command in-process (the same code as the CLI) and return what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = oo_main(list(args))
    if code != 0:
        raise AssertionError(
            f"oo {' '.join(args)} exited {code}:\n{out.getvalue()}{err.getvalue()}"
        )
    return out.getvalue()


def new_document(folder: Path, title: str, *options: str) -> Path:
    """``oo new TITLE --dir FOLDER --no-update`` and the path it created."""
    folder.mkdir(parents=True, exist_ok=True)
    before = set(folder.glob("*.o-o.html"))
    oo("new", title, "--dir", str(folder), "--no-update", *options)
    made = sorted(set(folder.glob("*.o-o.html")) - before)
    assert len(made) == 1, f"oo new made {made}"
    return made[0]


def png_data_uri(width: int = 48, height: int = 32) -> str:
    from PIL import Image

    img = Image.new("RGB", (width, height), (30, 120, 200))
    for x in range(width):
        img.putpixel((x, x * height // width), (250, 200, 0))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _filler(section: str, n: int, cites: str = "") -> str:
    text = (
        "Living documents keep their research current: each update reads the contract, searches "
        "for what changed since the last as-of date and rewrites only what moved. "
    ) * 3
    return "\n".join(
        f"<!-- pid:{section}:{i:04x}{len(section):04x} -->\n<p>{text}{cites if i == 0 else ''}</p>\n"
        for i in range(n)
    )


REFERENCES = [
    ("https://a.example/one", "First source"),
    ("https://b.example/two", "Second source"),
    ("https://c.example/three", "Third source"),
    ("https://d.example/four", "Fourth source"),
    ("https://e.example/five", "Fifth source"),
]


def rich_article(*, labelled_refs: bool = False) -> str:
    """Sections, subsections (one without an id, one with markup and an ampersand), pids before
    headings and paragraphs, single and double citations, a citation with no reference, a
    table, an embedded PNG, enough text to scroll, and a References list."""
    refs = "\n".join(
        f'<li>{f"[s{i}] " if labelled_refs else ""}<a href="{url}">{title}</a> ({url.split("/")[2]})</li>'
        for i, (url, title) in enumerate(REFERENCES, 1)
    )
    return f"""
<!-- pid:overview:0a0b0c0d -->
<h2 id="overview">Overview</h2>

<!-- pid:overview:1a2b3c4d -->
<p>The first claim rests on one source [s1]; the second on two [s2] [s5]; a third on [s3].</p>

<figure class="fig-right"><img src="{png_data_uri()}" alt="A blue chart"><figcaption>A chart.
<span class="img-src">Source: <a href="https://c.example/three">c.example</a></span></figcaption></figure>

<!-- pid:overview:2b3c4d5e -->
<p>A claim with no matching reference stays plain text [s9], and a code sample keeps <code>[s1]</code>.</p>

<h3 id="key-figures">Key figures</h3>

<!-- pid:overview:3c4d5e6f -->
<div class="table-wrap"><table><thead><tr><th>Year</th><th>Value</th></tr></thead>
<tbody><tr><td>2025</td><td>12 [s4]</td></tr><tr><td>2026</td><td>18</td></tr></tbody></table></div>

{_filler("overview", 6)}

<h2 id="timeline">Timeline</h2>

<!-- pid:timeline:4d5e6f70 -->
<p>Events in order [s4].</p>

<h3>Early days &amp; <em>first</em> steps</h3>

{_filler("timeline", 8, " [s2]")}

<h3 id="recent">Recent</h3>

{_filler("recent", 8)}

<h2 id="outlook">Outlook</h2>

{_filler("outlook", 10, " [s5]")}

<h2 id="references">References</h2>
<ol>
{refs}
</ol>
"""


def sources_block(existing: Any) -> Any:
    """The source cache with the five references as objects, in the block's own shape."""
    sources = [
        {"id": f"s{i}", "url": url, "title": title, "tier": "primary", "accessed": "2026-02-01"}
        for i, (url, title) in enumerate(REFERENCES, 1)
    ]
    value = existing if isinstance(existing, dict) else {}
    value.update(last_updated="2026-02-01", sources=sources, facts=[])
    return value


def populate(path: Path, article_html: str, *, contract: dict[str, Any] | None = None) -> Document:
    """Write an update the way oo_nb does (new article, cache, manifest bump) through the store."""
    base = path.read_bytes()
    doc = Document.parse(base, path=path).with_article(article_html)
    doc = doc.edit_block("oo-source-cache", sources_block)

    def bump(m: dict[str, Any]) -> None:
        m["version"] = int(m.get("version") or 0) + 1
        m["as_of"] = "2026-02-01"

    doc = doc.edit_block("oo-manifest", bump)
    if contract is not None:
        doc = doc.edit_block("oo-contract", lambda c: _deep_update(c, contract))
    store.write_document(doc, expected=base, action="update")
    return Document.read(path)


def _deep_update(target: dict[str, Any], change: dict[str, Any]) -> None:
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_update(target[key], value)
        else:
            target[key] = value


def corpus_copy(name: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    shutil.copyfile(CORPUS / name, target)
    target.chmod(0o755)
    return target


def adopt_our_code(path: Path) -> None:
    """Give an original our page code (the corpus extracts carry stand-ins for the original
    stylesheet and script): ``oo sync`` replaces the marker sections."""
    from oo_nb.cli.verbs import VERBS

    if "sync" in VERBS:
        oo("sync", str(path.parent), "all")
        return
    # Until `oo sync` lands: the same marker sections it would write.
    from oo_nb.format.template.render import css_section, js_section

    text = path.read_text()
    for name, section in (("CSS", css_section("document")), ("JS", js_section("document"))):
        pattern = rf"<!-- OO:{name}:START -->\n.*?<!-- OO:{name}:END -->\n"
        text = re.sub(pattern, lambda _m, s=section: s, text, count=1, flags=re.S)
    path.write_text(text)


# --------------------------------------------------------------------------- the agent pipeline
MOCK_KEY = "sk-ant-test-BROWSER"


def png_bytes(width: int = 64, height: int = 40) -> bytes:
    return base64.b64decode(png_data_uri(width, height).split(",", 1)[1])


def agent_update(
    path: Path, rewrite: Callable[[dict[str, Any]], dict[str, Any]] | None = None
) -> Document:
    """One real update: the research turn played by the loopback mock, ``submit_proposal`` (as
    ``rewrite`` changes it), proposal → candidate (sanitised), written through the store with
    "accept all". Images are "downloaded" from a local function."""
    from datetime import date

    from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
    from tests.support.mock_api import MockAPI
    from tests.support.mock_scenarios import research_scenario

    def submitted(proposal: dict[str, Any]) -> dict[str, Any]:
        for image in proposal.get("images", []):  # only https images are fetched
            image["url"] = "https://images.example/chart.png"
        return rewrite(proposal) if rewrite else proposal

    mock = MockAPI(api_key=MOCK_KEY)
    mock.responder = research_scenario(base_url=lambda: mock.base_url, proposal=submitted)
    with mock:
        opts = UpdateOptions(
            force=True,
            agent="anthropic",
            base_url=mock.base_url,
            api_key=MOCK_KEY,
            today=date(2026, 3, 1),
            fetch_image=lambda _url: png_bytes(),
        )
        result = prepare_update(path, opts)
        assert result.status == "proposed", result
        write_result(result, yes=True)
    assert result.written, f"the update was not written: {result.warnings}"
    return Document.read(path)
