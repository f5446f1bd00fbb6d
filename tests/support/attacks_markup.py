"""Reliability part 8 (attacks, round four): markup that made oo_nb read an article otherwise than
Chromium does (issue 26, attacks 3-6 and 8). Each row counts the breaks found; Chromium's side
of each is proved in tests/browser/test_article_model_dom.py.

- deep nesting: ``oo check`` and the readers on articles nested 1,000 and 30,000 deep; a break
  is a crash, an error finding or a section or reference lost;
- an update of a 30,000-deep document through the loopback mock; a break is a traceback, or a
  proposal neither written nor kept;
- a ``</article>`` hidden in an attribute, raw text, a template, a table cell, and a last comment
  ended by ``--!>``; a break is an article cut short (a section lost) or unreadable;
- an element of the article with a block's id; a break is the block read, or check silent;
- foreign-content raw text, foster-parented table content (attack 7): a break is ``oo check``
  silent; a heading in a heading: a break is one section where Chromium shows two;
- a References list with a nested or second list; a break is an entry numbered otherwise than
  the page does, or check silent about the unnumbered one;
- markup in the article that runs script (attack s34 #7, ``tests/support/script_markup``): a
  break is ``oo check`` silent on a case that can run script, or flagging one that cannot.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from tests.support.figures import Figure

__all__ = ["attacks"]

PART = "8 attack"


def _row(measure: str, trials: int, breaks: int) -> Figure:
    return Figure(PART, measure, trials, breaks, "0", breaks == 0)


def attacks(workdir: Path) -> list[Figure]:
    workdir.mkdir(parents=True, exist_ok=True)
    return [
        _deep(workdir),
        _deep_update(workdir),
        _hidden_ends(),
        _shadowed_blocks(workdir),
        _reference_lists(workdir),
        _unmodelled(workdir),
        _article_script(workdir),
    ]


def _deep_article(nest: str, depth: int) -> str:
    from tests.format.test_article_end import REFS

    open_, close = nest.split("{}")
    return (
        '<h2 id="overview">Overview</h2>\n'
        + open_ * depth
        + 'x <h2 id="deep">Deep</h2> [s1]'
        + close * depth
        + "\n"
        + REFS
    )


def _deep(workdir: Path) -> Figure:
    from oo_nb.format.article import Article
    from oo_nb.format.article_model import read_model
    from oo_nb.format.check import check_path
    from oo_nb.format.document import Document
    from tests.format.test_article_end import _page

    trials = breaks = 0
    for nest in ("<div>{}</div>", "<ul><li>{}</li></ul>", "<span>{}</span>"):
        for depth in (1000, 30000):
            trials += 1
            path = workdir / f"deep-{depth}-{nest[1:4]}.o-o.html"
            path.write_text(_page(_deep_article(nest, depth)))
            try:
                html = Document.read(path).article_html
                sections = [s.id for s in read_model(html).sections]
                errors = [f for f in check_path(path) if f.severity == "error"]
                lost = len(Article.parse(html).references) != 2 or bool(errors)
            except RecursionError:
                breaks += 1
                continue
            breaks += sections != ["overview", "deep", "references"] or lost
    return _row(
        "article 1,000/30,000 deep: crash, error or part lost (oo check, readers)", trials, breaks
    )


def _deep_update(workdir: Path) -> Figure:
    """1,000 divs and 900 lists deep, and 30,000: a proposal each (or, failing after the paid
    request, the proposal kept and the cost said)."""
    from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
    from oo_nb.errors import OOError
    from tests.format.test_article_end import _page
    from tests.support.mock_api import MockAPI
    from tests.support.mock_scenarios import research_scenario

    cases = [("<div>{}</div>", 1000), ("<ul><li>{}</li></ul>", 900), ("<div>{}</div>", 30000)]
    breaks = 0
    for i, (nest, depth) in enumerate(cases):
        path = workdir / f"deep-update-{i}" / "deep.o-o.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_page(_deep_article(nest, depth)))
        key = "sk-ant-test-ATTACKMARKUP"
        mock = MockAPI(api_key=key)
        mock.responder = research_scenario(base_url=_base_url_of(mock))
        try:
            with mock:
                opts = UpdateOptions(
                    force=True,
                    agent="anthropic",
                    base_url=mock.base_url,
                    api_key=key,
                    today=date(2026, 3, 1),
                    download_images=False,
                )
                result = prepare_update(path, opts)
                saved = result.status == "proposed" and write_result(result, yes=False).pending
                breaks += saved is None or saved is False
        except OOError as exc:  # after the paid request it must say where the proposal is
            message = exc.message
            paid = bool(mock.message_requests)
            breaks += ("kept in" not in message or "cost so far $" not in message) if paid else 0
        except RecursionError:
            breaks += 1
    return _row(
        "update 1,000/900/30,000 deep: traceback, or paid proposal lost", len(cases), breaks
    )


def _base_url_of(mock: Any) -> Callable[[], str]:
    return lambda: str(mock.base_url)


def _hidden_ends() -> Figure:
    from oo_nb.errors import OOError
    from oo_nb.format.article_model import read_model
    from oo_nb.format.document import Document
    from tests.format.test_article_end import HIDDEN_ENDS, REFS, _page

    cases = [*HIDDEN_ENDS.values(), "<!-- a --!>"]
    breaks = 0
    for hide in cases:
        article = f'<h2 id="one">One</h2>\n<p>x</p>\n{hide}\n<h2 id="two">Two</h2>\n{REFS}'
        try:
            html = Document(_page(article)).article_html
        except OOError:
            breaks += 1
            continue
        breaks += [s.id for s in read_model(html).sections] != ["one", "two", "references"]
    return _row(
        "</article> in attribute/raw text/template/cell, --!> comment: article cut",
        len(cases),
        breaks,
    )


def _shadowed_blocks(workdir: Path) -> Figure:
    from oo_nb.errors import OOError
    from oo_nb.format.check import check_path
    from oo_nb.format.document import Document
    from tests.format.test_shadowed_blocks import SHADOWS, shadowed_page

    breaks = 0
    for i, element in enumerate(SHADOWS.values()):
        page = shadowed_page(element)
        block = "oo-contract" if "oo-contract" in element else "oo-manifest"
        try:
            Document(page).block_json(block)
            breaks += 1  # read although the page reads another element
            continue
        except OOError:
            pass
        path = workdir / f"shadow-{i}.o-o.html"
        path.write_text(page)
        breaks += not any(
            f.severity == "error" and block[3:] in f.message for f in check_path(path)
        )
    return _row(
        "a block's id on an article element: block read, or check silent", len(SHADOWS), breaks
    )


def _reference_lists(workdir: Path) -> Figure:
    from oo_nb.format.article import Article
    from oo_nb.format.check import check_path
    from tests.format.test_article_end import _page
    from tests.format.test_reference_numbering import LISTS, _article

    breaks = 0
    for i, refs in enumerate(LISTS.values()):
        html = _article(refs)
        urls = [r.url for r in Article.parse(html).references]
        path = workdir / f"refs-{i}.o-o.html"
        path.write_text(_page(html))
        flagged = any(f.code == "unlinked-reference" for f in check_path(path))
        breaks += urls != ["https://a.example/", "https://b.example/"] or not flagged
    return _row(
        "nested/second References list: numbering differs, or check silent", len(LISTS), breaks
    )


def _unmodelled(workdir: Path) -> Figure:
    from oo_nb.format.article import Article
    from oo_nb.format.article_model import read_model
    from oo_nb.format.check import check_path
    from tests.format.test_article_end import _page
    from tests.format.test_foreign_markup import REFUSED

    breaks = 0
    for i, markup in enumerate(REFUSED.values()):
        path = workdir / f"unmodelled-{i}.o-o.html"
        path.write_text(_page('<h2 id="one">One</h2>\n' + markup + "\n"))
        breaks += not any(f.code == "unmodelled-markup" for f in check_path(path))
    html = '<h2 id="one">One <h2 id="inner">Inner</h2></h2><p>y</p>'
    breaks += len(read_model(html).sections) != 2 or len(Article.parse(html).sections) != 2
    return _row(
        "svg/math raw text, foster parenting unflagged; heading in heading not 2 sections",
        len(REFUSED) + 1,
        breaks,
    )


def _article_script(workdir: Path) -> Figure:
    from oo_nb.format.check import check_path
    from tests.format.test_article_script import with_markup
    from tests.support.script_markup import SCRIPT_MARKUP

    folder = workdir / "article-script"
    folder.mkdir(parents=True, exist_ok=True)
    breaks = 0
    for i, case in enumerate(SCRIPT_MARKUP.values()):
        path, _ = with_markup(folder, case.html, f"case-{i}")
        reported = any(f.code == "article-script" for f in check_path(path))
        breaks += reported is not case.flagged
    return _row("article markup that runs script not reported by check", len(SCRIPT_MARKUP), breaks)
