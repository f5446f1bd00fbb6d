"""Where exactly ``with_policy_bootstrap`` puts the policy script, on hand-edited heads: anything
that loads above the page's own policy meta (a stylesheet, an image, a frame, an object, an
embed) makes the script go first in the head, once, whatever sync runs next. Plausible bugs
these catch: the script placed on the meta's line after a stylesheet or image (so the load
happens without the policy, and one more script per sync), or img/iframe/object/embed not
counted as loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.edit.page_policy import has_policy_bootstrap, with_policy_bootstrap
from oo_nb.format.document import Document
from oo_nb.format.template.render import CSP, CSP_BOOTSTRAP

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
TITLE = "<title>AGI Declared</title>\n"
POLICY_META = (
    "<meta content=\"default-src 'none'; style-src 'unsafe-inline'; "
    'script-src \'unsafe-inline\'" http-equiv="Content-Security-Policy"/>'
)
OWN_META = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'

LOADS_ABOVE_THE_META = [
    '<link rel="stylesheet" href="https://cdn.example/a.css">',
    '<img src="https://img.example/a.png" alt="">',
    '<iframe src="https://frame.example/"></iframe>',
    '<object data="https://obj.example/a.swf"></object>',
    '<embed src="https://obj.example/a.swf">',
    '<script src="https://js.example/a.js"></script>',
    "<style>body{background:url(https://img.example/b.png)}</style>",
]


def _page(edit: str = "", *, before_title: str = "") -> str:
    text = (CORPUS / "agi-declared.o-o.html").read_text()
    assert TITLE in text and POLICY_META in text
    return text.replace(TITLE, before_title + TITLE + edit, 1)


def _assert_synced_once(doc: Document) -> None:
    assert doc.text.count(CSP_BOOTSTRAP) == 1
    assert has_policy_bootstrap(doc)
    assert with_policy_bootstrap(doc) is doc  # the next sync adds nothing


@pytest.mark.parametrize("load", LOADS_ABOVE_THE_META, ids=lambda s: s[1:7])
def test_a_load_above_the_policy_meta_puts_the_script_first_in_head(load: str) -> None:
    before = Document(_page(load + "\n"))
    assert not has_policy_bootstrap(before)
    doc = with_policy_bootstrap(before)
    # first in the head: right after "<head>\n", above <meta charset> and the load
    assert "<head>\n" + CSP_BOOTSTRAP + "\n<meta charset" in doc.text
    assert doc.text.index(CSP_BOOTSTRAP) < doc.text.index(load)
    assert OWN_META not in doc.text  # the page's own policy meta stays the one
    _assert_synced_once(doc)


@pytest.mark.parametrize("load", LOADS_ABOVE_THE_META, ids=lambda s: s[1:7])
def test_a_script_after_a_load_is_not_the_policy_bootstrap(load: str) -> None:
    text = _page(load + "\n" + CSP_BOOTSTRAP + "\n")
    doc = Document(text)
    assert not has_policy_bootstrap(doc)
    synced = with_policy_bootstrap(doc)
    assert synced.text.index(CSP_BOOTSTRAP) < synced.text.index(load)


def test_nothing_above_the_meta_puts_the_script_on_the_line_before_it() -> None:
    doc = with_policy_bootstrap(Document(_page("<!-- a note -->\n")))
    assert "<!-- a note -->\n" in doc.text  # a comment above shifts no position
    assert (
        CSP_BOOTSTRAP + '\n<meta content="width=device-width' not in doc.text
    )  # not first in the head: on the policy meta's own line
    i = doc.text.index(CSP_BOOTSTRAP)
    assert doc.text[i + len(CSP_BOOTSTRAP) :].startswith("\n" + POLICY_META)
    _assert_synced_once(doc)


def test_a_head_sharing_its_line_gets_the_script_on_a_line_of_its_own() -> None:
    text = _page('<img src="https://img.example/a.png">\n').replace(
        "<head>\n<meta charset", "<head><meta charset", 1
    )
    doc = with_policy_bootstrap(Document(text))
    assert "<head>\n" + CSP_BOOTSTRAP + "\n<meta charset" in doc.text
    _assert_synced_once(doc)


def test_crlf_head_gets_the_script_after_its_line_end() -> None:
    text = _page('<img src="https://img.example/a.png">\n').replace("\n", "\r\n")
    doc = with_policy_bootstrap(Document(text))
    assert "<head>\r\n" + CSP_BOOTSTRAP + "\r\n<meta charset" in doc.text
    assert has_policy_bootstrap(doc)


def test_a_policy_meta_only_in_the_body_is_not_the_page_policy() -> None:
    """A policy meta below the head is no place for the script: the page gets its own meta and
    the script first in the head."""
    text = _page().replace(POLICY_META + "\n", "", 1)
    text = text.replace("<body>\n", "<body>\n" + POLICY_META + "\n", 1)
    doc = with_policy_bootstrap(Document(text))
    assert "<head>\n" + CSP_BOOTSTRAP + "\n" + OWN_META + "<meta charset" in doc.text
    _assert_synced_once(doc)


def test_a_page_without_a_head_tag_gets_the_script_before_its_first_load() -> None:
    """``<head>`` is optional in HTML: then the script goes right before the first load."""
    load = '<img src="https://img.example/a.png">'
    doc = with_policy_bootstrap(Document(_page(load + "\n").replace("<head>\n", "", 1)))
    assert TITLE + CSP_BOOTSTRAP + "\n" + load in doc.text
    _assert_synced_once(doc)


NO_ARTICLE = ('id="article"', 'id="essay"')
NO_HEAD_END = ("</head>", "")


@pytest.mark.parametrize(
    "edits",
    [[NO_ARTICLE], [NO_HEAD_END], [NO_HEAD_END, NO_ARTICLE]],
    ids=["no-article", "no-head-end", "neither"],  # the head then ends at </head>, the article,
)  # the page's end
def test_a_page_without_an_article_or_a_head_end_gets_the_script_before_its_meta(
    edits: list[tuple[str, str]],
) -> None:
    text = _page()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    before = Document(text)
    assert not has_policy_bootstrap(before)
    doc = with_policy_bootstrap(before)
    assert CSP_BOOTSTRAP + "\n" + POLICY_META in doc.text  # the line before the page's own meta
    _assert_synced_once(doc)


# Heads broken by hand beyond what o-o or oo_nb write: a policy meta, a </head> or a <head> tag
# in the body. Where the head ends decides where the script can go; nothing past the article is
# the head (these kill the page_policy mutants docs/development.md once left untested).
def _body_gets(markup: str, text: str) -> str:
    at = text.index("</article>") + len("</article>")
    return text[:at] + "\n" + markup + "\n" + text[at:]


def test_without_a_head_end_a_policy_meta_after_the_article_is_not_the_pages() -> None:
    text = _page().replace("</head>", "", 1).replace(POLICY_META + "\n", "", 1)
    doc = with_policy_bootstrap(Document(_body_gets(POLICY_META, text)))
    script = doc.text.index(CSP_BOOTSTRAP)
    assert script < doc.text.index('<article id="article"')
    assert "<head>\n" + CSP_BOOTSTRAP + "\n" + OWN_META in doc.text
    _assert_synced_once(doc)


def test_a_head_end_after_the_article_does_not_stretch_the_head() -> None:
    text = _page().replace("</head>", "", 1).replace(POLICY_META + "\n", "", 1)
    doc = with_policy_bootstrap(Document(_body_gets(POLICY_META + "\n</head>", text)))
    assert doc.text.index(CSP_BOOTSTRAP) < doc.text.index('<article id="article"')
    assert "<head>\n" + CSP_BOOTSTRAP + "\n" + OWN_META in doc.text


def test_a_head_tag_and_a_load_past_the_heads_end_are_not_where_the_script_goes() -> None:
    """With no ``<head>``, the script goes before the head's first load; a ``<head>`` tag or a
    load in the body is not looked at."""
    text = _page().replace("<head>\n", "", 1).replace(POLICY_META + "\n", "", 1)
    text = _body_gets('<head><img src="https://img.example/a.png">', text)
    doc = with_policy_bootstrap(Document(text))
    script = doc.text.index(CSP_BOOTSTRAP)
    assert script < doc.text.index("<style") < doc.text.index("</head>")
    assert "<head>" + CSP_BOOTSTRAP not in doc.text and "<head>\n" + CSP_BOOTSTRAP not in doc.text
    _assert_synced_once(doc)


def test_with_no_head_tag_and_nothing_loading_in_the_head_the_script_ends_the_head() -> None:
    """A load in the body is not the head's first load: with no ``<head>`` tag and nothing
    loading in the head, the script goes where the head ends."""
    text = _page().replace("<head>\n", "", 1).replace(POLICY_META + "\n", "", 1)
    style = text[text.index("<style>") : text.index("</style>") + len("</style>\n")]
    text = _body_gets('<img src="https://img.example/a.png">', text.replace(style, "", 1))
    doc = with_policy_bootstrap(Document(text))
    script = doc.text.index(CSP_BOOTSTRAP)
    assert script < doc.text.index("</head>") < doc.text.index('<article id="article"')
    assert doc.text.index(CSP_BOOTSTRAP + "\n" + OWN_META) == script
