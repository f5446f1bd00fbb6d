"""Fingerprint the page code of known original o-o pages: ``python -m tools.page_fingerprints
[FILE ...]`` (default: the documents of the tests' corpus) writes
``oo_nb/format/known_page_code.py``, the set ``oo check`` recognises besides this version's
templates (see ``oo_nb/format/page_code.py``).

Each original page counts as it is and as ``oo sync --migrate`` leaves it (its markup with the
widened policy; the stylesheet, script and shell are then this version's). Fingerprints already
in the file are kept with their notes, so pages fingerprinted once stay known; ``--fresh`` starts
from none. ``--shipped REV`` adds the shell oo_nb wrote at git revision REV: run it with the last
release's revision before changing the shell templates, so the pages it wrote stay known;
``--history`` adds what every revision of oo_nb that changed its templates rendered (pages and
marker sections, each by that revision's own code), so a page an earlier oo_nb wrote or synced
stays known after an upgrade. ``--published COMMIT FILE ...`` takes the files as the pages of
jahala/o-o at that commit, rebuilt from its public repository (docs/security.md lists the
versions and how each was checked), and records their regions' fingerprints in
tests/fixtures/published_page_code.json. ``--kept-by-sync FILE`` adds only what ``oo sync``
keeps of an original page (its markup, shell header and shell outside OO:SHELL, as published and
as synced): for pages rebuilt from a published o-o version's own generator template, whose stylesheet,
script and OO:SHELL section are stand-ins (so never fingerprinted).

An OO:SHELL section holding o-o's generator template is also recorded as the section of a
document fresh from its ``--new`` reads (``page_code.fresh_form``: the same marking of the
document's own values that ``oo check`` applies).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from oo_nb.edit.sync import migrate_early, sync_document
from oo_nb.format.document import Document
from oo_nb.format.known_page_code import KNOWN_PAGE_CODE
from oo_nb.format.names import SECTION_MARKERS
from oo_nb.format.page_code import (
    CodeRegion,
    code_regions,
    fresh_form,
    rendered_fingerprints,
    template_fingerprints,
)

__all__ = [
    "fingerprints",
    "fresh_region",
    "history",
    "kept_by_sync",
    "main",
    "render_module",
    "shipped_shells",
]

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "oo_nb" / "format" / "known_page_code.py"
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
# The regions of each published o-o page rebuilt with --published, by commit and file: only their
# fingerprints (o-o's code stays out of this repository), so a test holds every one known.
PUBLISHED = ROOT / "tests" / "fixtures" / "published_page_code.json"


def fingerprints(paths: list[Path], published: str | None = None) -> dict[str, str]:
    """fingerprint -> where it was first seen ("page markup of agi-declared.o-o.html"); with
    ``published`` (a jahala/o-o commit), the pages are that commit's, rebuilt from the public
    repository, and the note names the commit and the file ("stylesheet of jahala/o-o
    index.o-o.html at 01e81cc")."""
    ours = template_fingerprints()
    found: dict[str, str] = {}
    for path in paths:
        name = path.name if published is None else f"jahala/o-o {path.name} at {published}"
        doc = Document.read(path)
        versions = [("", doc)]
        if doc.layout == "early":
            versions.append((" (migrated)", migrate_early(doc)))
        else:  # as `oo sync` leaves it: this version's sections in the original's markup and shell
            versions.append((" (synced)", sync_document(doc, ("css", "js", "shell"), None)[0]))
        for label, version in versions:
            for region in code_regions(version):
                if region.fingerprint not in ours:
                    found.setdefault(region.fingerprint, f"{region.kind} of {name}{label}")
                fresh = fresh_region(region)
                if fresh is not None:
                    note = f"{region.kind} of a document fresh from {name}{label}'s --new"
                    found.setdefault(fresh.fingerprint, note)
    return found


def fresh_region(region: CodeRegion) -> CodeRegion | None:
    """For an OO:SHELL section holding o-o's generator template: the section of any document
    its ``--new`` writes, as ``code_regions`` normalises it (``page_code.fresh_form``)."""
    if region.kind != "shell section":
        return None
    form = fresh_form(region.text)
    return None if form is None else CodeRegion(region.kind, region.line, form)


def published_regions(paths: list[Path]) -> dict[str, dict[str, list[str]]]:
    """file name -> region kind -> the fingerprints of that kind, for rebuilt published pages
    (each as published, and as `oo sync` or `oo sync --migrate` leaves it)."""
    found: dict[str, dict[str, list[str]]] = {}
    for path in paths:
        doc = Document.read(path)
        if doc.layout == "early":
            after = migrate_early(doc)
        else:
            after = sync_document(doc, ("css", "js", "shell"), None)[0]
        kinds: dict[str, set[str]] = {}
        for version in (doc, after):
            for region in code_regions(version):
                kinds.setdefault(region.kind, set()).add(region.fingerprint)
                fresh = fresh_region(region)
                if fresh is not None:
                    kinds[region.kind].add(fresh.fingerprint)
        found[path.name] = {kind: sorted(digests) for kind, digests in sorted(kinds.items())}
    return found


def record_published(commit: str, paths: list[Path]) -> None:
    """Add the regions of ``paths`` (jahala/o-o's pages at ``commit``) to ``PUBLISHED``."""
    record = json.loads(PUBLISHED.read_text("utf-8")) if PUBLISHED.exists() else {}
    record[commit] = published_regions(paths)
    PUBLISHED.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", "utf-8")


def shipped_shells(rev: str) -> dict[str, str]:
    """fingerprint -> note, for the shell of the document and index pages oo_nb wrote at git
    revision ``rev`` (as ``oo new`` and ``oo sync`` put it in, and after ``--migrate``)."""
    ours = template_fingerprints()
    start, end = SECTION_MARKERS["shell"]

    def asset(name: str) -> str:
        where = f"{rev}:oo_nb/format/template/{name}"
        done = subprocess.run(["git", "show", where], cwd=ROOT, capture_output=True, check=True)
        return done.stdout.decode("utf-8")

    found: dict[str, str] = {}
    for kind in ("document", "index"):
        shell = (
            f": << 'OO_HTML'\nOO_HTML\n{start}\n{asset('common.sh')}{asset(kind + '.sh')}{end}\n"
        )
        for sample in (shell, shell + "exit 0\n"):
            for region in code_regions(Document(sample)):
                if region.kind in ("shell", "shell section") and region.fingerprint not in ours:
                    found.setdefault(
                        region.fingerprint, f"{region.kind} of oo_nb's {kind} at {rev}"
                    )
    return found


TEMPLATE_DIRS = ("oo_nb/template", "oo_nb/format/template")

# Run by each earlier revision's own code (its render module moved once; its section functions
# took the page kind from some revision on): prints its pages and sections as JSON.
_RENDER_AT_REVISION = """
import json, sys
try:
    from oo_nb.format.template import render
except ImportError:
    from oo_nb.template import render
pages = [
    render.render_document(file_name="t.o-o.html", manifest={"title": "T", "version": 0},
                           contract={}, source_cache={}, changelog={"entries": []}),
    render.render_index(title="T", content_html="", count=0, last_scan=""),
]
sections = []
for kind in ("document", "index"):
    try:
        sections.append([render.css_section(kind), render.js_section(kind),
                         render.shell_section(kind)])
    except TypeError:
        sections.append([render.css_section(), render.js_section(), render.shell_section()])
json.dump({"pages": pages, "sections": sections}, sys.stdout)
"""


KEPT_BY_SYNC = ("shell header", "page markup", "shell")


def kept_by_sync(paths: list[Path]) -> dict[str, str]:
    """fingerprint -> note, for the regions of original pages that `oo sync` keeps."""
    ours = template_fingerprints()
    found: dict[str, str] = {}
    for path in paths:
        doc = Document.read(path)
        synced = sync_document(doc, ("css", "js", "shell"), None)[0]
        for label, version in (("", doc), (" (synced)", synced)):
            for region in code_regions(version):
                if region.kind in KEPT_BY_SYNC and region.fingerprint not in ours:
                    note = f"{region.kind} of {path.name}{label}, kept by oo sync"
                    found.setdefault(region.fingerprint, note)
    return found


def template_revisions() -> list[str]:
    """The revisions of oo_nb that changed its templates, newest first."""
    done = subprocess.run(
        ["git", "log", "--format=%h", "--", *TEMPLATE_DIRS],
        cwd=ROOT,
        capture_output=True,
        check=True,
        text=True,
    )
    return done.stdout.split()


def rendered_at(rev: str) -> set[str]:
    """The fingerprints of what oo_nb at ``rev`` renders, by that revision's own code."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "oo_nb"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        done = subprocess.run(
            [sys.executable, "-P", "-c", _RENDER_AT_REVISION],
            cwd=tmp,
            env={"PYTHONPATH": tmp, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            check=True,
            text=True,
        )
    out = json.loads(done.stdout)
    return rendered_fingerprints(out["pages"], [tuple(s) for s in out["sections"]])


def history() -> dict[str, str]:
    """fingerprint -> note, for what each revision that changed the templates rendered."""
    ours = template_fingerprints()
    found: dict[str, str] = {}
    for rev in reversed(template_revisions()):  # the oldest first: a note names the first
        for digest in sorted(rendered_at(rev) - ours):
            found.setdefault(digest, f"oo_nb's page code at {rev}")
    return found


def _notes() -> dict[str, str]:
    """The fingerprints in the file now, with their notes."""
    line = re.compile(r'^\s*"([0-9a-f]{64})",  # (.*)$', re.MULTILINE)
    notes = dict(line.findall(TARGET.read_text("utf-8")))
    return {d: notes.get(d, "kept from an earlier run") for d in KNOWN_PAGE_CODE}


def render_module(found: dict[str, str]) -> str:
    lines = [
        '"""Fingerprints of the page code of known original o-o pages (sha256 of each normalised',
        "region, see ``page_code.py``). Generated by ``python -m tools.page_fingerprints`` from the",
        'real documents of the corpus; do not edit by hand."""',
        "",
        "from __future__ import annotations",
        "",
        '__all__ = ["KNOWN_PAGE_CODE"]',
        "",
        "KNOWN_PAGE_CODE: frozenset[str] = frozenset(",
        "    {",
    ]
    for digest, where in sorted(found.items(), key=lambda kv: (kv[1], kv[0])):
        lines.append(f'        "{digest}",  # {where}')
    lines += ["    }", ")", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="original o-o pages (default: corpus)")
    parser.add_argument("--fresh", action="store_true", help="drop the fingerprints in the file")
    parser.add_argument(
        "--published",
        metavar="COMMIT",
        help="the files are jahala/o-o pages at COMMIT, rebuilt from its public repository "
        "(each to the character: the notes name the commit and the file)",
    )
    parser.add_argument(
        "--shipped", action="append", default=[], metavar="REV", help="add the shell of REV"
    )
    parser.add_argument(
        "--history", action="store_true", help="add what every earlier template revision wrote"
    )
    parser.add_argument(
        "--kept-by-sync",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="add only the markup, header and outer shell of this original page",
    )
    ns = parser.parse_args(argv)
    if ns.published and not ns.files:
        parser.error("--published needs the rebuilt pages of that commit")
    paths = ns.files or sorted(CORPUS.glob("*.o-o.html"))
    found = {} if ns.fresh else _notes()
    new = fingerprints(paths, ns.published)
    for rev in ns.shipped:
        new.update(shipped_shells(rev))
    for digest, note in kept_by_sync(ns.kept_by_sync).items():
        found.setdefault(digest, note)
    if ns.history:
        for digest, note in history().items():  # a fingerprint noted before keeps its note
            found.setdefault(digest, note)
    for digest, note in new.items():  # a fingerprint noted before keeps its note
        found.setdefault(digest, note)
    TARGET.write_text(render_module(found), "utf-8")
    if ns.published:
        record_published(ns.published, paths)
    print(
        f"{TARGET.relative_to(ROOT)}: {len(found)} fingerprints ({len(new)} from {len(paths)} files)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
