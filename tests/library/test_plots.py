"""Plots: matplotlib figures built from the frames, headless-safe."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from oo_nb.library.library import Library
from tests.conftest import CORPUS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "library"
TODAY = date(2026, 3, 1)


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root = tmp_path_factory.mktemp("plots")
    for path in [*CORPUS.glob("*.o-o.html"), *FIXTURES.glob("*.o-o.html")]:
        shutil.copy(path, root)
    return Library(root, today=TODAY, workers=1)


def labels(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_yticklabels()]


def test_staleness_timeline(lib: Library) -> None:
    fig = lib.plot_staleness()
    assert isinstance(fig, Figure)
    names = labels(fig)
    assert set(names) == set(lib.slugs)
    assert names[-1] == "defects"  # the most overdue on top
    ax = fig.axes[0]
    red = {to_hex(line.get_color()) for line in ax.get_lines()} & {"#d62828"}
    assert red, "overdue documents are drawn in red"
    assert "8 overdue" in ax.get_title() and "2026-03-01" in ax.get_title()
    fig.savefig(Path(lib.root) / "staleness.png")  # renders headless
    # Another day, another picture: nothing is overdue before the first due date.
    assert " 0 overdue" in lib.plot_staleness(today=date(2025, 1, 1)).axes[0].get_title()


def test_staleness_limit_and_given_axes(lib: Library) -> None:
    fig = lib.plot_staleness(limit=3)
    assert len(labels(fig)) == 3 and "showing 3 of 11" in fig.axes[0].get_title()
    import matplotlib.pyplot as plt

    own, axes = plt.subplots(1, 2)
    plt.close(own)
    assert lib.plot_staleness(ax=axes[1]) is own and axes[1].get_yticklabels()


def test_tier_mix(lib: Library) -> None:
    fig = lib.plot_tiers(top_tiers=3)
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[-2:] == ["other", "none"] and len(legend) == 5
    widths: dict[str, float] = {}
    names = labels(fig)
    for bar in ax.patches:
        name = names[round(bar.get_y() + bar.get_height() / 2)]
        widths[name] = widths.get(name, 0) + bar.get_width()
    n_sources = lib.documents.set_index("slug")["n_sources"]
    for name, total in widths.items():
        assert total == n_sources[name], name
    assert "anthropic-leadership" not in names  # no sources, no bar
    assert names[-1] == "agi-declared"  # the most sources on top


def test_plots_of_an_empty_library(tmp_path: Path) -> None:
    empty = Library(tmp_path, today=TODAY)
    assert isinstance(empty.plot_staleness(), Figure) and isinstance(empty.plot_tiers(), Figure)


def test_agg_backend_without_a_display(tmp_path: Path) -> None:
    code = (
        "import sys, datetime\n"
        "from oo_nb.library.library import Library\n"
        f"lib = Library({str(CORPUS)!r}, today=datetime.date(2026, 3, 1))\n"
        "assert 'matplotlib' not in sys.modules\n"
        "fig = lib.plot_tiers()\n"
        "import matplotlib, matplotlib.pyplot as plt\n"
        "print(matplotlib.get_backend().lower(), len(plt.get_fignums()))\n"
    )
    env = {
        k: v
        for k, v in __import__("os").environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "MPLBACKEND")
    }
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.split() == ["agg", "0"]  # headless, and no figure left open in pyplot
