from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from oo_nb.cli.main import main
from tests.conftest import CORPUS


def test_show_json_has_normalised_views(capsys: object) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "oo_nb", "show", "--json", str(CORPUS / "yc-w26-batch.o-o.html")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data = json.loads(out)
    assert set(data) >= {
        "manifest",
        "contract",
        "source_cache",
        "changelog",
        "article",
        "layout",
        "sentinel",
    }
    assert data["source_cache"]["sources"][0] == {
        "id": "s1",
        "url": "https://www.ycombinator.com/blog/2026-demo-days",
        "title": "2026 Demo Day Dates — Y Combinator",
        "tier": "primary",
        "accessed": "2026-02-16",
        "domain": "ycombinator.com",
    }
    assert isinstance(data["changelog"]["entries"], list)
    assert data["article"]["sections"][0] == {"id": "overview", "title": "Overview", "level": 2}
    assert data["article"]["citations"][0].startswith("s")
    assert data["layout"] == "early" and data["sentinel"] is None
    sentinel = json.loads(
        subprocess.run(
            [
                sys.executable,
                "-m",
                "oo_nb",
                "show",
                "--json",
                str(CORPUS / "agi-declared.o-o.html"),
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )["sentinel"]
    assert sentinel["status"] == "not_occurred"


def test_check_exit_codes(tmp_path: Path, capsys: object) -> None:
    clean = [
        str(p)
        for p in sorted(CORPUS.glob("*.o-o.html"))
        if p.name != "anthropic-leadership.o-o.html"
    ]
    assert main(["check", *clean]) == 0
    # its article cites 16 sources its cache does not hold: an error, as in oo audit
    assert main(["check", str(CORPUS / "anthropic-leadership.o-o.html")]) == 1
    bad = tmp_path / "bad.o-o.html"
    bad.write_text(
        (CORPUS / "yc-w26-batch.o-o.html").read_text().replace('"version": 1,', '"version": "x",')
    )
    assert main(["check", str(bad)]) == 1


def test_check_names_the_line_of_a_wrong_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "badver.o-o.html"
    bad.write_text(
        (CORPUS / "ai-model-landscape.o-o.html")
        .read_text()
        .replace('"version": 1,', '"version": "one",', 1)
    )
    assert main(["check", str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        f"{bad}: error: invalid-block: block oo-manifest, line 223, column 14, key 'version': must be a whole number, found 'one'\n"
    )


def test_history_and_rollback_cli(corpus_copy: Path, capsys: object) -> None:
    from oo_nb.format.document import Document
    from oo_nb.store import store

    p = corpus_copy / "yc-w26-batch.o-o.html"
    original = p.read_bytes()
    new = Document.read(p).edit_block("oo-manifest", lambda m: m.update(version=2))
    store.write_document(new, expected=original, action="update")
    assert main(["history", str(p)]) == 0
    assert main(["rollback", str(p), "--to", "1"]) == 0
    assert p.read_bytes() == original
    assert main(["rollback", str(p), "--to", "9"]) == 2


def test_errors_are_one_clear_line(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "oo_nb", "show", str(tmp_path / "nope.o-o.html")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert "nope.o-o.html: no such file" in r.stderr and "Traceback" not in r.stderr


def test_show_on_an_index_page_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(CORPUS / "index.o-o.html")]) != 0
    err = capsys.readouterr().err
    assert "this is a library index page" in err and "oo index" in err and "oo library" in err
    assert "missing" not in err


def test_one_verb_loads_only_its_own_module() -> None:
    """`oo show` must not pay for the agent, asyncio or pandas (CLI start-up time)."""
    import subprocess
    import sys

    code = (
        "import sys; from oo_nb.cli.main import main; main(['show', sys.argv[1], '--json']); "
        "print(sorted(m for m in ('oo_nb.agent.run', 'oo_nb.agent.many', 'asyncio', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(CORPUS / "agi-declared.o-o.html")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout[-300:]
