"""An element the sanitiser takes out of an update's section is a warning naming it, so the run is
never silently clean (an ``<img>`` beacon from elsewhere was dropped with no word and ``--auto``
wrote a version that changed nothing); what the section already held and the agent's copy
carried along is not the update's doing and is not named."""

from __future__ import annotations

import pytest

from oo_nb.errors import AgentError
from tests.support.copy_edits import built, replaced

GRANTS = "blamed uncertainty about grants [s5]."
TRACKER = '<img src="https://track.example/p.gif">'
SEEN = ["https://heating-news.example/2026/11/slow-start-to-the-season"]


def test_an_image_from_elsewhere_dropped_by_the_sanitiser_is_a_warning() -> None:
    beacon = replaced(GRANTS, GRANTS + TRACKER)
    warning = (
        "sections[0] (recent-developments): an image that is not an embedded png/jpeg/gif/webp "
        "removed from its HTML (an article holds only what the sanitiser allows)"
    )
    # the section is left as it was, so nothing changes: the refusal says why
    with pytest.raises(AgentError, match="changes nothing") as err:
        built(beacon, seen=SEEN)
    assert warning in str(err.value)


def test_a_script_and_a_form_are_named_each() -> None:
    from oo_nb.format.sanitize import elements_removed, sanitize_html

    typed = "<p>a</p><script>x()</script><form><p>b</p></form><section><p>c</p></section>"
    assert elements_removed(typed, sanitize_html(typed)) == [
        "<script> with everything in it",
        "<form> with everything in it",
        "the <section> tag (its text is kept)",
    ]


def test_what_the_section_already_held_is_not_the_updates() -> None:
    from oo_nb.format.sanitize import elements_removed, sanitize_html

    held = f"<p>old {TRACKER}</p><section><p>kept</p></section>"
    typed = held + "<p>new</p>"
    assert elements_removed(typed, sanitize_html(typed), held=held) == []
    # one more of the same is named
    typed = held + f"<p>new {TRACKER}</p>"
    assert elements_removed(typed, sanitize_html(typed), held=held) == [
        "an image that is not an embedded png/jpeg/gif/webp"
    ]


def test_allowed_markup_and_a_heading_made_h3_are_no_removal() -> None:
    from oo_nb.format.sanitize import elements_removed, sanitize_html

    typed = '<h2>Sub</h2><p>a <a href="https://x.example/">b</a> <em>c</em></p><table><tr><td>1'
    assert elements_removed(typed, sanitize_html(typed)) == []
