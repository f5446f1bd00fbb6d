"""Documents with CR LF line endings in their page, their shell lines, or both, and what bash
does with them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from oo_nb.format.document import Document

__all__ = ["bash_help", "crlf_document", "parts"]


def parts(data: bytes) -> tuple[bytes, bytes, bytes]:
    """(shell head, page, shell tail) of a document's bytes: the page is between the heredoc
    opener line and the terminator line."""
    doc = Document.parse(data)
    head = len(doc.text[: doc.html.start].encode())
    page_end = len(doc.text[: doc.terminator.start].encode())
    return data[:head], data[head:page_end], data[page_end:]


def crlf_document(folder: Path, *, page: bool, shell: bool, name: str = "endings") -> Path:
    """A document made by oo_nb (``oo new``) written with CR LF where asked."""
    from oo_nb.edit.new import NewSpec, create_document

    made = create_document(NewSpec.from_text("Line endings"), folder / f".made-{name}")
    assert made.path is not None
    head, page_bytes, tail = parts(made.path.read_bytes())

    def crlf(part: bytes, on: bool) -> bytes:
        return part.replace(b"\n", b"\r\n") if on else part

    path = folder / f"{name}.o-o.html"
    path.write_bytes(crlf(head, shell) + crlf(page_bytes, page) + crlf(tail, shell))
    path.chmod(0o755)
    return path


def bash_help(path: Path) -> subprocess.CompletedProcess[str]:
    """``bash DOC --help``: the shell's own usage text, no Python needed."""
    return subprocess.run(
        ["bash", str(path), "--help"], capture_output=True, text=True, timeout=30, check=False
    )
