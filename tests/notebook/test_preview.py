"""Sandboxed previews: escaped into srcdoc, no active content, no network, sensible sizes."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from oo_nb.format.document import Document
from oo_nb.notebook.preview import (
    FRAME_SANDBOX,
    MAX_HEIGHT,
    MIN_HEIGHT,
    PREVIEW_CSP,
    ArticlePreview,
    IndexPreview,
    clean_fragment,
    iframe,
)

HOSTILE = [
    "<script>window.pwned=1</script>",
    '<img src="x" onerror="alert(1)">',
    '<img src="https://evil.example/beacon.png">',
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    '<base href="https://evil.example/">',
    '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
    '<a href="javascript:alert(1)">x</a>',
    '<svg onload="alert(1)"></svg>',
    '<form action="https://evil.example/"><input name="q"></form>',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    "<style>body{background:url(https://evil.example/b)}</style>",
    '<p style="background:url(https://evil.example/c)">styled</p>',
    '<object data="https://evil.example/x.swf"></object>',
    '<button data-commandlinker-command="terminal:create-new">run</button>',
]
PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def srcdoc(iframe_html: str) -> str:
    m = re.search(r'srcdoc="([^"]*)"', iframe_html)
    assert m, iframe_html[:200]
    return html.unescape(m.group(1))


def test_iframe_is_fully_sandboxed_and_escaped() -> None:
    out = iframe('<p title="a">x & y</p>', height=300)
    assert out.startswith(f'<iframe sandbox="{FRAME_SANDBOX}" ')
    # links may open a tab outside the sandbox; nothing else: no scripts, no same origin
    sandbox = re.search(r'sandbox="([^"]*)"', out)
    assert sandbox and set(sandbox.group(1).split()) == {
        "allow-popups",
        "allow-popups-to-escape-sandbox",
    }
    assert "height:300px" in out
    inner = out[out.index("srcdoc=") :]
    assert "<p" not in inner and '"a"' not in inner[8:-10]
    assert srcdoc(out) == '<p title="a">x & y</p>'


@pytest.mark.parametrize("payload", HOSTILE)
def test_clean_fragment_drops_active_and_loading_content(payload: str) -> None:
    cleaned = clean_fragment(f"<p>before</p>{payload}<p>after</p>")
    lowered = cleaned.lower()
    for bad in (
        "<script",
        "onerror",
        "onload",
        "<meta",
        "<base",
        "<iframe",
        "javascript:",
        "<form",
        "<input",
        "<link",
        "<style",
        "style=",
        "<object",
        "evil.example/beacon",
        "commandlinker",
        "<svg",
    ):
        assert bad not in lowered, (payload, cleaned)
    assert "<p>before</p>" in cleaned and "<p>after</p>" in cleaned


def test_clean_fragment_keeps_article_structure() -> None:
    fragment = (
        '<h2 id="overview">Overview</h2><p class="lead">Text [s1] <a href="https://example.org/a">link</a></p>'
        f'<figure class="fig-right"><img src="{PIXEL}" alt="dot"><figcaption>Cap <span class="img-src">Source</span></figcaption></figure>'
        '<div class="table-wrap"><table><thead><tr><th scope="col">A</th></tr></thead><tbody><tr><td colspan="2">1</td></tr></tbody></table></div>'
    )
    cleaned = clean_fragment(fragment)
    for kept in (
        'id="overview"',
        'class="lead"',
        'href="https://example.org/a"',
        f'src="{PIXEL}"',
        'class="fig-right"',
        "<figcaption>",
        'colspan="2"',
        'class="table-wrap"',
        "[s1]",
    ):
        assert kept in cleaned, kept


def test_article_preview_of_corpus_document(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    preview = ArticlePreview(doc)
    bundle = preview._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    page = srcdoc(bundle["text/html"])
    assert page.startswith("<!DOCTYPE html>")
    assert f'content="{PREVIEW_CSP}"' in page
    assert page.index("Content-Security-Policy") < page.index("<body>")
    # title, as-of and version come from the manifest (the original fills them by script)
    m = doc.manifest
    assert f'<h1 id="doc-title">{html.escape(m.title)}</h1>' in page
    assert f"As of {m.as_of} &bull; Version {m.version}" in page
    assert 'id="overview"' in page and "<script" not in page.lower()
    assert MIN_HEIGHT <= preview.height() <= MAX_HEIGHT
    assert repr(preview) == bundle["text/plain"]


def test_hostile_title_and_article_stay_inert(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html")
    title = 'Q&A: "AI" </script><script>alert(1)</script>'
    doc = doc.edit_block("oo-manifest", lambda m: m.update(title=title))
    doc = doc.with_article("".join(HOSTILE) + "<p>kept</p>")
    page = srcdoc(ArticlePreview(doc).to_html())
    body = page[page.index("<body>") :]
    assert (
        "<script" not in body.lower()
        and "onerror" not in body
        and "evil.example/beacon" not in body
    )
    assert html.escape(title) in body
    assert "<p>kept</p>" in body


def test_explicit_height_wins(corpus_dir: Path) -> None:
    preview = ArticlePreview(Document.read(corpus_dir / "agi-declared.o-o.html"), height=777)
    assert "height:777px" in preview.to_html()


def test_short_article_gets_the_minimum_height(corpus_dir: Path) -> None:
    doc = Document.read(corpus_dir / "yc-w26-batch.o-o.html").with_article("<p>one line</p>")
    assert ArticlePreview(doc).height() == MIN_HEIGHT


def test_index_preview_shows_cards_between_markers(corpus_dir: Path) -> None:
    preview = IndexPreview(corpus_dir / "index.o-o.html")
    page = srcdoc(preview.to_html())
    assert 'class="card' in page and "<table" in page
    assert "search-input" not in page  # outside the markers: not part of the preview
    assert "<script" not in page.lower()
    assert preview.to_text().endswith("library index (25 card(s))")


def test_links_open_outside_the_frame_and_citations_jump_inside_it() -> None:
    """Issue 13: a link clicked in a preview blanked the frame. Every link opens a new tab
    (the page's base target); in-page links and citations stay in the frame, and point at the
    frame's own address (a srcdoc frame resolves "#x" against the notebook's address)."""
    body = clean_fragment(
        '<p>Text [s1][s2] and [s9] <a href="#overview" target="_top">up</a> '
        '<a href="https://example.org/x" target="_parent">out [s1]</a></p>'
        '<h2 id="references">References</h2><ol><li>[s1] <a href="https://a.example">A</a></li>'
        '<li><a href="https://b.example">[s2] B</a></li></ol>'
    )
    page = srcdoc(iframe(body, height=100)).replace("&amp;", "&")
    assert (
        '<li><span id="oo-ref-s1"></span>[s1]' in body
        and '<li><span id="oo-ref-s2"></span><a' in body
    )
    for sid in ("s1", "s2"):
        assert (
            f'<a class="oo-cite" href="about:srcdoc#oo-ref-{sid}" target="_self">[{sid}]</a>'
            in body
        )
    assert "[s9]" in body and "oo-ref-s9" not in body  # no entry: stays text
    assert 'href="about:srcdoc#overview" target="_self"' in body
    assert "_top" not in body and "_parent" not in body  # a document's own targets are dropped
    # a citation inside a link is not nested into another link
    assert '<a href="https://example.org/x" rel="noopener noreferrer">out [s1]</a>' in body
    assert 'href="#' not in page


def test_a_documents_citations_link_to_its_references(corpus_dir: Path) -> None:
    page = srcdoc(ArticlePreview(Document.read(corpus_dir / "yc-w26-batch.o-o.html")).to_html())
    cites = set(re.findall(r'href="about:srcdoc#oo-ref-(s\d+)" target="_self"', page))
    anchors = set(re.findall(r'<span id="oo-ref-(s\d+)"></span>', page))
    assert cites and cites <= anchors, (cites, anchors)
    assert 'href="#' not in page and '<base target="_blank">' in page


def test_a_page_opens_links_in_a_new_tab_and_follows_the_lab_theme(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from oo_nb.notebook.preview import page

    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path))
    monkeypatch.delenv("OO_PREVIEW_THEME", raising=False)
    head = page("<p>x</p>")
    assert '<base target="_blank">' in head and head.index("<base") < head.index("<body>")
    assert head.startswith("<!DOCTYPE html><html><head>")  # theme unknown: the system decides
    assert "@media (prefers-color-scheme:dark){:root:not(.oo-light)" in head
    themes = tmp_path / "@jupyterlab" / "apputils-extension"
    themes.mkdir(parents=True)
    settings = themes / "themes.jupyterlab-settings"
    settings.write_text('{\n  // chosen in Settings > Theme\n  "theme": "JupyterLab Dark"\n}')
    assert page("x").startswith('<!DOCTYPE html><html class="oo-dark">')
    settings.write_text('{"theme": "JupyterLab Light"}')
    assert page("x").startswith('<!DOCTYPE html><html class="oo-light">')
    settings.write_text('{"theme": "JupyterLab Dark", "adaptive-theme": true}')
    assert page("x").startswith("<!DOCTYPE html><html><head>")
    settings.write_text("{not json")
    assert page("x").startswith("<!DOCTYPE html><html><head>")
    monkeypatch.setenv("OO_PREVIEW_THEME", "dark")
    assert page("x").startswith('<!DOCTYPE html><html class="oo-dark">')
    assert page("x", dark=False).startswith('<!DOCTYPE html><html class="oo-light">')


def test_index_cards_open_the_file_through_the_jupyter_server(
    monkeypatch: pytest.MonkeyPatch, corpus_dir: Path
) -> None:
    import oo_nb.notebook.lab_context as lab_context

    index = corpus_dir / "index.o-o.html"
    monkeypatch.setattr(lab_context, "served_url", lambda p: None)
    page = srcdoc(IndexPreview(index).to_html())
    cards = re.findall(r'<a class="card[^"]*"[^>]*>', page)
    assert cards and all("href=" not in c and 'title="' in c for c in cards), cards[:2]
    served = {"n": 0}

    def fake(p: Path) -> str:
        served["n"] += 1
        assert p.parent == corpus_dir
        return f"/base/view/{p.name}"

    monkeypatch.setattr(lab_context, "served_url", fake)
    page = srcdoc(IndexPreview(index).to_html())
    cards = re.findall(r'<a class="card[^"]*"[^>]*>', page)
    assert cards and all('href="/base/view/' in c for c in cards), cards[:2]
    assert "/lab/" not in page and served["n"] >= len(cards)


def test_served_url_finds_the_server_whose_root_holds_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json
    import os

    from oo_nb.notebook.lab_context import served_url

    (tmp_path / "root" / "sub dir").mkdir(parents=True)
    doc = tmp_path / "root" / "sub dir" / "a.o-o.html"
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv("JPY_PARENT_PID", raising=False)  # not in a server's kernel
    servers = {
        "jpserver-1.json": {"root_dir": str(tmp_path / "elsewhere"), "base_url": "/x/"},
        "jpserver-2.json": {"root_dir": str(tmp_path / "root"), "base_url": "/user/me/"},
    }
    for name, info in servers.items():
        (runtime / name).write_text(json.dumps({**info, "pid": os.getpid()}))
    dead = {"root_dir": str(tmp_path / "root"), "base_url": "/dead/", "pid": 2**22 + 1}
    (runtime / "jpserver-0.json").write_text(json.dumps(dead))  # its process is gone
    (runtime / "jpserver-00.json").write_text("{half")  # being written
    assert served_url(doc) == "/user/me/view/sub%20dir/a.o-o.html"
    assert served_url(tmp_path / "outside.html") is None
    assert (runtime / "jpserver-0.json").exists()  # a reader deletes nothing


def test_links_use_the_server_that_started_the_kernel(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Two servers: a wider root whose info file sorts first, and the kernel's own. The link
    was on the first (`/view/root/...`, a 404 in the lab the user is in)."""
    import json
    import os

    from oo_nb.notebook.lab_context import served_url

    (tmp_path / "lab" / "root").mkdir(parents=True)
    doc = tmp_path / "lab" / "root" / "a.o-o.html"
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    other, own = os.getppid(), os.getpid()  # two live processes
    servers = {
        "jpserver-1.json": {"root_dir": str(tmp_path / "lab"), "base_url": "/", "pid": other},
        "jpserver-2.json": {
            "root_dir": str(tmp_path / "lab" / "root"),
            "base_url": "/",
            "pid": own,
        },
    }
    for name, info in servers.items():
        (runtime / name).write_text(json.dumps(info))
    monkeypatch.setenv("JPY_PARENT_PID", str(own))
    assert served_url(doc) == "/view/a.o-o.html"
    monkeypatch.setenv("JPY_PARENT_PID", str(2**22 + 1))  # a kernel no listed server started
    assert served_url(doc) is None
    monkeypatch.delenv("JPY_PARENT_PID")  # not a kernel: any server whose root holds it
    assert served_url(doc) == "/view/root/a.o-o.html"


def test_finding_the_server_does_not_import_jupyter_server(tmp_path: Path) -> None:
    """Importing jupyter_server.serverapp took 6-10 s of `%oo index`'s 8-11 s."""
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; from oo_nb.notebook.lab_context import served_url;"
        f"served_url(Path({str(tmp_path)!r})); print('jupyter_server' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_citations_link_to_the_entry_the_page_script_numbers() -> None:
    """A sublist in an entry is no entry (the page numbers the list's own items), a label wins
    over the position, and a References heading is found by its text as the page finds it."""
    body = clean_fragment(
        "<p>see [s2] and [s3]</p><h2>References</h2><ol>"
        '<li><a href="https://a.example">A</a><ul><li>aside</li></ul></li>'
        '<li><a href="https://b.example">B</a></li>'
        '<li>[s2] <a href="https://c.example">C</a></li></ol>'
    )
    cites = re.findall(r'href="about:srcdoc#oo-ref-(\w+)" target="_self">\[(s\d)\]', body)
    assert cites == [("s2", "s2"), ("s2", "s3")]
    # [s2] is the labelled third entry; [s3] by position the third too: its anchor is s2
    assert body.count('<span id="oo-ref-s2"></span>') == 1
    third = body.index('<span id="oo-ref-s2"></span>')
    assert third > body.index("b.example") and "aside" not in body[third:]
