"""Reliability part 8 (attacks, round five): what an outside attack on the one article model found
read otherwise than Chromium and bash read it. Each row counts the breaks; Chromium's side of the
markup rows is proved in tests/browser/test_article_model_dom.py, bash's side here (it runs bash).

- a JSON block hidden where a browser sees none (a ``<textarea>``, ``<noscript>``, a comment
  ended by ``<!-->`` or ``--!>``, ``<script`` in an attribute): a break is oo_nb reading a block
  the page does not show;
- an ``<li>`` inside a blockquote, heading, figure... of a References entry, and a list in a
  ``<template>``: a break is an entry numbered otherwise than the page does;
- the heredoc's end (a CR terminator under an LF opener, ``<<-`` tabs) and an unquoted opener: a
  break is a shell tail other than the one bash runs, or the file read at all;
- a citation "[S3]" and a References entry whose first ``<a>`` has no href: a break is the
  citation not counted, or the entry's url read as '' (the page links both);
- a section whose next heading sits in a wrapper: a break is the section ending inside it;
- a stray end tag that closes the page's wrapper, and an update of an article with markup a
  browser reads otherwise: a break is ``oo check`` silent, or the update starting;
- (round six) a section heading without an id: a break is the section named otherwise than the
  page names it, an update of it adding a second section, or an ``<h2>`` Claude Code adds read
  as text of the section before;
- (round six) a formatting element (``<a>``, ``<b>``...) left open where the element around it
  closes, which a browser opens again around what follows: a break is ``oo check`` silent, or
  the update starting.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.support.figures import Figure

__all__ = ["attacks"]

PART = "8 attack"
DEMO = Path(__file__).resolve().parents[2] / "oo_nb" / "demo" / "data" / "documents"


def _row(measure: str, trials: int, breaks: int) -> Figure:
    return Figure(PART, measure, trials, breaks, "0", breaks == 0)


def attacks(workdir: Path) -> list[Figure]:
    workdir.mkdir(parents=True, exist_ok=True)
    return [
        _hidden_blocks(),
        _entries(),
        _citations(),
        _heredoc_ends(workdir),
        _sections(),
        _strays(workdir),
        _headings_without_id(),
        _left_open(workdir),
    ]


def _refused(error: type[Exception], call: Callable[..., object], *args: object) -> bool:
    """Whether ``call(*args)`` raises ``error`` (the refusal the row expects)."""
    try:
        call(*args)
    except error:
        return True
    return False


def _demo() -> str:
    return (DEMO / "heat-pumps-in-europe.o-o.html").read_text()


def _hidden_blocks() -> Figure:
    from oo_nb.errors import OOError
    from oo_nb.format.document import Document

    page = _demo()
    tag = '<script id="oo-contract" type="application/json">'
    at = page.index(tag)
    end = page.index("</script>", at) + len("</script>")
    real = page[at:end]
    forged = real.replace('"max_cost_usd": 0.5', '"max_cost_usd": 40')
    assert forged != real
    hides = [
        f"<textarea hidden>{forged}</textarea><!--> {real} -->",
        f"<noscript>{forged}</noscript>",
        f"<!-- x --!>{real}<!-- {forged} -->",
        f"<title>{forged}</title>{real}",
        f'<meta content="<script>">{real}',
    ]
    breaks = 0
    for hide in hides:
        # (no contract, or refused: the browser's reading is not contradicted)
        with contextlib.suppress(OOError):
            breaks += Document(page[:at] + hide + page[end:]).contract.max_cost_usd != 0.5
    return _row("a JSON block the browser does not see read as the block", len(hides), breaks)


def _entries() -> Figure:
    from oo_nb.format.article import Article

    refs = '<h2 id="references">References</h2><ol><li><a href="https://a.example/">A</a>{}</li>'
    tail = '<li><a href="https://b.example/">B</a></li></ol>'
    wrappers = ["blockquote", "h3", "figure", "details", "section", "dl", "nav", "pre"]
    cases = [
        refs.format(f'<{w}><li><a href="https://q.example/">q</a></{w}>') + tail for w in wrappers
    ]
    cases.append(
        '<template><h2 id="references">References</h2><ol><li><a href="https://t.example/">t</a>'
        "</li></ol></template>" + refs.format("") + tail
    )
    breaks = sum(
        [r.url for r in Article.parse(html).references]
        != ["https://a.example/", "https://b.example/"]
        for html in cases
    )
    return _row("an entry numbered otherwise than the page numbers it", len(cases), breaks)


def _citations() -> Figure:
    """The page links "[S3]" as "[s3]" and shows an entry's first <a> with an href as its link
    (round six, findings 5 and 10): a break is a citation not counted, or an entry's url lost."""
    from oo_nb.format.article import Article

    refs = '<h2 id="references">References</h2><ol><li>[s1] {}</li><li>[s2] B</li></ol>'
    link = '<a href="https://a.example/">A</a>'
    cited = ["<p>x [S2]</p>", "<p>x <b>[S2]</b></p>", "<p>[s1][S2]</p>"]
    breaks = sum("s2" not in Article.parse(c + refs.format(link)).cited_ids for c in cited)
    anchors = ['<a id="a"></a>', '<a name="a">A</a>', "<a>no href</a>"]
    breaks += sum(
        Article.parse("<p>[s1]</p>" + refs.format(a + link)).references[0].url
        != "https://a.example/"
        for a in anchors
    )
    return _row(
        "an [SN] citation not counted, or an entry's link read from an anchor",
        len(cited) + len(anchors),
        breaks,
    )


def _heredoc_ends(workdir: Path) -> Figure:
    from oo_nb.errors import FormatError
    from oo_nb.format.document import Document
    from tests.format.test_terminator_as_bash import CASES

    breaks = 0
    bash = shutil.which("bash")
    if bash is None:  # (the row is bash's reading: without bash it measures nothing)
        raise RuntimeError("the heredoc row runs bash, and there is none on this machine")
    for i, text in enumerate(CASES.values()):
        path = workdir / f"heredoc-{i}.sh"
        path.write_bytes(text.encode())
        doc = Document.parse(text.encode())
        said = [
            line.split()[1]
            for line in doc.text[doc.tail.start :].splitlines()
            if line.startswith("echo ")
        ]
        ran = subprocess.run([bash, str(path)], capture_output=True, check=False).stdout
        breaks += ran.decode().split() != said
    unquoted = [": << OO_HTML", ": <<- OO_HTML"]
    breaks += sum(
        not _refused(FormatError, Document.parse, f"{opener}\n<p>$(id)</p>\nOO_HTML\n".encode())
        for opener in unquoted
    )
    return _row(
        "a shell tail other than bash runs, or an unquoted opener read",
        len(CASES) + len(unquoted),
        breaks,
    )


def _sections() -> Figure:
    from oo_nb.agent.sections import assemble, split_article
    from oo_nb.format.article_model import read_model

    wrapped = [
        '<section class="kd"><h2 id="b">B</h2><p>b</p></section>',
        '<div class="card"><h2 id="b">B</h2></div><p>b</p>',
        '<!-- pid:b:0123abcd --><details open><h2 id="b">B</h2></details>',
    ]
    breaks = 0
    for w in wrapped:
        html = '<h2 id="a">A</h2><p>a</p>' + w
        a = read_model(html).sections[0]
        chunks = split_article(html)
        breaks += html[a.start : a.end] != '<h2 id="a">A</h2><p>a</p>' or assemble(chunks) != html
    return _row("a section ending inside the element around the next heading", len(wrapped), breaks)


def _strays(workdir: Path) -> Figure:
    from oo_nb.agent.run import UpdateOptions, begin
    from oo_nb.errors import AgentError
    from oo_nb.format.check import check_path

    page = _demo()
    at = page.index("</article>")
    markups = ["</div>", "<p>a</div>b</p>", "</main>", "<svg><style><h2>x</h2></style></svg>"]
    breaks = 0
    for i, markup in enumerate(markups):
        path = workdir / f"stray-{i}" / "heat-pumps-in-europe.o-o.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page[:at] + markup + page[at:])
        breaks += not any(f.code == "unmodelled-markup" for f in check_path(path))
        breaks += not _refused(AgentError, begin, path, UpdateOptions(force=True, agent="replay"))
    return _row(
        "a stray end tag or unmodelled markup: check silent, or an update started",
        2 * len(markups),
        breaks,
    )


def _headings_without_id() -> Figure:
    from oo_nb.agent.backends.claude_code import proposal_from_copy
    from oo_nb.agent.candidate import build_candidate
    from oo_nb.agent.proposal import validate_proposal
    from oo_nb.format.document import Document
    from tests.agent.test_update_heading_without_id import RUN, TODAY

    page = _demo()
    bare = Document(page.replace('<h2 id="key-details">', "<h2>", 1))
    edit = {"id": "key-details", "title": "Key Details", "html": "<p>New [s1].</p>"}
    cand = build_candidate(
        bare, validate_proposal({"summary": "s", "sections": [edit]}), RUN, today=TODAY
    )
    after = cand.document.article_html
    original = Document(page)
    added = original.with_article(
        original.article_html.replace(
            '<h2 id="references">', '<h2>Outlook</h2><p>x</p>\n<h2 id="references">'
        )
    )
    raw = proposal_from_copy(original, added)
    breaks = [
        [s.id for s in bare.article_model.sections][1] != "key-details",
        cand.sections_added != [] or after.count(">Key Details</h2>") != 1,
        '<h2 id="key-details">' not in after,
        [s["id"] for s in raw["sections"]] != ["outlook"],
    ]
    return _row(
        "a heading without an id: named otherwise than the page, or a section added twice",
        len(breaks),
        sum(breaks),
    )


def _left_open(workdir: Path) -> Figure:
    from oo_nb.agent.run import UpdateOptions, begin
    from oo_nb.errors import AgentError
    from oo_nb.format.check import check_path

    page = _demo()
    at = page.index("</article>")
    markups = [
        '<p>See <a href="https://x.example/">this</p>\n<h2 id="two">Two</h2><p>y</p>',
        "<p><em>x</p><p>y</p>",
        "<ul><li><b>x<li>y</ul>",
        "<p><b><i>x</b>y</i></p>",
    ]
    breaks = 0
    for i, markup in enumerate(markups):
        path = workdir / f"left-open-{i}" / "heat-pumps-in-europe.o-o.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page[:at] + markup + page[at:])
        found = [f for f in check_path(path) if f.code == "unmodelled-markup"]
        breaks += not any("left open" in f.message for f in found)
        breaks += not _refused(AgentError, begin, path, UpdateOptions(force=True, agent="replay"))
    return _row(
        "a formatting element left open across blocks: check silent, or an update started",
        2 * len(markups),
        breaks,
    )
