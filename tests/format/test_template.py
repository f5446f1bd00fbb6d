"""oo_nb's own page template: layout, markers, escaping, and the code assets themselves."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from oo_nb.edit.new import NewSpec, build_blocks
from oo_nb.errors import ValidationError
from oo_nb.format.document import Document
from oo_nb.format.template import asset
from oo_nb.format.template.render import (
    CSP,
    MARKERS,
    css_section,
    custom_section,
    js_section,
    render_document,
    render_index,
    shell_section,
)

HOSTILE = 'Q&A: "AI" </script><script>alert(1)</script> $(touch pwned.txt)'


def _page(title: str = "Solar storms", **extra: object) -> str:
    blocks = build_blocks(NewSpec(title=title, scope="forecasts"))
    return render_document(
        file_name="solar-storms.o-o.html",
        manifest=blocks["oo-manifest"],
        contract=blocks["oo-contract"],
        source_cache=blocks["oo-source-cache"],
        changelog=blocks["oo-changelog"],
        **extra,  # type: ignore[arg-type]
    )


def _lines(text: str) -> list[str]:
    return text.split("\n")


def test_page_is_a_marker_layout_document() -> None:
    text = _page()
    doc = Document.parse(text.encode())
    assert doc.kind == "document" and doc.layout == "marker"
    assert set(doc.blocks) == {"oo-manifest", "oo-contract", "oo-source-cache", "oo-changelog"}
    assert doc.article.is_stub
    assert doc.to_bytes() == text.encode()
    lines = _lines(text)
    assert lines[0] == "#!/usr/bin/env bash"
    assert lines[4] == ": << 'OO_HTML'"
    assert lines.count("OO_HTML") == 1
    assert text.endswith("# OO:SHELL:END\nexit 0\n")


def test_markers_are_whole_lines_in_the_right_parts() -> None:
    text = _page()
    doc = Document.parse(text.encode())
    html, tail = doc.span_text(doc.html), doc.span_text(doc.tail)
    for name in ("css", "js"):
        start, end = MARKERS[name]
        assert _lines(html).count(start) == 1 and _lines(html).count(end) == 1
        assert start not in tail
    start, end = MARKERS["shell"]
    assert _lines(tail).count(start) == 1 and _lines(tail).count(end) == 1
    order = [
        "<!-- OO:CSS:START -->",
        "</head>",
        '<h1 id="doc-title">',
        '<article id="article">',
        '<footer id="run-meta">',
        '<script id="oo-manifest"',
        "<!-- OO:JS:START -->",
        '<script id="oo-contract"',
        "<script>window.stop();</script>",
        '<script id="oo-source-cache"',
        '<script id="oo-changelog"',
        "\nOO_HTML\n",
        "# OO:SHELL:START",
    ]
    positions = [text.index(token) for token in order]
    assert positions == sorted(positions)


def test_head_carries_csp_with_images_and_the_hidden_shell_trick() -> None:
    text = _page()
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in text
    assert "img-src data:" in CSP
    css = asset("base.css")
    body = re.search(r"\nbody\s*\{([^}]*)\}", css)
    assert body is not None
    rules = body.group(1)
    assert re.search(r"font-size:\s*0;", rules) and re.search(r"line-height:\s*0;", rules)
    assert "color: var(--bg)" in rules
    wrap = re.search(r"\n\.wrap\s*\{([^}]*)\}", css)
    assert wrap is not None and "font-size: 1.0625rem" in wrap.group(1)


def test_original_ids_and_classes_are_kept() -> None:
    text = _page()
    for needle in (
        'id="doc-title"',
        'id="doc-asof"',
        'id="doc-version"',
        'class="version-badge"',
        'id="contract-panel"',
        'id="toc"',
        'id="article"',
        'class="theme-toggle"',
        'id="run-meta"',
        'class="stub-notice"',
    ):
        assert needle in text, needle
    js = asset("document.js")
    for needle in ('"cite"', '"references"', "contract-panel", "doc-version", "data-pid"):
        assert needle in js, needle


def test_user_values_are_text_everywhere() -> None:
    text = _page(title=HOSTILE)
    doc = Document.parse(text.encode())
    assert "</script><script>" not in text
    outside_blocks = text
    for name in doc.blocks:
        outside_blocks = outside_blocks.replace(doc.block_text(name), "")
    assert "<script>alert(1)" not in outside_blocks
    assert (
        "<title>Q&amp;A: &quot;AI&quot; &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; $(touch pwned.txt)</title>"
        in text
    )
    assert '<h1 id="doc-title">Q&amp;A: &quot;AI&quot; &lt;/script&gt;' in text
    assert doc.manifest.title == HOSTILE
    assert doc.contract.subject == HOSTILE
    for name in doc.blocks:
        assert "</" not in doc.block_text(name)  # written <\/ : no string can end the block
        json.loads(doc.block_text(name))
    assert "pwned" not in doc.span_text(doc.tail) and "pwned" not in doc.span_text(doc.header)


def test_title_line_breaks_and_terminators_cannot_end_the_heredoc() -> None:
    text = _page(title="A\nOO_HTML\nrm -rf ~")
    assert text.split("\n").count("OO_HTML") == 1
    article = "<h2 id='x'>X</h2>\nOO_HTML\n<p>echo owned</p>\n"
    text = _page(article_html=article)
    assert text.split("\n").count("OO_HTML") == 1
    assert "<!---->OO_HTML" in text


def test_custom_css_block_and_its_guards() -> None:
    text = _page(custom_css="h1 { color: teal }")
    lines = _lines(text)
    css_end = lines.index(MARKERS["css"][1])
    assert lines[css_end + 1] == MARKERS["custom"][0]
    assert "h1 { color: teal }" in text
    with pytest.raises(ValidationError, match="</style"):
        custom_section("a{}</STYLE><script>alert(1)</script>")
    with pytest.raises(ValidationError, match="OO_HTML"):
        custom_section("a{}\nOO_HTML\n")


def test_assets_hold_nothing_that_breaks_the_polyglot() -> None:
    for name in ("base.css", "document.css", "index.css", "common.js", "document.js", "index.js"):
        code = asset(name)
        assert "OO_HTML" not in _lines(code)
        assert "</script" not in code.lower() and "</style" not in code.lower(), name
    for name in ("common.js", "document.js", "index.js"):
        code = asset(name)
        assert "<!--" not in code
        # data goes into the page as text only
        for sink in (
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
        ):
            assert sink not in code, (name, sink)


def test_theme_is_kept_in_local_storage_and_follows_the_system() -> None:
    js = asset("common.js")
    assert '"oo-theme"' in js and "localStorage" in js
    assert "prefers-color-scheme: dark" in js
    css = asset("base.css")
    assert ':root[data-theme="dark"]' in css
    assert "@media (prefers-color-scheme: dark)" in css and ':root:not([data-theme="light"])' in css


def test_sections_are_stable_text() -> None:
    for kind in ("document", "index"):
        for section, (start, end) in (
            ("css", MARKERS["css"]),
            ("js", MARKERS["js"]),
            ("shell", MARKERS["shell"]),
        ):
            maker = {"css": css_section, "js": js_section, "shell": shell_section}[section]
            body = maker(kind)  # type: ignore[arg-type]
            assert body.startswith(start + "\n") and body.endswith(end + "\n")
            assert body == maker(kind)  # type: ignore[arg-type]
    assert js_section("document") != js_section("index")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("kind", ["document", "index"])
def test_browser_scripts_parse(kind: str, tmp_path: Path) -> None:
    section = js_section(kind)  # type: ignore[arg-type]
    code = section[section.index("<script>\n") + 9 : section.rindex("</script>")]
    path = tmp_path / "page.js"
    path.write_text(code)
    subprocess.run(["node", "--check", str(path)], check=True, capture_output=True)


@pytest.mark.parametrize("kind", ["document", "index"])
def test_shell_sections_parse(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "tail.sh"
    path.write_text(shell_section(kind))  # type: ignore[arg-type]
    subprocess.run(["bash", "-n", str(path)], check=True, capture_output=True)


def test_index_page_layout() -> None:
    text = render_index(
        title="My <library>", content_html="  <p>x</p>\n", count=3, last_scan="2026-02-17 10:00"
    )
    doc = Document.parse(text.encode())
    assert doc.kind == "index" and doc.layout == "marker" and not doc.blocks
    assert '<h1 id="doc-title">My &lt;library&gt;</h1>' in text
    assert '<strong id="doc-count">3</strong>' in text
    assert '<span id="last-scan">2026-02-17 10:00</span>' in text
    html = doc.span_text(doc.html)
    assert (
        html.index("<!-- INDEX-CONTENT-START -->")
        < html.index("<p>x</p>")
        < html.index("<!-- INDEX-CONTENT-END -->")
    )
    assert 'id="search-input"' in text and "<script>window.stop();</script>" in text
