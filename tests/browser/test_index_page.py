"""The library page written by ``oo index``, in Chromium: live search over cards and rows, sorting
by every column (size by bytes, dates as dates, numbers as numbers), links into sub-folders."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from oo_nb.format.document import Document
from oo_nb.store import store
from tests.browser.conftest import Probe, wait_js
from tests.browser.pages import new_document, oo, png_data_uri

# title, sub-folder, as_of, version, number of sources, extra article bytes, sentinel event
LIBRARY: list[tuple[str, str, str | None, int, int, int, str | None]] = [
    ("Alpha reactors", "", "2026-02-01", 2, 3, 0, None),
    ("beta Markets", "", "2025-12-15", 10, 12, 60_000, None),
    ("Zeta fusion", "energy", "2026-01-09", 1, 0, 1_100_000, None),
    ("Épée makers", "energy/deep", None, 0, 0, 0, None),
    ("Gamma rays", "science", "2025-11-30", 3, 5, 150_000, "A gamma-ray burst is detected nearby"),
    ("delta Rivers", "science", "2026-02-20", 21, 1, 5_000, None),
    ("Eta Carinae", "", "2026-01-31", 4, 7, 20_000, "Eta Carinae goes supernova"),
    ("Theta waves", "science/deep", "2025-10-01", 7, 2, 300_000, None),
    ("Iota small", "", "2026-02-10", 5, 9, 1_000, None),
    ("Kappa numbers", "energy", "2025-09-09", 6, 4, 90_000, None),
]
COLUMNS = ["Title", "Size", "Last Updated", "Version", "Sources", "Sentinel"]


def _text_key(text: str) -> tuple[str, str]:
    """How a reader (and ``localeCompare``) orders titles: accents and case after letters."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return bare.casefold(), text.casefold()


def _fill(path: Path, as_of: str | None, version: int, n_sources: int, extra: int) -> None:
    if as_of is None:
        return  # never updated: stays a stub
    base = path.read_bytes()
    doc = Document.parse(base, path=path)
    cites = " ".join(f"[s{i}]" for i in range(1, n_sources + 1))
    refs = "".join(
        f'<li><a href="https://s{i}.example/">Source {i}</a></li>' for i in range(1, n_sources + 1)
    )
    figure = ""
    if extra:
        side = max(8, int((extra / 3) ** 0.5))  # a noisy-enough PNG to make the file bigger
        figure = (
            f'<figure class="fig-full"><img src="{png_data_uri(side, side)}" alt="x"></figure>\n'
        )
        figure += "<p>" + ("filler text " * (extra // 12)) + "</p>\n"
    html = (
        f'\n<h2 id="overview">Overview</h2>\n<!-- pid:overview:0000aaaa -->\n'
        f"<p>First paragraph of {path.stem} {cites}</p>\n{figure}"
        f'<h2 id="references">References</h2>\n<ol>{refs}</ol>\n'
    )
    doc = doc.with_article(html)
    sources = [
        {
            "id": f"s{i}",
            "url": f"https://s{i}.example/",
            "title": f"Source {i}",
            "tier": "news",
            "accessed": as_of,
        }
        for i in range(1, n_sources + 1)
    ]
    doc = doc.edit_block(
        "oo-source-cache", lambda c: {**c, "sources": sources, "last_updated": as_of}
    )
    doc = doc.edit_block("oo-manifest", lambda m: {**m, "version": version, "as_of": as_of})
    store.write_document(doc, expected=base, action="update")


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    root = tmp_path_factory.mktemp("library")
    truth: dict[str, dict[str, Any]] = {}
    for title, sub, as_of, version, n_sources, extra, sentinel in LIBRARY:
        options = [f"--sentinel={sentinel}"] if sentinel else []
        path = new_document(root / sub if sub else root, f"{title} / what {title} covers", *options)
        _fill(path, as_of, version, n_sources, extra)
        rel = path.relative_to(root).as_posix()
        truth[rel] = {
            "Title": _text_key(title),
            "Size": path.stat().st_size,
            "Last Updated": date.fromisoformat(as_of) if as_of else date.min,
            "Version": version,
            "Sources": n_sources,
            "title": title,
        }
    oo("index", str(root))
    return root / "index.o-o.html", truth


ROWS = """() => [...document.querySelectorAll('#article tbody tr')].map(tr => ({
  href: tr.querySelector('a').getAttribute('href'),
  cells: [...tr.cells].map(td => td.textContent.trim()),
  hidden: tr.hidden || getComputedStyle(tr).display === 'none'}))"""
CARDS = """() => [...document.querySelectorAll('#card-grid a.card')].map(a => ({
  href: a.getAttribute('href'), hidden: a.hidden || getComputedStyle(a).display === 'none'}))"""


def _open(open_page: Callable[..., Probe], path: Path) -> Probe:
    probe = open_page()
    probe.open(path)
    return probe


def test_index_lists_everything_and_is_quiet(
    library: tuple[Path, dict[str, Any]], open_page: Callable[..., Probe], artifacts: Path
) -> None:
    index, truth = library
    probe = _open(open_page, index)
    probe.screenshot(artifacts, "index")
    rows = probe.page.evaluate(ROWS)
    assert sorted(r["href"] for r in rows) == sorted(truth)
    headers = probe.page.evaluate(
        "() => [...document.querySelectorAll('#article thead th')].map(t => t.textContent.trim())"
    )
    assert headers == COLUMNS
    cards = probe.page.evaluate(CARDS)
    assert len(cards) == 8 and {c["href"] for c in cards} <= set(truth)
    # the 8 most recently updated documents
    recent = sorted(truth, key=lambda k: truth[k]["Last Updated"], reverse=True)[:8]
    assert {c["href"] for c in cards} == set(recent)
    assert probe.page.locator("#doc-count").inner_text() == str(len(truth))
    assert probe.errors == [] and probe.dialogs == [] and probe.network_requests == []


@pytest.mark.parametrize(
    ("query", "expect"),
    [
        ("zeta", ["Zeta fusion"]),
        ("ZETA", ["Zeta fusion"]),
        ("rays gamma", ["Gamma rays"]),  # every word must match, in any order
        ("épée", ["Épée makers"]),
        ("a", None),  # None: the rows whose text contains it
        ("no such document anywhere", []),
    ],
)
def test_search_filters_cards_and_rows(
    query: str,
    expect: list[str] | None,
    library: tuple[Path, dict[str, Any]],
    open_page: Callable[..., Probe],
) -> None:
    index, truth = library
    page = _open(open_page, index).page
    page.locator("#search-input").fill(query)
    rows = page.evaluate(ROWS)
    shown = {r["href"] for r in rows if not r["hidden"]}
    if expect is None:
        want = {r["href"] for r in rows if query in " ".join(r["cells"]).lower()}
    else:
        want = {k for k, v in truth.items() if v["title"] in expect}
    assert shown == want
    cards = page.evaluate(CARDS)
    assert {c["href"] for c in cards if not c["hidden"]} == want & {c["href"] for c in cards}
    assert page.locator("#no-results").is_visible() is (not want)
    page.locator("#search-input").fill("")
    assert not any(r["hidden"] for r in page.evaluate(ROWS))
    assert not any(c["hidden"] for c in page.evaluate(CARDS))


@pytest.mark.parametrize("column", COLUMNS)
def test_sorting_by_every_column(
    column: str, library: tuple[Path, dict[str, Any]], open_page: Callable[..., Probe]
) -> None:
    index, truth = library
    page = _open(open_page, index).page
    th = page.locator("#article thead th", has_text=column).first
    original = [r["href"] for r in page.evaluate(ROWS)]
    for direction in ("ascending", "descending"):
        th.click()
        assert th.get_attribute("aria-sort") == direction
        rows = page.evaluate(ROWS)
        order = [r["href"] for r in rows]
        assert sorted(order) == sorted(original)
        if column == "Sentinel":
            # "—" (not a sentinel) is punctuation: it collates before any word
            cells = [r["cells"][COLUMNS.index("Sentinel")] for r in rows]
            keys = [_text_key("" if c == "\u2014" else c) for c in cells]
        else:
            keys = [truth[h][column] for h in order]
        want = sorted(keys, reverse=direction == "descending")
        assert keys == want, (
            f"{column} {direction}: {[r['cells'][COLUMNS.index(column)] for r in rows]}"
        )
    if column == "Size":  # the point of data-sort: "1.1 MB" after "98 KB", not before "34 KB"
        shown = [r["cells"][1] for r in page.evaluate(ROWS)]
        assert shown != sorted(shown, reverse=True)


DATE_COLUMN = COLUMNS.index("Last Updated")
SET_DATE_KEYS = f"""keys => [...document.querySelectorAll('#article tbody tr')].forEach(
  (tr, i) => tr.cells[{DATE_COLUMN}].setAttribute('data-sort', keys[i]))"""
DATE_KEYS = f"""() => [...document.querySelectorAll('#article tbody tr')].map(
  tr => tr.cells[{DATE_COLUMN}].getAttribute('data-sort'))"""


def _date_order(keys: list[str], descending: bool) -> list[int]:
    """Row positions in the order a date sort gives: by the ISO date the key starts with (the
    rest ignored), keys that are no date count as oldest, ties keep their order."""

    def key(i: int) -> date:
        try:
            return date.fromisoformat(keys[i][:10])
        except ValueError:
            return date.min

    return sorted(range(len(keys)), key=key, reverse=descending)


def test_dates_sort_as_dates_not_as_text(
    library: tuple[Path, dict[str, Any]], open_page: Callable[..., Probe]
) -> None:
    """ISO dates sort the same as text, so the library's own keys cannot tell a date sort from a
    text sort. The page writes the ISO date as the key (checked first); then the keys are
    replaced in the live page by ones whose text order is not their date order (no date at
    all, which is oldest; two keys on the same day whose suffixes are in reverse order), and
    the click order must be the date order. The same keys sorted as text give another order."""
    index, truth = library
    page = _open(open_page, index).page
    th = page.locator("#article thead th", has_text="Last Updated").first
    assert th.get_attribute("data-type") == "date"
    rows = page.evaluate(ROWS)
    written = page.evaluate(DATE_KEYS)
    for row, key in zip(rows, written, strict=True):
        as_of = truth[row["href"]]["Last Updated"]
        assert key == ("" if as_of == date.min else as_of.isoformat())
    dated = [i for i, k in enumerate(written) if k]
    assert len(dated) >= 4
    keys = list(written)
    keys[dated[0]] = "not updated yet"  # text: after every digit; date: the oldest
    keys[dated[1]] = "unknown"
    keys[dated[2]], keys[dated[3]] = "2026-01-09 b", "2026-01-09 a"  # same day, text reversed
    page.evaluate(SET_DATE_KEYS, keys)

    def click_and_check(direction: str) -> None:
        before = page.evaluate(ROWS)
        current = page.evaluate(DATE_KEYS)
        want = [before[i]["href"] for i in _date_order(current, direction == "descending")]
        th.click()
        assert th.get_attribute("aria-sort") == direction
        got = [r["href"] for r in page.evaluate(ROWS)]
        assert got == want, f"{direction}: {page.evaluate(DATE_KEYS)}"

    click_and_check("ascending")
    click_and_check("descending")
    # Control: the same keys sorted as text come out in another order, so the checks above
    # would have failed on a text sort.
    page.evaluate("th => th.removeAttribute('data-type')", th.element_handle())
    before = page.evaluate(ROWS)
    current = page.evaluate(DATE_KEYS)
    as_dates = [before[i]["href"] for i in _date_order(current, False)]
    as_text = [
        before[i]["href"] for i in sorted(range(len(current)), key=lambda i: current[i].lower())
    ]
    th.click()
    assert th.get_attribute("aria-sort") == "ascending"  # the third click turns back to ascending
    got = [r["href"] for r in page.evaluate(ROWS)]
    assert got == as_text, f"text sort: {page.evaluate(DATE_KEYS)}"
    assert got != as_dates


def test_links_open_documents_in_sub_folders(
    library: tuple[Path, dict[str, Any]], open_page: Callable[..., Probe]
) -> None:
    index, truth = library
    probe = _open(open_page, index)
    page = probe.page
    deep = [k for k in truth if k.count("/") >= 2]
    assert deep
    for href in (deep[0], next(k for k in truth if k.count("/") == 1)):
        for selector in (f'#article tbody a[href="{href}"]', f'#card-grid a.card[href="{href}"]'):
            link = page.locator(selector)
            if not link.count():
                continue  # not among the 8 cards
            link.first.click()
            wait_js(page, "document.readyState === 'complete'")
            assert page.url == (index.parent / href).resolve().as_uri()
            assert page.locator("#doc-title").inner_text() == truth[href]["title"]
            probe.open(index)
    # every link on the page points at a file that exists
    hrefs = page.evaluate(
        "() => [...document.querySelectorAll('#article a[href]')].map(a => a.href)"
    )
    assert hrefs and all(Path(h.removeprefix("file://")).is_file() for h in hrefs)
    assert probe.network_requests == []
