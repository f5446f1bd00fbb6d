"""The heredoc ends where bash ends it: a line equal to the delimiter exactly, and bash's
delimiter takes a CR that follows the opener's word (an ``OO_HTML`` + CR line ends nothing under
an LF opener: bash reads on, and runs what follows the next bare ``OO_HTML``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from oo_nb.errors import FormatError
from oo_nb.format.document import Document

CASES = {
    "cr terminator under an lf opener": ": << 'OO_HTML'\n<p>x</p>\nOO_HTML\r\necho first\nOO_HTML\necho second\n",
    "crlf throughout": ": << 'OO_HTML'\r\n<p>x</p>\r\nOO_HTML\r\necho first\r\n",
    "a blank before the opener's cr": ": << 'OO_HTML' \r\n<p>x</p>\r\nOO_HTML\r\necho first\nOO_HTML\necho second\n",
    "tabs stripped under <<-": ": <<- 'OO_HTML'\n<p>x</p>\n\t\tOO_HTML\necho first\nOO_HTML\necho second\n",
    "a tab without <<-": ": << 'OO_HTML'\n<p>x</p>\n\tOO_HTML\necho first\nOO_HTML\necho second\n",
    "double-quoted word": ': << "OO_HTML"\n<p>x</p>\nOO_HTML \nOO_HTML\necho first\n',
    "plain": ": << 'OO_HTML'\n<p>x</p>\nOO_HTML\necho first\n",
}


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_shell_tail_is_what_bash_runs(tmp_path: Path, name: str) -> None:
    page = CASES[name].encode()
    path = tmp_path / "page.sh"
    path.write_bytes(page)
    ran = subprocess.run(["bash", str(path)], capture_output=True, check=False).stdout
    doc = Document.parse(page)
    tail = doc.text[doc.tail.start :]
    # (the words the tail's own echo lines print are what bash printed: the heredoc ended
    # where oo_nb says)
    echoed = [line.split()[1] for line in tail.splitlines() if line.startswith("echo ")]
    assert ran.decode().split() == echoed, (name, tail)


@pytest.mark.parametrize("opener", [": << OO_HTML", ": <<- OO_HTML", ":<<OO_HTML"])
def test_an_unquoted_opener_is_refused(opener: str) -> None:
    """With its word unquoted bash expands the heredoc: ``$(...)`` in the page's text runs."""
    page = f"{opener}\n<p>$(touch /tmp/x)</p>\nOO_HTML\n".encode()
    with pytest.raises(FormatError, match="unquoted"):
        Document.parse(page)
