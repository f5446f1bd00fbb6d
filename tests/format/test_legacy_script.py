"""Documents still on the original o-o page script: found, and what it would turn into markup."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.edit.new import NewSpec, create_document
from oo_nb.edit.sync import migrate_early
from oo_nb.format.article_model import Model, read_model
from oo_nb.format.document import Document
from oo_nb.format.legacy_script import (
    ORIGINAL_CITATION,
    article_risks,
    carries_markup,
    contract_risks,
    heading_risks,
    inert_fragment,
    inert_heading_text,
    injection_risks,
    runs_original_script,
)
from oo_nb.format.sanitize import sanitize_html
from oo_nb.skin import speaking
from tests.conftest import CORPUS, DOC_NAMES

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.mark.parametrize("name", DOC_NAMES)
def test_original_documents_are_on_the_original_script(name: str) -> None:
    assert runs_original_script(Document.read(CORPUS / name))


def test_index_pages_and_our_documents_are_not(tmp_path: Path) -> None:
    assert not runs_original_script(Document.read(CORPUS / "index.o-o.html"))
    assert not runs_original_script(create_document(NewSpec("Ours"), tmp_path))


def test_a_migrated_document_is_on_our_script() -> None:
    doc = Document.read(CORPUS / "anthropic-leadership.o-o.html")
    assert doc.layout == "early"
    assert not runs_original_script(migrate_early(doc))


def test_risks_name_each_value_holding_markup() -> None:
    doc = Document.read(CORPUS / "ai-model-landscape.o-o.html")
    assert injection_risks(doc) == []
    doc = doc.edit_block("oo-contract", lambda c: c["identity"].update(scope=HOSTILE))
    heading = '<h2 id="x-risk">Models &lt;img src=x onerror=alert(1)&gt;</h2>\n<p>Text.</p>\n'
    article = doc.span_text(doc.article_span)
    doc = doc.with_article(article + heading)
    risks = injection_risks(doc)
    assert [r.where for r in risks] == ["contract scope", "heading #x-risk"]
    assert all("original page script" in r.describe() for r in risks)


def test_no_risks_reported_once_migrated() -> None:
    doc = Document.read(CORPUS / "anthropic-leadership.o-o.html")
    doc = doc.edit_block("oo-contract", lambda c: c["identity"].update(scope=HOSTILE))
    assert injection_risks(doc) and not injection_risks(migrate_early(doc))


def test_inert_heading_text_keeps_meaning_without_markup() -> None:
    assert inert_heading_text("a < b > c") == "a \u2039 b \u203a c"
    assert "<" not in inert_heading_text(HOSTILE)


# Text the page script hands to the HTML parser: what turns into more than text there.
MARKUP = ["<b>", "a > b", "&lt;img src=x&gt;", "&LT", "&lt", "&#60;", "&#0060", "&#x3C;", "&#X3e;"]
TEXT = ["R&D", "AT&T", "a & b", "&amp;lt;", "&ltimes;", "&copy; 2026", "\u2039b\u203a", "plain"]


@pytest.mark.parametrize("text", MARKUP)
def test_markup_and_references_that_decode_to_it_carry_markup(text: str) -> None:
    assert carries_markup(text)
    inert = inert_heading_text(text)
    assert not carries_markup(inert)
    assert len(inert.replace("\u2060", "")) == len(text)  # one for one: nothing is dropped


@pytest.mark.parametrize("text", TEXT)
def test_plain_text_and_other_references_do_not(text: str) -> None:
    """'&amp;lt;' decodes once to the text '&lt;' (the page script parses once); '&ltimes;' is ⋉."""
    assert not carries_markup(text)
    assert inert_heading_text(text) == text


def _root(fragment: str) -> Model:
    return read_model(fragment)


SINK_FRAGMENT = (
    "<h3>&lt;img src=x onerror=alert(1)&gt;</h3>"
    "<h4>Q &#60;b&#62; <em>&lt;i&gt;</em> R&amp;D</h4>"
    "<h5>&amp;lt;script&amp;gt;</h5><h6>&lt;svg onload=alert(6)&gt;</h6>"
    "<h2>&lt;a href=//x.example&gt;</h2>"
    '<p>See <a href="https://a.example/[s1]" title="[s2]<img src=x onerror=alert(2)>">x</a>'
    ' and <abbr title="[s3] [s12]">y</abbr> [s1]</p>'
)


def test_inert_fragment_leaves_no_heading_or_attribute_for_the_script() -> None:
    clean = sanitize_html(SINK_FRAGMENT)
    assert article_risks(_root(clean))  # as sanitised: the TOC and citation pass would bite
    inert, changed = inert_fragment(clean)
    root = _root(inert)
    assert article_risks(root) == []
    for level in range(1, 7):  # every heading level, not only what the TOC reads today
        for h in root.elements(f"h{level}"):
            assert not carries_markup(h.text), h.text
    assert "%5Bs1%5D" in inert and "[\u2060s2]" in inert and "[\u2060s12]" in inert
    assert "\u2039img src=x onerror=alert(1)\u203a" in inert  # still readable
    assert "R&amp;D" in inert and "[s1]</p>" in inert  # text and real citations untouched
    assert changed == ["'<', '>' or '&' in 5 heading(s)", "a citation mark [sN] in 3 attribute(s)"]
    assert inert_fragment(inert) == (inert, [])  # idempotent


def test_inert_fragment_keeps_a_clean_fragment_byte_for_byte() -> None:
    clean = sanitize_html(
        '<!-- pid:x:0a0b0c0d -->\n<h3 id="a">A &amp; B &nbsp;</h3>\n<p title="t">[s1] &lt;ok&gt;</p>'
    )
    assert inert_fragment(clean) == (clean, [])


def test_article_risks_follow_the_table_of_contents_and_the_citation_pass() -> None:
    """h2/h3 anywhere in the article (the TOC's selector), their ids; attributes in paragraphs."""
    root = _root(
        '<h2 id="a">&lt;b&gt;</h2><div><h3 id="b">x &#60;i</h3></div>'
        "<table><tr><td><h3>in a cell &lt;u&gt;</h3></td></tr></table>"
        "<h4>&lt;not read by the TOC&gt;</h4>"
        "<h3 id='c\" onfocus=\"alert(1)'>fine</h3>"
        '<p><span title="[s4]">z</span></p><figure><img alt="[s5]" src="x"></figure>'
    )
    found = [(r.where, r.text) for r in article_risks(root)]
    assert found == [
        ("heading #a", "<b>"),
        ("heading #b", "x <i"),
        ("heading #", "in a cell <u>"),
        ("heading id", 'c" onfocus="alert(1)'),
        ("attribute title= in a paragraph", "[s4]"),
    ]


def test_contract_risks_read_values_as_the_page_script_does() -> None:
    """'' + value in JavaScript: a list joins; falsy values and non-lists are skipped."""
    raw = {
        "identity": {"subject": ["<b>", "x"], "scope": "", "audience": 0, "tone": {"a": "<"}},
        "research": {
            "intents": ["fine", ["&lt;i&gt;"], None, 3],
            "required_sections": "<not a list>",
        },
        "budget": {"max_cost_usd": "<b>"},  # toFixed of a string throws: nothing shown
    }
    found = [(r.where, r.text) for r in contract_risks(raw)]
    assert found == [("contract subject", "<b>,x"), ("contract intents[1]", "&lt;i&gt;")]
    raw["research"]["required_sections"] = ["References", "A > B"]
    assert [r.where for r in contract_risks(raw)][-1] == "contract required_sections[1]"


def test_oo_check_warns_about_values_the_original_script_would_inject(tmp_path: Path) -> None:
    from oo_nb.format.check import check_path

    doc = Document.read(CORPUS / "ai-model-landscape.o-o.html")
    path = tmp_path / "a.o-o.html"
    path.write_bytes(
        doc.edit_block("oo-contract", lambda c: c["identity"].update(tone=HOSTILE)).to_bytes()
    )
    found = [f for f in check_path(path) if f.code == "html-injection"]
    assert len(found) == 1 and found[0].severity == "warning"
    assert "contract tone" in found[0].message and "migrate=True" in found[0].message
    path.write_bytes(migrate_early(Document.read(path)).to_bytes())
    assert not [f for f in check_path(path) if f.code == "html-injection"]


def test_a_contract_edit_is_refused_when_the_value_would_be_injected(tmp_path: Path) -> None:
    from oo_nb.edit.contract import Edit, apply_edits
    from oo_nb.errors import ValidationError

    path = tmp_path / "a.o-o.html"
    path.write_bytes((CORPUS / "ai-model-landscape.o-o.html").read_bytes())
    before = path.read_bytes()
    with speaking("oo"), pytest.raises(ValidationError) as refused:  # (as `oo contract` says)
        apply_edits(path, [Edit("set", "scope", HOSTILE)])
    message = str(refused.value)
    assert "key 'scope'" in message and "original o-o page script" in message
    assert f"oo sync {tmp_path} --migrate" in message and "\n" not in message
    assert path.read_bytes() == before  # nothing written
    quiet = apply_edits(path, [Edit("set", "tone", "plain, R&D")])  # '&' alone is text
    assert quiet.written and not any("original page script" in n for n in quiet.notes)


def _risks_by_walking_each_paragraph(model: Model) -> list[tuple[str, str]]:
    """The rule as written down: every h2/h3 and every <p> in document order, each paragraph's
    inner elements walked for attributes holding [sN] (the reading article_risks replaced)."""
    out: list[tuple[str, str]] = []
    names = ("h2", "h3", "p")
    for node in sorted((n for name in names for n in model.elements(name)), key=lambda n: n.start):
        if node.name != "p":
            out += [(r.where, r.text) for r in heading_risks(node.attr("id") or "", node.text)]
            continue
        out += [
            ("attribute " + a.name + "= in a paragraph", a.value)
            for inner in node.iter()
            if inner is not node and inner.attrs
            for a in inner.attrs
            if ORIGINAL_CITATION.search(a.value)
        ]
    return out


def test_article_risks_read_attributes_as_walking_each_paragraph_would() -> None:
    """A marked attribute is reported once under every paragraph around it (a <p> inside a
    <button> inside a <p> nests), in document order among the headings, each attribute of an
    element in its order; one in a template, outside any paragraph or only decoded to a mark
    in an article with no "[s" written is not."""
    model = read_model(
        '<h2 id="a">A &gt; B</h2><h3 id="q\'&quot;">Q</h3><h3><i>&lt;</i><!-- > --></h3>'
        '<h2 id="a">A</h2><p>x <a title="[s1]" data-x="[s2] and [s3]">y</a>'
        '<button><p>in <b class="[s4]">z</b> [s9]</p></button> <i lang="s5">w</i></p>'
        '<h3 id="b">B</h3><p><template><u title="[s6]">t</u></template>'
        '<em title="&#91;s7]">u</em></p><div title="[s8]"><span title="[s8]">v</span></div>'
    )
    found = [(r.where, r.text) for r in article_risks(model)]
    assert found == _risks_by_walking_each_paragraph(model)
    assert [text for _, text in found] == [
        "A > B", "q'\"", "<", "[s1]", "[s2] and [s3]", "[s4]", "[s4]", "[s7]"
    ]  # fmt: skip
    unmarked = read_model('<p><em title="&#91;s7]">u</em></p>')
    assert article_risks(unmarked) == []


def test_an_upper_case_mark_in_an_attribute_is_no_risk_under_the_original_script() -> None:
    """The original script's citation pass is /\\[s(\\d+)\\]/g: it never touches "[S3]", so the
    attribute keeps its text and no risk is reported (oo_nb's own page links it: not a sink)."""
    fragment = '<p><span title="see [S3]">a</span></p>'
    assert inert_fragment(fragment) == (fragment, [])
    assert ORIGINAL_CITATION.search("[S3]") is None
