"""``oo check``: view errors are findings whatever their words; a missing block is reported once."""

from __future__ import annotations

import re
from pathlib import Path

from oo_nb.format.check import check_path
from oo_nb.format.document import Document
from oo_nb.skin import speaking
from tests.conftest import CORPUS
from tests.support.crlf import bash_help, crlf_document, parts


def test_a_view_error_mentioning_missing_is_still_reported(tmp_path: Path) -> None:
    doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")
    path = tmp_path / "yc.o-o.html"
    path.write_bytes(
        doc.edit_block("oo-manifest", lambda m: m.update(version="missing")).to_bytes()
    )
    found = check_path(path)
    bad = [f for f in found if f.code == "invalid-block"]
    assert len(bad) == 1 and bad[0].severity == "error"
    assert "key 'version'" in bad[0].message and "found 'missing'" in bad[0].message


def test_a_missing_block_is_one_finding(tmp_path: Path) -> None:
    text = (CORPUS / "yc-w26-batch.o-o.html").read_text("utf-8")
    without, n = re.subn(
        r'<script[^>]*id="oo-changelog"[^>]*>.*?</script>\n?', "", text, count=1, flags=re.S
    )
    assert n == 1
    path = tmp_path / "yc.o-o.html"
    path.write_text(without, "utf-8")
    found = check_path(path)
    assert [f.code for f in found] == ["missing-block"]
    assert "oo-changelog" in found[0].message and found[0].severity == "error"


def test_check_and_audit_agree_on_html_injection_and_every_other_code(tmp_path: Path) -> None:
    """What check_path's docstring claims: every code check reports, the audit reports with the
    same severity, html-injection (a tone and a heading holding '<') included."""
    from oo_nb.library.library import Library

    doc = Document.read(CORPUS / "ai-model-landscape.o-o.html")
    path = tmp_path / "a.o-o.html"
    hostile = "<img src=x onerror=alert(1)>"
    doc = doc.edit_block("oo-contract", lambda c: c["identity"].update(tone=hostile))
    doc = doc.with_article(
        doc.article_html + '<h2 id="x-risk">Models &lt;b&gt; and more</h2>\n<p>Text.</p>\n'
    )
    path.write_bytes(doc.to_bytes())
    checked = check_path(path)
    audited = Library(tmp_path, workers=1).audit(all=True)
    injected = audited[audited["code"] == "html-injection"]
    assert set(injected["where"]) == {"contract tone", "heading #x-risk"}
    assert {f.message.split(";")[0] for f in checked if f.code == "html-injection"} == {
        m.split(";")[0] for m in injected["message"]
    }
    for f in checked:
        same = audited[audited["code"] == f.code]
        assert set(same["severity"]) == {f.severity}, f
    migrated = tmp_path / "m"
    migrated.mkdir()
    from oo_nb.edit.sync import migrate_early

    (migrated / "a.o-o.html").write_bytes(migrate_early(doc).to_bytes())
    assert "html-injection" not in set(Library(migrated, workers=1).audit(all=True)["code"])


def test_check_and_audit_report_every_sink_of_the_original_page_script(tmp_path: Path) -> None:
    """One value in each place the original script reads as HTML (legacy_script's list): both
    report each, with the same words; what the script does not read is not reported."""
    from oo_nb.library.library import Library

    doc = Document.read(CORPUS / "yc-w26-batch.o-o.html")

    def hostile(c: dict[str, object]) -> None:
        c["identity"] = {"subject": ["&lt;b&gt;"], "scope": "<i>", "audience": "a > b", "tone": ""}
        c["research"]["intents"] = ["fine", "<u>"]  # type: ignore[index]
        c["research"]["required_sections"] = ["References", "&#60;s"]  # type: ignore[index]

    doc = doc.edit_block("oo-contract", hostile)
    doc = doc.with_article(
        doc.article_html
        + '<div><h3 id="deep">deep &lt;b&gt;</h3></div><h4>&lt;not in the toc&gt;</h4>\n'
        + '<p>See <abbr title="[s1] x">y</abbr>.</p>\n'
    )
    path = tmp_path / "y.o-o.html"
    path.write_bytes(doc.to_bytes())
    checked = {f.message.split(";")[0] for f in check_path(path) if f.code == "html-injection"}
    audited = Library(tmp_path, workers=1).audit(all=True)
    injected = audited[audited["code"] == "html-injection"]
    assert sorted(injected["where"]) == sorted(
        [
            "contract subject",
            "contract scope",
            "contract audience",
            "contract intents[1]",
            "contract required_sections[1]",
            "heading #deep",
            "attribute title= in a paragraph",
        ]
    )
    assert checked == {m.split(";")[0] for m in injected["message"]}


# --------------------------------------------------------------------------- CRLF in the shell
def test_crlf_in_the_shell_is_an_error_bash_really_cannot_run(tmp_path: Path) -> None:
    path = crlf_document(tmp_path, page=True, shell=True)
    ran = bash_help(path)
    assert ran.returncode != 0 and "syntax error" in ran.stderr  # what bash does with it
    with speaking("oo"):  # (the fix as ``oo check`` words it; in Python: sync_dir)
        found = [f for f in check_path(path) if f.code == "crlf-shell"]
    assert len(found) == 1 and found[0].severity == "error"
    assert found[0].message == (
        "bash cannot run this file: CRLF line endings in the shell part (line 1); "
        f"fix with `oo sync {tmp_path} --fix-line-endings`"
    )


def test_crlf_only_after_the_heredoc_names_that_line(tmp_path: Path) -> None:
    path = crlf_document(tmp_path, page=False, shell=False)
    doc = Document.read(path)
    head, page, tail = parts(path.read_bytes())
    path.write_bytes(head + page + tail.replace(b"\n", b"\r\n"))
    ran = bash_help(path)  # `OO_HTML\r` never ends the heredoc: bash runs nothing at all
    assert "Usage" not in ran.stdout and "here-document" in ran.stderr
    found = [f for f in check_path(path) if f.code == "crlf-shell"]
    assert len(found) == 1 and f"(line {doc.line_of(doc.terminator.start)})" in found[0].message


def test_crlf_in_the_page_alone_is_fine(tmp_path: Path) -> None:
    path = crlf_document(tmp_path, page=True, shell=False)
    assert bash_help(path).stdout.startswith("Usage")
    assert [f for f in check_path(path) if f.severity == "error"] == []


# --------------------------------------------------------------------------- unsafe characters
_SPOOF = "Price fell to \u202e05.0$\u202c per kWh"  # Chromium shows "$0.50"


def _with_text(tmp_path: Path, paragraph: str, *, comment: str = "") -> tuple[Path, Document]:
    doc = Document.read(CORPUS / "ai-model-landscape.o-o.html")
    doc = doc.with_article(doc.article_html + f"<!-- {comment} -->\n<p>{paragraph}</p>\n")
    path = tmp_path / "a.o-o.html"
    path.write_bytes(doc.to_bytes())
    return path, Document.read(path)


def _line_of(doc: Document, needle: str) -> int:
    return doc.line_of(doc.text.index(needle))


def test_bidi_and_control_characters_in_the_article_text_are_a_warning_naming_the_line(
    tmp_path: Path,
) -> None:
    from oo_nb.library.library import Library

    path, doc = _with_text(tmp_path, f"{_SPOOF}, <b title='x&#x1b;[2J'>see</b> &rlm;")
    found = [f for f in check_path(path) if f.code == "unsafe-text"]
    assert [(f.severity, f.message.split(":")[0]) for f in found] == [
        ("warning", f"line {_line_of(doc, 'Price fell')}")
    ]
    assert "\\u202e, \\u202c, \\u001b, \\u200f" in found[0].message  # references count too
    audited = Library(tmp_path, workers=1).audit(all=True)
    same = audited[audited["code"] == "unsafe-text"]
    assert list(same["message"]) == [found[0].message] and set(same["severity"]) == {"warning"}


def test_text_a_reader_never_sees_as_characters_is_no_finding(tmp_path: Path) -> None:
    path, _ = _with_text(
        tmp_path, "Plain, caf&eacute; &#8217; \u200d", comment="\u202e in a comment"
    )
    assert [f for f in check_path(path) if f.code == "unsafe-text"] == []
    crlf = crlf_document(tmp_path / "crlf", page=True, shell=False)  # CR is a line end
    assert [f for f in check_path(crlf) if f.code == "unsafe-text"] == []


def test_bidi_and_control_characters_in_the_manifest_name_the_block_and_field(
    tmp_path: Path,
) -> None:
    doc = Document.read(CORPUS / "ai-model-landscape.o-o.html")
    doc = doc.edit_block("oo-manifest", lambda m: m.update(title="Heat\u202eevil\x1b[2J"))
    path = tmp_path / "a.o-o.html"
    path.write_bytes(doc.to_bytes())
    found = [f for f in check_path(path) if f.code == "unsafe-text"]
    assert [f.message.split(": control")[0] for f in found] == ["oo-manifest title"]
    assert "\\u202e, \\u001b" in found[0].message and found[0].severity == "warning"
