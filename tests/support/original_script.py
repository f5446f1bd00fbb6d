"""The original o-o page script's behaviour, for pages built from the corpus extracts.

The corpus keeps the original documents' data but replaces their browser script with a stand-in
(fixtures/corpus/README.md). A test that must show what the ORIGINAL script does with a page needs
its behaviour back: ``ORIGINAL_PAGE_SCRIPT`` is written for these tests from the sink list in
``oo_nb/format/legacy_script.py`` (not a copy of the original code). It does what the original does
with document text, the same way: the table of contents from every ``#article h2, #article h3``
(``innerHTML`` of ``id`` and ``textContent``), the citation pass over every paragraph's
``innerHTML``, and, on a click of the version badge, the contract panel's ``innerHTML`` from the
identity values, intents and required sections. Manifest values go to ``textContent`` and pid
comments to ``data-pid``, as in the original; the theme button and the index search (no document
text) are left out.
"""

from __future__ import annotations

import html as html_lib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.payloads import BEACON_HOST

__all__ = [
    "ACTIONS",
    "ORIGINAL_PAGE_SCRIPT",
    "SHOWN_CONTRACT_EDITS",
    "STAND_IN",
    "entity_forms",
    "sink_proposal",
    "with_original_script",
]

# What the corpus extracts hold instead of the original script body.
STAND_IN = "/* script omitted from this data-only extract */"

ORIGINAL_PAGE_SCRIPT = r"""
/* test stand-in reproducing the original o-o page script's HTML sinks */
(function () {
  var doc = document;
  var manifest = JSON.parse(doc.getElementById('oo-manifest').textContent);
  doc.getElementById('doc-title').textContent = manifest.title || 'Living Article';
  doc.getElementById('doc-asof').textContent = manifest.as_of || '\u2014';
  doc.getElementById('doc-version').textContent = manifest.version || '0';

  var article = doc.getElementById('article');
  var comments = [];
  var walker = doc.createTreeWalker(article, NodeFilter.SHOW_COMMENT);
  while (walker.nextNode()) comments.push(walker.currentNode);
  comments.forEach(function (c) {
    var pid = (c.nodeValue || '').trim().match(/^pid:(\S+)$/);
    if (!pid) return;
    if (c.nextElementSibling) c.nextElementSibling.setAttribute('data-pid', pid[1]);
    c.parentNode.removeChild(c);
  });

  // sink 1: the table of contents
  var entries = [];
  doc.querySelectorAll('#article h2, #article h3').forEach(function (h) {
    var level = h.tagName === 'H3' ? ' class="toc-h3"' : '';
    entries.push('<a href="#' + h.id + '"' + level + '>' + h.textContent + '</a>');
  });
  doc.getElementById('toc').innerHTML = '<strong>Contents</strong><br>' + entries.join('');

  // sink 2: citation links, re-parsing every paragraph
  if (doc.getElementById('references')) {
    article.querySelectorAll('p').forEach(function (p) {
      p.innerHTML = p.innerHTML.replace(/\[s(\d+)\]/g, function (_, n) {
        return '<a href="#s' + n + '" class="cite">[s' + n + ']</a>';
      });
    });
  }

  // sink 3: the contract panel
  var badge = doc.querySelector('.version-badge');
  var panel = doc.getElementById('contract-panel');
  badge.addEventListener('click', function () {
    if (panel.classList.toggle('open') === false) return;
    try {
      var contract = JSON.parse(doc.getElementById('oo-contract').textContent);
      var who = contract.identity || {}, research = contract.research || {};
      var budget = contract.budget || {};
      var out = '<dl>';
      ['subject', 'scope', 'audience', 'tone'].forEach(function (key) {
        if (who[key]) out += '<dt>' + key + '</dt><dd>' + who[key] + '</dd>';
      });
      ['intents', 'required_sections'].forEach(function (key) {
        var items = research[key];
        if (!(items && items.length)) return;
        out += '<dt>' + key + '</dt><dd>';
        items.forEach(function (item) { out += '<span class="tag">' + item + '</span>'; });
        out += '</dd>';
      });
      if (budget.max_cost_usd) out += '<dt>Budget</dt><dd>$' + budget.max_cost_usd.toFixed(2) + '</dd>';
      panel.innerHTML = out + '</dl>';
    } catch (e) {
      panel.innerHTML = '<em>Error parsing contract.</em>';
    }
  });
})();
"""


def with_original_script(path: Path) -> Path:
    """Put ``ORIGINAL_PAGE_SCRIPT`` where a corpus extract holds its stand-in (the page script,
    above the rendering boundary). The page still counts as running the original script."""
    text = path.read_text("utf-8")
    boundary = text.index("window.stop()")
    at = text.rfind(STAND_IN, 0, boundary)
    if at < 0:
        raise ValueError(f"{path}: no script stand-in above the rendering boundary")
    path.write_text(text[:at] + ORIGINAL_PAGE_SCRIPT + text[at + len(STAND_IN) :], "utf-8")
    return path


# What a payload does when a sink turns it into markup: the three things a reader's page must
# never do (a dialog, a navigation, a request leaving the machine).
ACTIONS = {
    "dialog": "<img src=x onerror=alert(1)>",
    "navigation": f"<img src=x onerror=\"location.href='https://{BEACON_HOST}/away'\">",
    "request": f"<img src=https://{BEACON_HOST}/beacon.png>",
}
# The contract values the panel shows (sink 3), as `oo contract` edits them.
SHOWN_CONTRACT_EDITS = [
    ("--set", "subject"),
    ("--set", "scope"),
    ("--set", "audience"),
    ("--set", "tone"),
    ("--add", "intent"),
    ("--add", "section"),
]


def entity_forms(markup: str) -> list[str]:
    """``markup`` written as text in HTML three ways; each decodes back to it (textContent)."""
    return [
        html_lib.escape(markup, quote=False),
        markup.replace("<", "&#60;").replace(">", "&#62;"),
        markup.replace("<", "&LT;").replace(">", "&GT;"),
    ]


def sink_proposal(action: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A rewrite of the mock's proposal (``research_scenario(proposal=...)``) that puts the
    ``action`` payload into every place of agent output the original script re-reads: the
    section title (h2), headings h2-h6 in the section's HTML (the TOC reads h2/h3; an h2 there
    becomes h3), in three entity forms, and citation marks in attributes of a paragraph."""
    markup = ACTIONS[action]

    def rewrite(proposal: dict[str, Any]) -> dict[str, Any]:
        sid = proposal["sources"][0]["id"]
        named, decimal, upper = entity_forms(markup)
        section = proposal["sections"][0]
        section["title"] = f"Prices &lt; 10 {named}"
        section["html"] = (
            f"<p>What changed [{sid}].</p>\n"
            f"<h2>Moved {named}</h2>\n<h3>Named {named}</h3>\n<h3>Decimal {decimal}</h3>\n"
            f"<h3>Upper {upper}</h3>\n<h4>Four {named}</h4>\n<h5>Five {decimal}</h5>\n"
            f"<h6>Six {upper}</h6>\n"
            f'<p>Read <a href="https://a.example/report/[{sid}]" '
            f'title="[{sid}] {html_lib.escape(markup)}">the report</a> and '
            f'<abbr title="[{sid}]{html_lib.escape(markup)}">its summary</abbr> [{sid}].</p>\n'
        )
        return proposal

    return rewrite
