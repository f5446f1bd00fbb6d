"""The reliability runner itself: a part that could not run is a failure, never a pass."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.support import reliability, sizes
from tests.support.figures import Figure, failures

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "reliability.py"
_spec = importlib.util.spec_from_file_location("oo_bench_reliability", _BENCH)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _missing(sizes_: reliability.Sizes, workdir: Path, seed: int) -> list[Figure]:
    raise ImportError("No module named 'oo_nb.not_there'")


def _fine(sizes_: reliability.Sizes, workdir: Path, seed: int) -> list[Figure]:
    return [Figure("9 fine", "something measured", 1, 0, "0", True)]


@pytest.fixture
def parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(reliability.PARTS, 98, ("98 missing", _missing))
    monkeypatch.setitem(reliability.PARTS, 99, ("99 fine", _fine))


@pytest.mark.usefixtures("parts")
def test_a_part_with_a_missing_module_fails_and_the_others_still_run(tmp_path: Path) -> None:
    rows = reliability.run([98, 99], reliability.QUICK, workdir=tmp_path)
    failed = failures(rows)
    assert [(r.part, r.measure) for r in failed] == [("98 missing", "not run: a module is missing")]
    assert "oo_nb.not_there" in str(failed[0].result)
    assert any(r.part == "9 fine" and r.passed for r in rows)


@pytest.mark.usefixtures("parts")
def test_the_benchmark_exits_1_when_a_part_could_not_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench.main(["--quick", "--only", "98"]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert bench.main(["--quick", "--only", "99"]) == 0


def test_size_limits_need_the_image_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``oo_nb.agent.images`` the large-image case cannot be measured: an ImportError
    (a failing row in the run), not a case quietly measured without its image step."""
    monkeypatch.setitem(sys.modules, "oo_nb.agent.images", None)
    with pytest.raises(ImportError):
        sizes._image_steps(b"")
