"""A document page in Chromium (FORMAT.md §6): one created by ``oo new`` and populated by an
update, and an original from the corpus after oo_nb updated it and gave it our page code.

Expectations come from the file (what Python reads), the checks from the rendered page."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from oo_nb.format.document import Document
from tests.browser.conftest import Probe, wait_js
from tests.browser.pages import (
    adopt_our_code,
    agent_update,
    corpus_copy,
    new_document,
    populate,
    rich_article,
)

KINDS = ["new", "corpus"]
TRICKY = 'Tone with <em>tags</em> & "quotes" $(id) `x` <img src=x onerror=alert(1)>'


@pytest.fixture(scope="module")
def new_doc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = new_document(
        tmp_path_factory.mktemp("new"), "Browser check / how a page behaves", "--tone", "plain"
    )
    populate(
        made,
        rich_article(),
        contract={
            "identity": {"audience": "Readers <b>who</b> & others", "tone": TRICKY},
            "research": {"intents": ["find <i>news</i>", "a & b"]},
        },
    )
    return made


@pytest.fixture(scope="module")
def corpus_doc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    original = corpus_copy("agi-declared.o-o.html", tmp_path_factory.mktemp("corpus"))
    adopt_our_code(original)
    agent_update(original)
    return original


@pytest.fixture(params=KINDS)
def doc(request: pytest.FixtureRequest) -> tuple[str, Path, Document]:
    path: Path = request.getfixturevalue(f"{request.param}_doc")
    return request.param, path, Document.read(path)


def _open(open_page: Callable[..., Probe], path: Path, **kwargs: Any) -> Probe:
    probe = open_page(**kwargs)
    probe.open(path)
    return probe


def test_page_is_quiet_and_header_filled(
    doc: tuple[str, Path, Document], open_page: Callable[..., Probe], artifacts: Path
) -> None:
    kind, path, document = doc
    probe = _open(open_page, path)
    page = probe.page
    probe.screenshot(artifacts, f"document-{kind}")
    assert path.name.endswith(".html")
    assert page.evaluate("document.compatMode") == "BackCompat"  # shell lines before <!DOCTYPE>
    m = document.manifest
    assert page.locator("#doc-title").inner_text() == m.title
    assert page.title() == m.title
    assert page.locator("#doc-version").inner_text() == str(m.version)
    assert page.locator("#doc-asof").inner_text() == str(
        document.block_json("oo-manifest")["as_of"]
    )
    assert probe.errors == [] and probe.dialogs == [] and probe.network_requests == []
    # the page script ran to the end (the footer is its last step)
    assert page.locator("#run-meta").inner_text().strip()


def test_toc_lists_every_heading_and_links_land(
    doc: tuple[str, Path, Document], open_page: Callable[..., Probe]
) -> None:
    _kind, path, document = doc
    page = _open(open_page, path).page
    expected = [(s.level, s.title) for s in document.article.sections if s.level in (2, 3)]
    entries = page.evaluate(
        """() => [...document.querySelectorAll('#toc a')].map(a => ({
             text: a.textContent, href: a.getAttribute('href'), cls: a.className}))"""
    )
    assert [(3 if "h3" in e["cls"] else 2, e["text"]) for e in entries] == expected
    heads = page.evaluate(
        "() => [...document.querySelectorAll('#article h2, #article h3')].map(h => h.id)"
    )
    assert [e["href"] for e in entries] == ["#" + h for h in heads]
    assert all(heads) and len(set(heads)) == len(heads)
    moved = 0
    for e in entries:
        page.evaluate("window.scrollTo(0, 0)")
        page.locator(f'#toc a[href="{e["href"]}"]').click()
        wait_js(page, "h => location.hash === h", e["href"])
        landed = page.evaluate(
            """id => { const h = document.getElementById(id), r = h.getBoundingClientRect();
                       return {top: r.top, bottom: r.bottom, vh: innerHeight, y: scrollY,
                               target: h.matches(':target')}; }""",
            e["href"][1:],
        )
        assert landed["target"], e
        assert landed["top"] >= 0 and landed["bottom"] <= landed["vh"], (e, landed)
        moved += landed["y"] > 0
    assert moved >= len(entries) // 2  # most headings are below the fold: the links did scroll
    # the highlighted entry follows the scroll position
    last = entries[-1]["href"]
    page.locator(f'#toc a[href="{last}"]').click()
    wait_js(page, "h => document.querySelector(`#toc a.active`)?.getAttribute('href') === h", last)


CITE_REPORT = r"""() => {
  const art = document.getElementById('article');
  const h = document.getElementById('references');
  let list = null;
  for (let n = h.nextElementSibling; n && n.tagName !== 'H2'; n = n.nextElementSibling)
    if (n.tagName === 'OL' || n.tagName === 'UL') { list = n; break; }
  const items = [...list.children].filter(c => c.tagName === 'LI');
  const links = [...art.querySelectorAll('a.cite')].map(a => ({
    text: a.textContent, index: items.indexOf(document.getElementById(a.getAttribute('href').slice(1))),
    inList: list.contains(a)}));
  const plain = [];
  const walker = document.createTreeWalker(art, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const t = walker.currentNode;
    if (t.parentElement.closest('a, code, pre, h1, h2, h3, h4, h5, h6') || list.contains(t)) continue;
    for (const m of t.nodeValue.matchAll(/\[s(\d+)\]/g)) plain.push(m[0]);
  }
  const labels = items.map(li => (/^\s*\[(s\d+)\]/.exec(li.textContent) || [])[1] || null);
  return {n: items.length, links, plain, labels};
}"""


def test_each_citation_links_to_its_reference(
    doc: tuple[str, Path, Document], open_page: Callable[..., Probe]
) -> None:
    kind, path, document = doc
    page = _open(open_page, path).page
    report = page.evaluate(CITE_REPORT)
    n, labels = report["n"], report["labels"]
    assert n == len(document.article.references) > 0
    labelled = any(labels)  # "[sN] ..." references are found by label, others by position

    def target(number: int) -> int:
        if labelled:
            return labels.index(f"s{number}") if f"s{number}" in labels else -1
        return number - 1 if number <= n else -1

    links = report["links"]
    assert links, "no [sN] became a link"
    for link in links:
        number = int(link["text"][2:-1])
        assert link["index"] == target(number) >= 0, (
            f"{link['text']} points at reference {link['index'] + 1}"
        )
        assert not link["inList"]
    # what stays plain: only citations with no such reference
    assert all(target(int(p[2:-1])) < 0 for p in report["plain"]), report["plain"]
    cited = [c for c in document.article.citations if target(int(c.source_id[1:])) >= 0]
    if kind == "new":
        assert not labelled
        assert [x["text"] for x in links][:4] == ["[s1]", "[s2]", "[s5]", "[s3]"]
        assert report["plain"] == ["[s9]"]  # and <code>[s1]</code> stayed code
        assert page.locator("#article code").first.inner_text() == "[s1]"
    else:  # the original's unlabelled entries keep their form after an update (issue 12)
        assert not labelled and len(links) == len(cited)
    # a click lands on the reference
    first = page.locator("#article a.cite").first
    href = first.get_attribute("href")
    first.click()
    wait_js(page, "h => location.hash === h", href)
    assert page.evaluate("h => document.querySelector(h).matches(':target')", href)


def test_pids_are_bound_as_data_pid(
    doc: tuple[str, Path, Document], open_page: Callable[..., Probe]
) -> None:
    _kind, path, document = doc
    page = _open(open_page, path).page
    bound = page.evaluate(
        """() => {
          const out = [], w = document.createTreeWalker(document.getElementById('article'), NodeFilter.SHOW_COMMENT);
          while (w.nextNode()) {
            const c = w.currentNode, m = /^\\s*pid:(\\S+)\\s*$/.exec(c.nodeValue);
            if (!m) continue;
            let n = c.nextSibling; while (n && n.nodeType !== 1) n = n.nextSibling;
            out.push([m[1], n ? n.getAttribute('data-pid') : null, n ? n.tagName : null]);
          }
          return out;
        }"""
    )
    assert [f"pid:{want}" for want, _, _ in bound] == list(document.article.pids)
    assert bound and all(want == got for want, got, _ in bound), [b for b in bound if b[0] != b[1]]
    assert page.locator("#article [data-pid]").count() == len(bound)


def test_contract_panel_opens_on_badge_and_shows_values_literally(
    doc: tuple[str, Path, Document], open_page: Callable[..., Probe]
) -> None:
    kind, path, document = doc
    probe = _open(open_page, path)
    page = probe.page
    panel = page.locator("#contract-panel")
    assert not panel.is_visible()
    page.locator(".version-badge").click()
    panel.wait_for(state="visible")
    text = panel.inner_text()
    c = document.block_json("oo-contract")
    identity, research = c["identity"], c["research"]
    for key in ("subject", "scope", "audience", "tone"):
        if str(identity.get(key, "")).strip():
            assert identity[key] in text, key
    for item in [*research.get("intents", []), *research.get("required_sections", [])]:
        assert item in text
    budget = c.get("budget", {}).get("max_cost_usd")
    if budget is not None:
        assert f"${float(budget):.2f}" in text
    if kind == "new":
        assert TRICKY in text and "find <i>news</i>" in text
        # shown as text: no element came out of a contract value
        assert panel.locator("em, b, i, img").count() == 0
    assert probe.dialogs == [] and probe.errors == []
    assert page.locator(".version-badge").get_attribute("aria-expanded") == "true"
    page.locator(".version-badge").click()
    panel.wait_for(state="hidden")
    page.locator(".version-badge").press("Enter")  # keyboard too
    panel.wait_for(state="visible")


LUMINANCE = """() => {
  const m = getComputedStyle(document.documentElement).backgroundColor.match(/[\\d.]+/g).map(Number);
  return (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255;
}"""


def _is_dark(page: Any) -> bool:
    return bool(page.evaluate(LUMINANCE) < 0.5)


def test_theme_toggle_switches_and_persists(
    doc: tuple[str, Path, Document], open_page: Callable[..., Probe]
) -> None:
    _kind, path, _ = doc
    probe = _open(open_page, path, color_scheme="light")
    page = probe.page
    assert not _is_dark(page)
    assert page.evaluate("localStorage.getItem('oo-theme')") is None
    page.locator("button.theme-toggle").first.click()
    assert _is_dark(page)
    assert page.evaluate("localStorage.getItem('oo-theme')") == "dark"
    probe.reload()
    assert _is_dark(page), "the dark choice did not survive a reload"
    page.locator("button.theme-toggle").first.click()
    assert not _is_dark(page)
    assert page.evaluate("localStorage.getItem('oo-theme')") == "light"
    probe.reload()
    assert not _is_dark(page)


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_theme_follows_system_when_nothing_stored(
    scheme: str, new_doc: Path, open_page: Callable[..., Probe]
) -> None:
    page = _open(open_page, new_doc, color_scheme=scheme).page
    assert _is_dark(page) is (scheme == "dark")
    # a stored choice wins over the system preference
    other = "light" if scheme == "dark" else "dark"
    page.evaluate("t => localStorage.setItem('oo-theme', t)", other)
    page.reload(wait_until="commit")
    wait_js(page, "document.readyState === 'complete'")
    assert _is_dark(page) is (other == "dark")


def test_embedded_image_displays(
    doc: tuple[str, Path, Document], open_page: Callable[..., Probe]
) -> None:
    _kind, path, document = doc
    assert document.article.figures, "the test document must hold a figure"
    page = _open(open_page, path).page
    images = page.locator("#article figure img")
    assert images.count() == len(document.article.figures)
    for i in range(images.count()):
        img = images.nth(i)
        img.scroll_into_view_if_needed()
        wait_js(page, "el => el.complete", img.element_handle())
        assert img.evaluate("el => el.naturalWidth") > 0
        assert img.is_visible()


def test_toc_stays_in_view_on_a_narrow_screen_as_in_o_o(
    new_doc: Path, open_page: Callable[..., Probe]
) -> None:
    """o-o's page pins its contents to the top under 1200px (position: sticky, one line)."""
    page = _open(open_page, new_doc, viewport={"width": 600, "height": 700}).page
    toc = page.locator("#toc")
    assert toc.evaluate("el => getComputedStyle(el).position") == "sticky"
    start = toc.evaluate("el => el.getBoundingClientRect().top")
    assert start > 0  # below the header before scrolling
    last = page.locator("#article h2").last
    last.scroll_into_view_if_needed()
    page.evaluate("() => window.scrollBy(0, 400)")
    wait_js(page, "() => window.scrollY > 0")
    box = toc.evaluate("el => { const r = el.getBoundingClientRect(); return [r.top, r.height]; }")
    assert abs(box[0]) < 1 and 0 < box[1] < 120, box  # pinned at the top, one short line
    # a heading a link lands on is not hidden under the bar
    last_id = last.get_attribute("id")
    page.locator(f'#toc a[href="#{last_id}"]').click()
    wait_js(page, "id => location.hash === '#' + id", last_id)
    top = last.evaluate("el => el.getBoundingClientRect().top")
    assert top >= box[1] - 1, (top, box)
    wide = _open(open_page, new_doc, viewport={"width": 1300, "height": 800}).page
    assert wide.locator("#toc").evaluate("el => getComputedStyle(el).position") == "sticky"


def test_stub_page_before_first_update(tmp_path: Path, open_page: Callable[..., Probe]) -> None:
    path = new_document(tmp_path, "Not researched yet / a stub")
    probe = _open(open_page, path)
    assert probe.page.locator(".stub-notice").is_visible()
    assert probe.page.locator("#toc").is_hidden()
    assert probe.errors == [] and probe.network_requests == []


def test_content_security_policy_is_enforced_on_new_pages(
    new_doc: Path, open_page: Callable[..., Probe]
) -> None:
    """The markup CSP meta is ignored (the shell lines open <body> before it); the bootstrap
    script puts the policy into <head>, so script-made loads are blocked before the network."""
    probe = _open(open_page, new_doc)
    page = probe.page
    assert (
        page.evaluate(
            "[...document.head.querySelectorAll('meta[http-equiv=\"Content-Security-Policy\"]')].length"
        )
        >= 1
    )
    page.evaluate(
        """() => {
            window.ooCspSeen = [];
            document.addEventListener('securitypolicyviolation', e => window.ooCspSeen.push(e.violatedDirective));
            const img = new Image(); img.src = 'https://csp-check.invalid/pixel.png';
            document.body.appendChild(img);
            fetch('https://csp-check.invalid/data').catch(() => {});
        }"""
    )
    # Wait for both reports (no fixed pause); if they never come, assert on what was seen.
    with contextlib.suppress(TimeoutError):
        wait_js(
            page,
            """() => window.ooCspSeen.some(v => v.startsWith('img-src'))
                && window.ooCspSeen.some(v => /^(connect-src|default-src)/.test(v))""",
            timeout_ms=10_000,
        )
    violations = page.evaluate("window.ooCspSeen")
    assert any(v.startswith("img-src") for v in violations)
    assert any(v.startswith(("connect-src", "default-src")) for v in violations)
    # Chromium still announces the blocked request to Playwright ("request" event, failing
    # with ERR_BLOCKED_BY_CSP); none reaches the network layer, where the route would see it.
    assert not [u for u in probe.routed if "csp-check.invalid" in u]
