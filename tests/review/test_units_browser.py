"""Issue 26: review units are the blocks a browser reads. A comment closed by ``--!>`` ends
there, so the heading after it is a unit; a ``</li>`` inside an attribute ends no entry."""

from __future__ import annotations

from oo_nb.review.refs import entry_lines, parse_refs
from oo_nb.review.units import split_units


def test_a_heading_after_a_dash_dash_bang_comment_is_a_unit() -> None:
    html = '<p>a</p>\n<!-- x --!>\n<h2 id="b">B</h2>\n<p>c</p>\n'
    units, tail = split_units(html)
    assert [(u.tag, u.section) for u in units] == [("p", ""), ("h2", "b"), ("p", "b")]
    assert "".join(u.raw for u in units) + tail == html


def test_an_entry_with_a_closing_li_in_an_attribute_is_one_entry() -> None:
    # attributes with no space between them: browsers read both, the old tag scanner neither
    body = '<ol>\n<li title="</li>"class="x">[s1] <a href="https://a.example/">A</a></li>\n<li>[s2] B</li>\n</ol>'
    refs = parse_refs(body)
    assert refs.ids == ("s1", "s2")
    assert refs.items[0][1] == body[4 : body.index("\n<li>[s2]")]  # the whole first entry
    assert refs.opening + "".join(raw for _, raw in refs.items) + refs.closing == body


def test_an_entry_is_shown_as_the_text_a_reader_sees() -> None:
    """The review's line for a References entry is its text as a browser shows it: not the rest
    of an attribute value holding ">", nor a comment's words."""
    before = parse_refs('<ol>\n<li>[s1] <a href="https://a.example/">A</a></li>\n</ol>')
    after = parse_refs(
        '<ol>\n<li>[s1] <a href="https://a.example/">A</a></li>\n'
        '<!-- added by "x > y" -->\n<li title="a > b">[s2] B &amp; C</li>\n</ol>'
    )
    assert entry_lines(before, after) == ([], ["[s2] B & C"])
