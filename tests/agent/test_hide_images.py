"""``hide_images``: a Claude Code section's figures the document already holds go back to the
``oo-image:N`` placeholders the model saw; ``restore_images`` puts the originals back. Both read
the HTML as a browser does: only an ``<img>`` element's ``src`` changes (not the text "<img" in
an attribute, a comment or raw text, not a ``data-src``), and every other byte stays."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from oo_nb.agent.context import hide_images, restore_images

DATA = "data:image/png;base64,AAAA"
REFS = {"oo-image:1": DATA, "oo-image:2": "data:image/png;base64,BBBB"}

CASES = {
    "figure with a caption": (
        f'<figure><img src="{DATA}" alt="a"><figcaption>Chart</figcaption></figure>',
        '<figure><img src="oo-image:1" alt="a"><figcaption>Chart</figcaption></figure>',
    ),
    "figure with an image and text naming it": (
        f'<figure><img src="{DATA}"><figcaption>was src="{DATA}"</figcaption></figure>',
        f'<figure><img src="oo-image:1"><figcaption>was src="{DATA}"</figcaption></figure>',
    ),
    "two images, single quotes": (
        f"<p><img src='{DATA}'> and <img alt=b src='data:image/png;base64,BBBB'></p>",
        "<p><img src='oo-image:1'> and <img alt=b src='oo-image:2'></p>",
    ),
    "upper case tag and attribute": (
        f'<p><IMG SRC="{DATA}"></p>',
        '<p><IMG SRC="oo-image:1"></p>',
    ),
    "unquoted value": (f"<p><img src={DATA}></p>", '<p><img src="oo-image:1"></p>'),
    "a character reference in the value": (
        '<p><img src="data:image/png;base64,AA&#65;A"></p>',
        '<p><img src="oo-image:1"></p>',
    ),
    "in an attribute value": (f"<p title='<img src=\"{DATA}\">'>t</p>", None),
    "in a comment": (f'<!-- <img src="{DATA}"> --><p>t</p>', None),
    "in a script": (f"<script>let s = '<img src=\"{DATA}\">'</script><p>t</p>", None),
    "in a textarea": (f'<textarea><img src="{DATA}"></textarea>', None),
    "a data-src": (f'<p><img data-src="{DATA}" src="x.png"></p>', None),
    "a repeated src (a browser keeps the first)": (
        f'<p><img src="x.png" src="{DATA}"></p>',
        None,
    ),
    "an image the document did not hold": ('<p><img src="data:image/png;base64,CCCC"></p>', None),
}


@pytest.mark.parametrize("html, hidden", list(CASES.values()), ids=list(CASES))
def test_only_an_img_elements_src_is_hidden_and_every_other_byte_stays(
    html: str, hidden: str | None
) -> None:
    assert hide_images(html, REFS) == (html if hidden is None else hidden)


def test_nothing_to_hide_gives_the_html_as_it_was() -> None:
    html = f'<p><img src="{DATA}"></p>'
    assert hide_images(html, {}) == html


@dataclass(frozen=True)
class _Section:
    html: str


@dataclass(frozen=True)
class _Proposal:
    sections: tuple[_Section, ...]


URL = "https://example.com/chart.png?w=1&h=2"
RESTORED = {
    "quoted": ('<p><img src="oo-image:1" alt=a></p>', f'<p><img src="{DATA}" alt=a></p>'),
    "upper case, single quotes": ("<p><IMG SRC='oo-image:1'></p>", f"<p><IMG SRC='{DATA}'></p>"),
    "unquoted": ("<p><img src=oo-image:1></p>", f'<p><img src="{DATA}"></p>'),
    "a URL's & written as the attribute reads it": (
        '<p><img src="oo-image:3"></p>',
        '<p><img src="https://example.com/chart.png?w=1&amp;h=2"></p>',
    ),
    "in an attribute value": ("<p title='<img src=\"oo-image:1\">'>t</p>", None),
    "in a comment": ('<!-- <img src="oo-image:1"> --><p>t</p>', None),
    "a data-src": ('<p><img data-src="oo-image:1" src="x.png"></p>', None),
    "an unknown placeholder": ('<p><img src="oo-image:9"></p>', None),
}


@pytest.mark.parametrize("html, restored", list(RESTORED.values()), ids=list(RESTORED))
def test_restore_puts_back_only_an_img_elements_placeholder(
    html: str, restored: str | None
) -> None:
    proposal = _Proposal((_Section(html),))
    out = restore_images(proposal, {**REFS, "oo-image:3": URL})
    assert out.sections[0].html == (html if restored is None else restored)


HIDDEN = {name: hidden for name, (_, hidden) in CASES.items() if hidden is not None}


@pytest.mark.parametrize("hidden", list(HIDDEN.values()), ids=list(HIDDEN))
def test_every_hidden_image_is_restored(hidden: str) -> None:
    back = restore_images(_Proposal((_Section(hidden),)), REFS).sections[0].html
    assert "oo-image:" not in back
    assert hide_images(back, REFS) == hidden  # the same images, hidden the same way again
