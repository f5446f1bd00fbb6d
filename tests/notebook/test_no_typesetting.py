"""Dollar signs in the HTML the verbs show stay text: JupyterLab's MathJax showed update-all's
"cost $0.0354 of $0.50" as the formula "0.0354𝑜𝑓0.50". Every HTML output the verbs make is in a
block MathJax leaves alone (format.display.no_typesetting); a browser test checks it in
JupyterLab (tests/browser/test_lab_no_math.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests.support.magic_helpers import oo

NO_MATH = '<div class="mathjax_ignore tex2jax_ignore">'


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from oo_nb.demo import install_demo

    monkeypatch.setenv("OO_TODAY", "2026-12-01")
    install_demo(tmp_path / "lib", index=False)
    monkeypatch.chdir(tmp_path)
    return Path("lib")


@pytest.mark.parametrize(
    "line",
    [
        "update-all lib",
        "library lib",
    ],
)
def test_html_of_each_verb_is_not_typeset(shell: InteractiveShell, demo: Path, line: str) -> None:
    bundle = oo(shell, line)._repr_mimebundle_()
    assert bundle["text/html"].startswith(NO_MATH), bundle["text/html"][:200]


def test_update_all_shows_its_costs_as_text(shell: InteractiveShell, demo: Path) -> None:
    html = oo(shell, "update-all lib")._repr_mimebundle_()["text/html"]
    assert html.startswith(NO_MATH) and "$0." in html
