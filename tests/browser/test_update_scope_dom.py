"""Issue 26: the update scope's reading of article markup (tests/format/test_update_scope_reading.py)
is Chromium's. For each case, Chromium's DOM holds something the sanitiser would remove (an
element outside the allow-list, an event handler anywhere in the page, a link that is not
http(s) or in-page, an id the page uses) exactly when ``scope_problems`` names one."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from oo_nb.format.sanitize import ALLOWED_TAGS
from oo_nb.format.update_scope import scope_problems
from tests.format.test_update_scope_reading import READINGS, _with

if TYPE_CHECKING:
    from playwright.sync_api import Page

REMOVED = r"""(allowed) => {
  const found = [];
  for (const el of document.querySelectorAll("*")) {
    const inArticle = !!el.closest("#article") && el.id !== "article";
    const name = el.localName;
    if (inArticle && !allowed.includes(name) && name !== "h2") found.push(`<${name}>`);
    for (const a of el.attributes) {
      if (a.name.startsWith("on")) found.push(`${name} ${a.name}`);
      if (inArticle && a.name === "href" && !/^\s*(https?:|#)/i.test(a.value)) found.push(`${name} href`);
      if (inArticle && a.name === "id" && a.value.toLowerCase() === "toc") found.push(`${name} id`);
    }
  }
  return found;
}"""


@pytest.mark.parametrize("case", list(READINGS))
def test_chromium_holds_what_the_scope_names(offline_page: Page, case: str) -> None:
    html, _ = READINGS[case]
    offline_page.set_content(
        f'<!doctype html><html><body><article id="article"><p>x</p>{html}</article></body></html>'
    )
    in_chromium = offline_page.evaluate(REMOVED, sorted(ALLOWED_TAGS))
    named = scope_problems(*_with(html))
    assert bool(in_chromium) == bool(named), (in_chromium, named)
