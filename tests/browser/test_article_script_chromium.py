"""Chromium's side of ``article-script`` (tests/format/test_article_script.py): each case of
``SCRIPT_MARKUP`` put into a real document's article and opened in Chromium with the page's own
script. Every case that runs script with no click is one ``oo check`` reports; the cases listed
as not running do not run here (a change in Chromium that makes one run fails this test). An
``iframe srcdoc`` ran on some openings and not on others (4 runs of the suite, 2 each way): its
case says so, and check must report it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from oo_nb.format.check import check_path
from tests.browser.conftest import Probe
from tests.format.test_article_script import with_markup
from tests.support.script_markup import SCRIPT_MARKUP

SETTLE_MS = 700  # autofocus, error events of a failed image and toggle events come by then


@pytest.mark.parametrize("case", list(SCRIPT_MARKUP))
def test_markup_that_runs_script_in_chromium_is_reported(
    case: str, tmp_path: Path, open_page: Callable[..., Probe]
) -> None:
    markup, flagged, runs = SCRIPT_MARKUP[case]
    path, _ = with_markup(tmp_path, markup)
    probe = open_page()
    page = probe.open(path, settle_ms=SETTLE_MS)
    ran = bool(page.evaluate("document.documentElement.dataset.pwn") or probe.dialogs)
    reported = any(f.code == "article-script" for f in check_path(path))
    if runs is not None:
        assert ran is runs, f"{case}: Chromium {'ran' if ran else 'did not run'} it"
    assert reported is flagged
    if ran:
        assert reported, f"{case}: runs script in Chromium and oo check is silent"
