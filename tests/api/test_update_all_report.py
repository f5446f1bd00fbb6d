"""``Library.update_all(yes=True)`` says what it did (the documents written, as the CLI says), and
the Library it ran on shows the versions it wrote, not the frames it read before."""

from __future__ import annotations

from pathlib import Path

import oo_nb

DUE = ("heat-pumps-in-europe", "open-weight-language-models")


def _overdue(lib: oo_nb.Library) -> int:
    return int((lib.audit(all=True).code == "overdue").sum())


def test_update_all_with_yes_reports_the_documents_written(demo: Path) -> None:
    out = oo_nb.Library(demo).update_all(yes=True, agent="replay", progress=False)
    outcomes = {r.path.name.removesuffix(".o-o.html"): r.outcome for r in out.results}
    assert [outcomes[slug] for slug in DUE] == ["written", "written"]
    headline = str(out).splitlines()[0]
    assert "2 written" in headline and "proposed" not in headline, headline


def test_update_all_without_yes_still_reports_proposals(demo: Path) -> None:
    out = oo_nb.Library(demo).update_all(agent="replay", progress=False)
    assert sorted(r.outcome for r in out.results) == ["fresh", "fresh", "proposed", "proposed"]


def test_the_library_shows_what_its_own_update_all_wrote(demo: Path) -> None:
    lib = oo_nb.Library(demo)
    assert _overdue(lib) == 2  # the frames are read before the update
    lib.update_all(yes=True, agent="replay", progress=False)
    versions = dict(lib.documents[["slug", "version"]].values.tolist())
    assert [versions[slug] for slug in DUE] == [2, 2]
    assert _overdue(lib) == 0
