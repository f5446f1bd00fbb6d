"""The Claude Code backend with a fake `claude` on PATH: scratch copy, budget and model passed on,
edits diffed into a proposal, failures reported with their cost, overspend never auto-written."""

from __future__ import annotations

import base64
import json
import os
import re
import sys
from pathlib import Path

import pytest

from oo_nb.agent.backends.claude_code import parse_output, proposal_from_copy, split_sections
from oo_nb.agent.clean import unclean_reasons
from oo_nb.agent.run import UpdateOptions, prepare_update, write_result
from oo_nb.cli.main import main
from oo_nb.format.document import Document
from tests.support.agent_helpers import CORPUS, TODAY, copy_doc, no_history_written

NEW_URL = "https://news.example.com/claude-found-this"
READ_URL = "https://blog.example.net/already-linked"  # a link already in the document

FAKE = r"""
import json, os, sys
from pathlib import Path
from oo_nb.format.document import Document

mode = os.environ.get("FAKE_CLAUDE_MODE", "success")
Path(os.environ["FAKE_CLAUDE_LOG"]).write_text(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd()}))
if mode == "crash":
    print("boom: something broke", file=sys.stderr)
    sys.exit(1)
doc_path = next(Path.cwd().glob("*.o-o.html"))
url = "NEW_URL"
if mode in ("success", "overspend"):
    doc = Document.read(doc_path)
    html = doc.article_html.replace('<h2 id="references">', '<h2 id="claude-update">Claude Update</h2>\n<p>' + os.environ.get("FAKE_CLAUDE_TEXT", "Fresh news [s20].") + '</p>\n\n<h2 id="references">', 1)
    doc = doc.with_article(html)
    doc = doc.edit_block("oo-source-cache", lambda c: c["sources"].append({"id": "s20", "url": url, "title": "Found", "tier": "news", "accessed": "2026-11-29"}))
    doc = doc.edit_block("oo-changelog", lambda c: c["entries"].append({"version": 3, "timestamp": "2026-11-29", "summary": "Claude added an update section."}))
    doc_path.write_bytes(doc.to_bytes())
elif mode == "broken":
    doc_path.write_text("not a document any more")
elif mode == "replace":  # one edit of the file's text, as Claude Code's Edit tool makes it
    old, new = json.loads(os.environ["FAKE_CLAUDE_REPLACE"])
    doc_path.write_text(doc_path.read_text().replace(old, new, 1))
events = [
    {"type": "system", "subtype": "init", "model": "x"},
    {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_s1", "name": "WebSearch", "input": {"query": "q"}}]}},
    {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_s1", "content": [{"type": "text", "text": "Results: " + url + " and https://other.example.org/x."}]}]}},
]
if mode == "provenance":  # reads the document (holding https://blog.example.net/already-linked), searches (finding url), cites both
    text = doc_path.read_text()
    doc = Document.read(doc_path)
    html = doc.article_html.replace('<h2 id="references">', '<h2 id="claude-update">Claude Update</h2>\n<p>Old link [s20], new find [s21].</p>\n\n<h2 id="references">', 1)
    doc = doc.with_article(html)
    def add(c):
        c["sources"].append({"id": "s20", "url": "https://blog.example.net/already-linked", "title": "Already linked", "tier": "news", "accessed": "2026-11-29"})
        c["sources"].append({"id": "s21", "url": url, "title": "Found", "tier": "news", "accessed": "2026-11-29"})
    doc = doc.edit_block("oo-source-cache", add)
    events[1:] = [
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_r1", "name": "Read", "input": {"file_path": str(doc_path)}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_r1", "content": text}]},
         "tool_use_result": {"type": "text", "file": {"filePath": str(doc_path), "content": text}}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_s1", "name": "WebSearch", "input": {"query": "q"}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_s1", "content": [{"type": "text", "text": "Results: " + url}]}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_e1", "name": "Edit", "input": {"old_string": "x", "new_string": "https://blog.example.net/already-linked"}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_e1", "content": "The file now holds https://blog.example.net/already-linked"}]}},
    ]
    doc_path.write_bytes(doc.to_bytes())
subtype = {"budget": "error_max_budget_usd", "turns": "error_max_turns"}.get(mode, "success")
cost = {"overspend": 9.0, "budget": 0.5}.get(mode, 0.12)
events.append({"type": "result", "subtype": subtype, "is_error": subtype != "success", "total_cost_usd": cost,
               "num_turns": 4, "result": "Done.", "usage": {"input_tokens": 5000, "output_tokens": 700,
               "cache_read_input_tokens": 100, "server_tool_use": {"web_search_requests": 2}}})
events[-1].update(json.loads(os.environ.get("FAKE_CLAUDE_RESULT_EXTRA", "{}")))
for e in events:
    print(json.dumps(e))
""".replace("NEW_URL", NEW_URL)


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "claude"
    script.write_text(f"#!{sys.executable}\n{FAKE}")
    script.chmod(0o755)
    log = tmp_path / "claude-args.json"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    return log


def opts(**kw: object) -> UpdateOptions:
    return UpdateOptions(force=True, agent="claude-code", today=TODAY, download_images=False, **kw)  # type: ignore[arg-type]


def test_edits_become_a_verified_proposal(fake_claude: Path, tmp_path: Path) -> None:
    doc = copy_doc(tmp_path / "lib")
    base = doc.read_bytes()
    result = prepare_update(doc, opts(model="claude-opus-5-5", budget_usd=1.25))
    assert doc.read_bytes() == base  # the document itself is never touched
    call = json.loads(fake_claude.read_text())
    argv = call["argv"]
    assert (
        Path(call["cwd"]) != doc.parent and not Path(call["cwd"]).exists()
    )  # scratch copy, cleaned up
    assert argv[argv.index("--model") + 1] == "claude-opus-5-5"
    assert argv[argv.index("--max-budget-usd") + 1] == "1.25"
    assert (
        "--no-session-persistence" in argv
        and argv[argv.index("--output-format") + 1] == "stream-json"
    )
    run = result.run
    assert run is not None and run.backend == "claude-code" and run.cost_usd == pytest.approx(0.12)
    assert (
        run.usage.input_tokens,
        run.usage.output_tokens,
        run.usage.web_searches,
        run.requests,
    ) == (5000, 700, 2, 4)
    assert NEW_URL in run.seen_urls
    cand = result.candidate
    assert cand is not None and not cand.unverified
    new = cand.document.source_cache.by_id()["s20"]
    assert new.url == NEW_URL and new.verified is True
    assert "claude-update" in [s.id for s in cand.document.article.sections]
    latest = cand.document.changelog.latest
    assert (
        latest is not None
        and latest.summary == "Claude added an update section."
        and latest.extra["agent"] == "claude-code"
    )
    assert result.auto_write


def test_bidi_and_control_characters_it_writes_are_removed_with_a_warning(
    fake_claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A right-to-left override makes the page show "$0.50" where the text holds "05.0$"."""
    monkeypatch.setenv("FAKE_CLAUDE_TEXT", "Price fell to \u202e05.0$\u202c per kWh \x1b[2J [s20].")
    result = prepare_update(copy_doc(tmp_path / "lib"), opts())
    cand = result.candidate
    assert cand is not None
    assert "Price fell to 05.0$ per kWh [2J [s20]." in cand.document.article_html
    warning = next(w for w in cand.warnings if "control or bidi" in w)
    assert "(claude-update)" in warning and "\\u202e, \\u202c, \\u001b" in warning
    assert any("control or bidi" in why for why in unclean_reasons(result))  # --auto keeps it


def test_overspend_is_kept_for_review(
    fake_claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "overspend")
    doc = copy_doc(tmp_path)
    base = doc.read_bytes()
    result = prepare_update(doc, opts(budget_usd=1.0))
    assert result.run is not None and result.run.overspent and not result.auto_write
    write_result(result, yes=True)
    assert result.written is None and result.pending is not None and doc.read_bytes() == base


@pytest.mark.parametrize(
    "extra",
    [
        '{"total_cost_usd": NaN}',
        '{"total_cost_usd": Infinity}',
        '{"total_cost_usd": -3}',
        '{"total_cost_usd": null}',  # no cost reported is no cost known, not $0
        '{"total_cost_usd": "0.01"}',
    ],
)
def test_a_cost_that_is_no_cost_is_charged_the_budget_and_kept_for_review(
    extra: str, fake_claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reported cost that is not a finite amount of at least 0 (or none at all) is unknown:
    the run is charged its whole budget and says so, --auto keeps the proposal for review, and
    the research is not lost to a changelog that cannot hold the number."""
    monkeypatch.setenv("FAKE_CLAUDE_RESULT_EXTRA", extra)
    doc = copy_doc(tmp_path)
    base = doc.read_bytes()
    result = prepare_update(doc, opts(budget_usd=1.0))
    assert result.run is not None and result.run.cost_usd == pytest.approx(1.0)
    assert any(
        "reported a cost of" in w and "charged the whole budget" in w for w in result.warnings
    )
    write_result(result, auto=True, yes=False)
    assert result.written is None and result.pending is not None and doc.read_bytes() == base
    assert result.kept_because


@pytest.mark.parametrize(
    "extra",
    [
        '{"num_turns": NaN}',
        '{"num_turns": "x"}',
        '{"usage": {"input_tokens": NaN, "output_tokens": 1e400}}',
        '{"usage": {"output_tokens": -5000000, "server_tool_use": {"web_search_requests": -9}}}',
    ],
)
def test_result_counts_that_are_no_counts_read_as_zero(
    extra: str, fake_claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Turn and token counts in Claude Code's result are untrusted JSON: NaN, 1e400, text or a
    negative number is no count (read as 0), never a traceback that loses the paid research."""
    monkeypatch.setenv("FAKE_CLAUDE_RESULT_EXTRA", extra)
    doc = copy_doc(tmp_path)
    result = prepare_update(doc, opts(budget_usd=1.0))
    run = result.run
    assert run is not None and result.candidate is not None
    assert run.requests >= 0 and run.usage.input_tokens >= 0 and run.usage.output_tokens >= 0
    assert run.usage.web_searches >= 1  # its WebSearch call still counts


@pytest.mark.parametrize(
    ("mode", "pattern"),
    [
        ("budget", r"budget reached: Claude Code stopped at its budget \(cost \$0\.5000\)"),
        ("turns", "turn limit"),
        ("broken", r"left the scratch copy unreadable.*cost \$0\.1200"),
        ("nochange", "changed no article section"),
        ("crash", "exited with code 1 and no result: boom"),
    ],
)
def test_failures_write_nothing(
    mode: str,
    pattern: str,
    fake_claude: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_MODE", mode)
    doc = copy_doc(tmp_path)
    base = doc.read_bytes()
    assert main(["update", str(doc), "--force", "--yes", "--agent", "claude-code"]) == 2
    err = capsys.readouterr().err
    assert re.search(pattern, err), err
    assert doc.read_bytes() == base and no_history_written(doc)


def test_missing_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(Exception, match="not on PATH"):
        prepare_update(copy_doc(tmp_path), opts())


def test_sections_are_split_as_the_page_reads_them() -> None:
    """An h2 in a comment (ended by "--!>" as a browser ends it) or in an attribute value starts
    no section; the heading's text is its text content (issue 26); an h2 without an id is a
    section under the id the page script gives it (attack round six, #17)."""
    html = (
        '<h2 id="a">A &amp; B</h2><p>one</p><!-- <h2 id="old">Old</h2> --!>'
        "<p title='<h2 id=\"fake\">F</h2>'>two</p><!-- pid:b:00000001 -->\n"
        '<h2 id="b">B</h2><p>three</p><h2>No id</h2><p>four</p>'
    )
    parts = split_sections(html)
    assert list(parts) == ["a", "b", "no-id"]
    assert parts["a"][0] == "A & B" and parts["a"][1].endswith(">two</p>")
    assert parts["b"] == ("B", "<p>three</p>")
    assert parts["no-id"] == ("No id", "<p>four</p>")


def test_split_and_diff_by_section() -> None:
    original = Document.read(CORPUS / "ai-model-landscape.o-o.html")  # pid comments before headings
    parts = split_sections(original.article_html)
    assert "overview" in parts and parts["overview"][0] == "Overview"
    assert (
        not parts["overview"][1].rstrip().endswith("-->")
    )  # the next heading's pid is not part of the body
    edited = original.with_article(
        original.article_html.replace("The large language model landscape", "The LLM landscape", 1)
    )
    proposal = proposal_from_copy(original, edited)
    assert [s["id"] for s in proposal["sections"]] == ["overview"]
    assert proposal_from_copy(original, original)["sections"] == []


def test_parse_output_json_and_stream() -> None:
    whole = json.dumps({"type": "result", "subtype": "success", "total_cost_usd": 0.1})
    assert parse_output(whole)[0] == json.loads(whole)
    search = json.dumps(
        {
            "type": "assistant",
            "message": {
                "content": [{"type": "tool_use", "id": "t1", "name": "WebSearch", "input": {}}]
            },
        }
    )
    stream = "\n".join(
        [
            search,
            json.dumps(
                {
                    "type": "user",
                    "message": {
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": "t1",
                                "content": "see https://a.example/x.",
                            }
                        ]
                    },
                }
            ),
            whole,
        ]
    )
    result, urls = parse_output(stream)
    assert result is not None and urls == {"https://a.example/x"}
    assert parse_output("garbage")[0] is None


def test_only_web_tool_results_count_as_seen(
    fake_claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A URL Claude Code merely read in the document (or wrote in an edit) is not verified by this
    run; a URL that came back from WebSearch is."""
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "provenance")
    path = copy_doc(tmp_path)
    doc = Document.read(path)
    linked = f'<p>Earlier coverage: <a href="{READ_URL}">a blog</a>.</p>\n<h2 id="references">'
    path.write_bytes(
        doc.with_article(doc.article_html.replace('<h2 id="references">', linked, 1)).to_bytes()
    )
    result = prepare_update(path, opts())
    run, cand = result.run, result.candidate
    assert run is not None and cand is not None
    assert NEW_URL in run.seen_urls and READ_URL not in run.seen_urls
    sources = cand.document.source_cache.by_id()
    assert sources["s20"].url == READ_URL and sources["s20"].verified is False
    assert sources["s21"].url == NEW_URL and sources["s21"].verified is True
    assert cand.unverified == ["s20"]


def test_parse_output_counts_web_tools_and_their_citations_only() -> None:
    def use(tid: str, name: str, **inp: str) -> str:
        return json.dumps(
            {
                "type": "assistant",
                "message": {
                    "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}]
                },
            }
        )

    def res(tid: str, content: object, *, error: bool = False) -> str:
        return json.dumps(
            {
                "type": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": tid,
                            "content": content,
                            "is_error": error,
                        }
                    ]
                },
            }
        )

    cite = {
        "type": "text",
        "text": "x",
        "citations": [{"type": "web_search_result_location", "url": "https://cited.example/c"}],
    }
    stream = "\n".join(
        [
            use("r", "Read", file_path="doc.o-o.html"),
            res("r", "link https://read.example/a in the doc"),
            use("g", "Grep", pattern="http"),
            res("g", "https://grep.example/g"),
            use("s", "WebSearch", query="q"),
            res("s", [{"type": "text", "text": "found https://search.example/s."}]),
            use("f", "WebFetch", url="https://fetch.example/page", prompt="p"),
            res("f", "Page text linking https://inside.example/i"),
            use("bad", "WebFetch", url="https://failed.example/x", prompt="p"),
            res("bad", "fetch failed https://failed.example/x", error=True),
            res("orphan", "no tool_use for me https://orphan.example/o"),
            json.dumps({"type": "assistant", "message": {"content": [cite]}}),
            json.dumps({"type": "result", "subtype": "success"}),
        ]
    )
    result, urls = parse_output(stream)
    assert result is not None
    assert urls == {
        "https://search.example/s",
        "https://fetch.example/page",  # (not inside.example: written in its text, not read)
        "https://cited.example/c",
    }


def test_a_section_holding_a_policy_sized_image_can_still_be_edited(
    fake_claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One embedded image of the size the image policy allows (150 KB: 204,800 base64
    characters) filled the section cap, so every paid edit of its section was refused: the
    figures the document already holds are not counted, and come back byte for byte."""
    doc = copy_doc(tmp_path / "lib")
    src = "data:image/jpeg;base64," + base64.b64encode(bytes(150 * 1024)).decode()
    old = "among researchers, companies, or policymakers.</p>"
    figure = f'<figure><img src="{src}" alt="chart"><figcaption>Chart</figcaption></figure>'
    d = Document.read(doc)
    doc.write_bytes(d.with_article(d.article_html.replace(old, old + figure, 1)).to_bytes())
    monkeypatch.setenv("FAKE_CLAUDE_MODE", "replace")
    edit = ["The term AGI remains contested", "The term AGI remains disputed"]
    monkeypatch.setenv("FAKE_CLAUDE_REPLACE", json.dumps(edit))
    result = prepare_update(doc, opts())
    assert result.status == "proposed", result.message
    assert result.candidate is not None
    html = result.candidate.document.article_html
    assert "The term AGI remains disputed" in html and f'src="{src}"' in html
    # what is kept for review names the figure by its placeholder, as an API run's does
    assert result.proposal_data is not None
    sections = json.dumps(result.proposal_data["proposal"]["sections"])
    assert src not in sections and 'src=\\"oo-image:1\\"' in sections
    assert result.proposal_data["image_refs"] == {"oo-image:1": src}
