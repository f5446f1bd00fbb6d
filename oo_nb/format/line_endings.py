"""Line endings of the shell part: the bash lines before the page (header and heredoc opener)
and from the heredoc terminator on (the shell tail).

bash reads a carriage return as part of each word, so a document whose shell lines end in CR LF
(a Windows editor, git's ``autocrlf``) does not run: ``#!/usr/bin/env bash\\r`` is not found
when the file is executed, ``bash FILE`` stops at ``oo_find_python() {\\r`` with a syntax error,
and a terminator line ``OO_HTML\\r`` under an LF opener never ends the heredoc. The page between
opener and terminator is data: it may keep any line endings, and nothing here changes it.
"""

from __future__ import annotations

from oo_nb.errors import FormatError
from oo_nb.format.document import Document
from oo_nb.skin import sync_advice

__all__ = ["FIX_OPTION", "crlf_message", "shell_crlf_line", "with_lf_shell"]

FIX_OPTION = "--fix-line-endings"


def shell_crlf_line(doc: Document) -> int | None:
    """The first line of the shell part that ends in CR LF (1-based), or None."""
    if doc.shell_newline == "\n":  # the parse found no CR LF in the shell part (most files)
        return None
    text = doc.text
    head = text.find("\r\n", 0, doc.html.start)
    if head >= 0:
        return doc.line_of(head)
    tail = text.find("\r\n", doc.terminator.start)
    return doc.line_of(tail) if tail >= 0 else None


def crlf_message(line: int, folder: str) -> str:
    """What ``oo check`` and the audit say about it (one wording for both; the fix as the
    caller types it: ``skin``)."""
    return (
        f"bash cannot run this file: CRLF line endings in the shell part (line {line}); "
        f"fix with `{sync_advice(folder, 'fix_line_endings')}`"
    )


def with_lf_shell(doc: Document) -> Document:
    """``doc`` with CR LF turned into LF in the shell part only; the page between the heredoc
    lines keeps every byte. The same Document when there is nothing to fix."""
    if shell_crlf_line(doc) is None:
        return doc
    text = doc.text
    head = text[: doc.html.start].replace("\r\n", "\n")
    tail = text[doc.terminator.start :].replace("\r\n", "\n")
    page = text[doc.html.start : doc.terminator.start]
    fixed = Document(head + page + tail, path=doc.path)
    if fixed.span_text(fixed.html) != page or set(fixed.blocks) != set(doc.blocks):
        raise FormatError(  # never a fix that moved the page's bounds
            "changing the shell's line endings would change the page; not changed",
            file=doc.file,
        )
    return fixed
