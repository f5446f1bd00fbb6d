"""`--auto` and the article's claims (`agent/claims.py`, through `clean.unclean_reasons`): what a
careful reviewer would not let through unattended is kept for review, one reason naming the
paragraphs or sections; a normal update (a new paragraph citing the page the run read, a moved or
re-wrapped paragraph) is still written. Each edit is made as Claude Code makes it, in the copy."""

from __future__ import annotations

import re
from collections.abc import Callable

from oo_nb.format.document import Document
from tests.support.copy_edits import NEW_URL, auto_reasons, replaced, with_new_source

OVERVIEW_2 = "overview:030632e6"
KD_1, KD_2, KD_3 = "key-details:7c6c448c", "key-details:d3374542", "key-details:7b4f58cc"
RECENT = "recent-developments:b5917858"
GRANTS = "blamed uncertainty about grants [s5]."
NEW_PARAGRAPH = "<p>Sales fell by a fifth in 2026, the association said [s6].</p>\n"


def _new_paragraph(html: str = NEW_PARAGRAPH) -> Callable[[str], str]:
    return replaced('<h2 id="references">', html + '\n<h2 id="references">')


def test_a_normal_update_is_still_written() -> None:
    # a new paragraph citing the page the run read, one edited to cite it too
    assert auto_reasons(with_new_source, _new_paragraph()) == []
    edit = replaced(GRANTS, "blamed uncertainty about grants [s5], which returned in 2026 [s6].")
    assert auto_reasons(with_new_source, edit) == []
    # a paragraph that cited nothing may be revised citing nothing (a summary, a status line)
    assert auto_reasons(replaced("(A demo document:", "(A demo document, revised:")) == []


def test_citations_taken_out_of_kept_paragraphs_are_not_clean() -> None:
    def strip(text: str) -> str:
        head, rest = text.split('<h2 id="references">', 1)
        return re.sub(r"\[s\d+\]", "", head) + '<h2 id="references">' + rest

    assert auto_reasons(strip) == [
        f"citation(s) taken out of paragraph(s) kept: {OVERVIEW_2} (s1, s4, s3); {KD_1} (s2); "
        f"{KD_2} (s1); {KD_3} (s4); {RECENT} (s5)"
    ]


def test_an_edited_claim_citing_only_sources_the_run_did_not_see_is_not_clean() -> None:
    numbers = replaced("three to four units of heat", "ten to twelve units of heat")
    assert auto_reasons(numbers) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{OVERVIEW_2} “A heat pump moves heat from the outside…” (s1, s4)"
    ]
    negated = replaced("cost more to install but run more efficiently", "cost less and run worse")
    assert auto_reasons(negated) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{KD_3} “Air-to-water and air-to-air units make…” (s4)"
    ]
    # the run read both sources the changed words rest on ([s1][s4]): the edit is what they say
    assert auto_reasons(numbers, seen=[IEA, WIKI]) == []
    # one of the two read: which one the new words rest on cannot be told
    assert auto_reasons(numbers, seen=[WIKI]) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{OVERVIEW_2} “A heat pump moves heat from the outside…” (s1)"
    ]


def test_a_citation_re_pointed_to_a_source_the_run_did_not_see_is_not_clean() -> None:
    assert auto_reasons(replaced("[s1][s4]", "[s5]")) == [
        f"citation(s) taken out of paragraph(s) kept: {OVERVIEW_2} (s1, s4)",
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{OVERVIEW_2} “A heat pump moves heat from the outside…” (s5)",
    ]


def test_an_uncited_new_section_is_not_clean() -> None:
    ad = '<h2 id="ads">Sponsored</h2>\n<p>Buy our heat pumps today.</p>\n\n'
    reasons = auto_reasons(_new_paragraph(ad))
    assert reasons == [
        "new paragraph(s) citing no source: ads:043a27d7 “Buy our heat pumps today.”"
    ]


def test_a_section_whose_text_mostly_went_is_not_clean() -> None:
    def dot(text: str) -> str:
        start = text.index('<h2 id="overview">Overview</h2>') + len(
            '<h2 id="overview">Overview</h2>'
        )
        return text[:start] + "\n<p>.</p>\n\n" + text[text.index('<h2 id="key-details">') :]

    assert auto_reasons(dot) == [
        f"cited paragraph(s) removed: {OVERVIEW_2} (s1, s4, s3); leaving s3 cited by nothing",
        "section text mostly removed or replaced: overview (82 words, 0 kept)",
        "new paragraph(s) citing no source: overview:706668f5 “.”",
    ]


def test_a_paragraph_cut_to_a_few_words_is_not_clean() -> None:
    cut = replaced(
        "Running costs depend mostly on the ratio between electricity and gas prices: where "
        "electricity is taxed heavily compared with gas, a heat pump pays for itself more slowly",
        "Running costs vary",
    )
    assert auto_reasons(cut, seen=["https://www.iea.org/energy-system/buildings/heat-pumps"]) == [
        f"paragraph text mostly removed or replaced: {KD_2} (28 words, 2 kept)"
    ]


def test_a_required_sections_heading_renamed_is_not_clean() -> None:
    renamed = replaced('<h2 id="key-details">Key Details</h2>', '<h2 id="key-details">Buy Now</h2>')
    assert auto_reasons(renamed) == [
        "required section heading(s) changed: key-details (“Key Details” → “Buy Now”)"
    ]


def test_moving_or_rewrapping_a_paragraph_is_no_change_of_its_claims() -> None:
    moved = (
        f"<!-- pid:{KD_3} -->\n<p>Air-to-water and air-to-air units make up most installations; "
        "ground-source systems cost more to install but run more efficiently [s4].</p>\n"
    )
    to_recent = replaced(
        '<h2 id="recent-developments">Recent Developments</h2>\n',
        '<h2 id="recent-developments">Recent Developments</h2>\n' + moved,
    )
    assert auto_reasons(replaced(moved, ""), to_recent) == []
    assert (
        auto_reasons(replaced("slow start to the heating", "slow start\n   to the heating")) == []
    )


def test_paragraphs_without_pids_are_paired_by_their_words() -> None:
    from oo_nb.agent.claims import article_reasons

    doc = Document.read("oo_nb/demo/data/documents/heat-pumps-in-europe.o-o.html")
    bare = doc.with_article(re.sub(r"<!-- pid:[^>]*-->\n", "", doc.article_html))
    assert article_reasons(bare, bare, (), ()) == []
    unsourced = bare.with_article(bare.article_html.replace(" [s2]", ""))
    assert article_reasons(bare, unsourced, (), ()) == [
        "citation(s) taken out of paragraph(s) kept: “Sales in Europe grew quickly in 2021 an…” (s2)"
    ]
    edited = bare.with_article(bare.article_html.replace("grew quickly", "fell"))
    assert article_reasons(bare, edited, [NEW_URL], ()) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        "“Sales in Europe fell in 2021 and 2022,…” (s2)"
    ]


def test_the_references_section_holds_no_claims() -> None:
    from oo_nb.agent.claims import article_reasons

    doc = Document.read("oo_nb/demo/data/documents/heat-pumps-in-europe.o-o.html")
    footer = '<p class="doc-footer">Sources checked [s1].</p>\n'
    before = doc.with_article(doc.article_html.replace("</ol>\n", "</ol>\n" + footer))
    after = before.with_article(before.article_html.replace("checked [s1]", "checked again"))
    assert article_reasons(before, after, (), ()) == []


INTRO = (
    "This document follows heat pumps — electric heating that moves heat instead of burning fuel — "
    "across European markets. (A demo document: its research was recorded for the oo_nb "
    "tutorials and is illustrative, not current.)"
)


def test_a_cited_paragraph_removed_is_not_clean() -> None:
    def drop(pid: str) -> Callable[[str], str]:
        def edit(text: str) -> str:
            out, n = re.subn(rf"<!-- pid:{pid} -->\n<p>.*?</p>\n", "", text, count=1, flags=re.S)
            assert n == 1
            return out

        return edit

    # 35 of Key Details' 80 words: the section keeps over half
    assert auto_reasons(drop(KD_1)) == [
        f"cited paragraph(s) removed: {KD_1} (s2); leaving s2 cited by nothing"
    ]
    # the Overview's cited claim gone, its length made up by the uncited intro grown
    grown = replaced(
        "is illustrative, not current.)",
        "is illustrative, not current.) Many households now regret installing one: running costs "
        "are often higher than a gas boiler, the units are noisy, they struggle in cold weather, "
        "and installers and grant schemes have overpromised on savings again and again across "
        "every market we follow here.",
    )
    assert auto_reasons(drop(OVERVIEW_2), grown) == [
        f"cited paragraph(s) removed: {OVERVIEW_2} (s1, s4, s3); leaving s3 cited by nothing",
        "section text mostly removed or replaced: overview (82 words, 39 kept)",
    ]


def test_an_uncited_paragraph_rewritten_in_other_words_is_not_clean() -> None:
    rewrite = replaced(
        INTRO,
        "Heat pumps are dangerous and banned in most of Europe; experts now advise every "
        "household to install a gas boiler instead, and the EU will fine owners from next year.",
    )
    [reason] = auto_reasons(rewrite)
    assert reason.startswith("paragraph text mostly removed or replaced: overview:"), reason
    # a revision keeping most of its words is still free (a summary, a status line)
    assert auto_reasons(replaced("across European markets.", "across Europe's markets.")) == []


AD = "Sponsored: buy our heat pumps today at heatdeals.example, 50% off, call now."
IMAGE = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQ"
    "CgAf7gP9i18U1AAAAABJRU5ErkJggg=="
)


def test_new_uncited_text_outside_a_paragraph_is_not_clean() -> None:
    for html in (
        f"<div>{AD}</div>\n",
        f"<blockquote>{AD}</blockquote>\n",
        f"<h3>{AD}</h3>\n",
        f"<h5>{AD}</h5>\n",
        f"<figure><figcaption>{AD}</figcaption></figure>\n",
        f"{AD}\n\n",
        f"<div><div>{AD}</div></div>\n",
    ):
        reasons = auto_reasons(_new_paragraph(html))
        assert len(reasons) == 1 and reasons[0].startswith("new paragraph(s) citing no source:"), (
            html,
            reasons,
        )
        assert "Sponsored: buy our heat pumps" in reasons[0]
    # the same text citing the page the run read is an update
    cited = AD.replace("now.", "now [s6].")
    for html in (f"<div>{cited}</div>\n", f"{cited}\n\n"):
        assert auto_reasons(with_new_source, _new_paragraph(html)) == [], html
    # ... but not in a heading, where the page links no citation (its SKIP_TEXT_IN)
    [reason] = auto_reasons(with_new_source, _new_paragraph(f"<h3>{cited}</h3>\n"))
    assert reason.startswith("new paragraph(s) citing no source:")


def test_a_new_image_is_not_its_own_source() -> None:
    figure = (
        f'<figure><img src="{IMAGE}" alt="Sales collapse 90% in 2026">'
        "<figcaption>Heat pump sales collapsed 90% in 2026.</figcaption></figure>\n"
    )
    [reason] = auto_reasons(_new_paragraph(figure))
    assert reason.startswith("new paragraph(s) citing no source:")
    [reason] = auto_reasons(_new_paragraph(f'<p><img src="{IMAGE}" alt="Buy now"></p>\n'))
    assert reason.startswith("new paragraph(s) citing no source:")
    # a figure crediting a page the run read is its own source (as ``images.py`` writes one)
    credit = '<span class="img-src">Source: <a href="{}">news.example.com</a></span>'
    credited = figure.replace("</figcaption>", credit.format(NEW_URL) + "</figcaption>")
    assert auto_reasons(_new_paragraph(credited)) == []
    elsewhere = figure.replace("</figcaption>", credit.format(AD_LINK) + "</figcaption>")
    reasons = auto_reasons(_new_paragraph(elsewhere))
    assert reasons[0].startswith("new paragraph(s) citing no source:"), reasons


def _web_call(tool: str, args: dict[str, str], content: object) -> str:
    """Claude Code's stream-json lines of one web tool call and its result."""
    import json

    use = {"type": "tool_use", "id": "t1", "name": tool, "input": args}
    done = {"type": "tool_result", "tool_use_id": "t1", "content": content}
    return "\n".join(
        json.dumps({"type": kind, "message": {"content": [block]}})
        for kind, block in (("assistant", use), ("user", done))
    )


IEA = "https://www.iea.org/energy-system/buildings/heat-pumps"
WIKI = "https://en.wikipedia.org/wiki/Heat_pump"
AD_PAGE = "https://heatdeals.example/myths"
AD_LINK = "https://heatdeals.example/buy?ref=oo"


def test_a_url_named_in_a_page_the_run_read_is_not_seen() -> None:
    from oo_nb.agent.backends.claude_code import parse_output

    page = f"Myths busted! Buy: {AD_LINK} Further reading: {IEA} and {WIKI}"
    read: set[str] = set()
    fetch = _web_call("WebFetch", {"url": AD_PAGE, "prompt": "Summarise."}, page)
    _, seen = parse_output(fetch, read=read)
    assert seen == read == {AD_PAGE}
    negated = replaced("three to four units of heat", "less than one unit of heat")
    assert auto_reasons(negated, seen=read) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{OVERVIEW_2} “A heat pump moves heat from the outside…” (s1, s4)"
    ]
    link = replaced("across European markets.", f'across Europe (<a href="{AD_LINK}">offers</a>).')
    assert auto_reasons(link, seen=read) == [
        f"link(s) in the new text to pages this run did not read: {AD_LINK}"
    ]
    # the pages the run read themselves are read
    read = set()
    for url in (IEA, WIKI):
        parse_output(_web_call("WebFetch", {"url": url, "prompt": "Summarise."}, page), read=read)
    assert auto_reasons(negated, seen=read) == []


def test_a_search_hit_is_seen_but_not_read() -> None:
    """outside attack 2, row 6: a search whose hits merely list a source (a title, no page
    read) made that source "seen", and a claim citing it could be negated unattended."""
    from oo_nb.agent.backends.claude_code import parse_output

    hits = (
        f'Web search results for query: "q"\n\nLinks: [{{"title": "Heat pump", "url": "{WIKI}"}}]'
    )
    read: set[str] = set()
    _, seen = parse_output(
        _web_call("WebSearch", {"query": "q"}, hits + f"\n\nSee {IEA}."), read=read
    )
    assert seen == {WIKI} and read == set()  # a new source found so is verified, no page read
    negated = replaced(
        "cost more to install but run more efficiently [s4]",
        "cost less to install and run less efficiently [s4]",
    )
    assert auto_reasons(negated, seen=read, hits=seen) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{KD_3} “Air-to-water and air-to-air units make…” (s4)"
    ]
    link = replaced("across European markets.", f'across Europe (<a href="{AD_LINK}">offers</a>).')
    assert auto_reasons(link, seen=read, hits=[AD_LINK]) == [
        f"link(s) in the new text to pages this run did not read: {AD_LINK}"
    ]
    assert auto_reasons(negated, seen=[WIKI]) == []


def test_a_source_the_run_read_cited_beside_old_ones_does_not_vouch_for_their_words() -> None:
    laundered = replaced(
        "typically delivers three to four units of heat for each unit of electricity it uses [s1][s4]",
        "typically delivers less than one unit of heat for each unit of electricity it uses "
        "[s1][s4][s6]",
    )
    assert auto_reasons(with_new_source, laundered) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{OVERVIEW_2} “A heat pump moves heat from the outside…” (s1, s4)"
    ]
    # one of the old sources read as well: which one the new words rest on cannot be told
    assert auto_reasons(with_new_source, laundered, seen=[NEW_URL, IEA]) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{OVERVIEW_2} “A heat pump moves heat from the outside…” (s4)"
    ]
    assert auto_reasons(with_new_source, laundered, seen=[NEW_URL, IEA, WIKI]) == []
    # words added beside the old ones, closed by the page read alone, are an update
    added = replaced(GRANTS, "blamed uncertainty about grants [s5], which returned in 2026 [s6].")
    assert auto_reasons(with_new_source, added) == []
    # the same words closed by the old source and the new one together rest on either
    mixed = replaced(GRANTS, "blamed uncertainty about grants, which returned in 2026 [s5][s6].")
    assert auto_reasons(with_new_source, mixed) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{RECENT} “Installers reported a slow start to the…” (s5)"
    ]


SPLIT_AT = " That efficiency puts heat pumps"
MERGED_AT = f"changed their subsidy schemes [s2].</p>\n<!-- pid:{KD_2} -->\n<p>"


def test_a_split_or_merge_keeping_every_sentence_and_its_citations_is_written() -> None:
    """outside attack 2, row 3: with nothing fetched, a cited paragraph split in two at a
    sentence, or two paragraphs merged, each sentence keeping its words and citations, was held
    ("citation(s) taken out", "cited paragraph(s) removed", "saw no page")."""
    split = replaced(SPLIT_AT, "</p>\n<p>That efficiency puts heat pumps")
    merged = replaced(MERGED_AT, "changed their subsidy schemes [s2]. ")
    assert auto_reasons(split, seen=()) == []
    assert auto_reasons(merged, seen=()) == []
    # split mid-sentence: the text reads on in the same order, cut at another place
    assert auto_reasons(replaced(" to cut gas use", "</p>\n<p>to cut gas use"), seen=()) == []


def test_a_split_that_reorders_sentences_is_held() -> None:
    """outside attack 3, R1: a split or a merge never reorders text; split, then the halves'
    order swapped, is a rewrite (sentences were compared as a multiset: written)."""
    swapped = replaced(
        "<p>A heat pump moves heat",
        "<p>That efficiency puts heat pumps at the centre of EU plans to cut gas use in buildings "
        "[s3].</p>\n<p>A heat pump moves heat",
    )
    cut = replaced(SPLIT_AT + " at the centre of EU plans to cut gas use in buildings [s3].", "")
    reasons = auto_reasons(swapped, cut, seen=())
    assert reasons[0] == f"citation(s) taken out of paragraph(s) kept: {OVERVIEW_2} (s1, s4)"


def test_a_split_or_merge_that_changes_a_sentence_is_held() -> None:
    # a word of a cited sentence changed in the split: a copy edit of a claim stays held
    split = replaced(SPLIT_AT, "</p>\n<p>That efficiency puts heat pumps")
    negated = replaced("at the centre of EU plans", "outside EU plans")
    reasons = auto_reasons(split, negated, seen=())
    assert reasons[-1].startswith("new or changed claim(s) resting on source(s)"), reasons
    assert reasons[-1].endswith("“That efficiency puts heat pumps outside…” (s3)"), reasons
    # a citation moved to the other sentence in the merge
    merged = replaced(MERGED_AT, "changed their subsidy schemes. ")
    moved = replaced("pays for itself more slowly [s1].", "pays for itself more slowly [s1][s2].")
    reasons = auto_reasons(merged, moved, seen=())
    assert reasons and reasons[0] == f"cited paragraph(s) removed: {KD_2} (s1)", reasons
    # a one-word copy edit of a cited claim, nothing read: held (one word can negate a claim)
    assert auto_reasons(replaced("depend mostly", "depend largely"), seen=()) == [
        "new or changed claim(s) resting on source(s) of which this run read no page: "
        f"{KD_2} “Running costs depend largely on the rat…” (s1)"
    ]


def test_a_new_paragraph_rests_on_the_citations_closing_its_words() -> None:
    # the old sources' names on a new claim, beside the page read: which one it rests on is unknown
    laundered = (
        "<p>A heat pump delivers less than one unit of heat per unit of power [s1][s4][s6].</p>\n"
    )
    [reason] = auto_reasons(with_new_source, _new_paragraph(laundered))
    assert reason.startswith("new or changed claim(s) resting on source(s)") and reason.endswith(
        "(s1, s4)"
    ), reason
    # a claim closed by the page read alone, beside an old one the run also read
    both = "<p>Sales fell by a fifth in 2026 [s6], after the 2023 fall [s2].</p>\n"
    sales = "https://www.ehpa.org/market-data/"
    assert auto_reasons(with_new_source, _new_paragraph(both), seen=[NEW_URL, sales]) == []
    [reason] = auto_reasons(with_new_source, _new_paragraph(both))
    assert reason.endswith("(s2)"), reason
