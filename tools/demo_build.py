"""Rebuild the shipped demo library: ``python -m tools.demo_build [OUT]`` (default: the
package's ``oo_nb/demo/data/``).

For each document of ``demo_script.DOCS``: create it with ``oo new`` (in a scratch folder), then
for each round record a cassette of a real update against the loopback mock API answering with
that round's scripted research, and populate the document by *replaying* the cassette through the
update path (``--yes``, history kept). The document and the cassette of its next update (the one
the notebooks replay) are copied to ``OUT``. ``OO_TODAY`` is set to each round's day, so dates in
the documents follow the story, and the build is repeatable in all but the paragraph ids (random,
as in any update) and each cassette's ``recorded_at``: a rebuild changes those lines only.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from oo_nb.format.document import Document
from oo_nb.store import clock
from tools.demo_script import DEMO_TODAY, DOCS, DemoDoc, Round

__all__ = ["build", "page_texts", "proposal_for_round", "responder_for"]

DATA_DIR = Path(__file__).resolve().parents[1] / "oo_nb" / "demo" / "data"


@contextmanager
def pinned_today(day: date) -> Iterator[None]:
    old = os.environ.get(clock.ENV)
    os.environ[clock.ENV] = day.isoformat()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(clock.ENV, None)
        else:
            os.environ[clock.ENV] = old


def proposal_for_round(doc: Document, rnd: Round) -> dict[str, Any]:
    """The ``submit_proposal`` input: each paragraph takes the pid of the paragraph at the same
    position in the current section (a real agent copies the pids it keeps)."""
    existing: dict[str, list[str | None]] = {}
    for p in doc.article.paragraphs:
        if p.tag == "p":
            existing.setdefault(p.section, []).append(p.pid)
    sections = []
    for sid, (title, paragraphs) in rnd.sections.items():
        pids = existing.get(sid, [])
        parts = []
        for i, text in enumerate(paragraphs):
            pid = pids[i] if i < len(pids) else None
            parts.append(
                (f"<!-- {pid} -->\n" if pid else "") + f"<p>{html.escape(text, quote=False)}</p>"
            )
        sections.append({"id": sid, "title": title, "html": "\n\n".join(parts)})
    proposal: dict[str, Any] = {
        "summary": rnd.summary,
        "sections": sections,
        "sources": [dict(s) for s in rnd.sources],
        "drop_sources": list(rnd.drop_sources),
        "facts": [dict(f) for f in rnd.facts],
        "images": [],
    }
    if rnd.sentinel is not None:
        proposal["sentinel"] = dict(rnd.sentinel)
    return proposal


def page_texts(rnd: Round) -> dict[str, str]:
    """URL -> the text the round's fetches return: the last new source (as before quotes), and
    every new source a quoted fact cites, its page holding those quotes with typographic quote
    marks and dashes (the check ignores those), unless ``rnd.pages`` says otherwise."""
    by_id = {s["id"]: s for s in rnd.sources}
    quotes: dict[str, list[str]] = {}
    for fact in rnd.facts:
        for sid in fact.get("source_ids", []):
            if fact.get("quote") and sid in by_id:
                quotes.setdefault(sid, []).append(fact["quote"])
    wanted = [*quotes, *([rnd.sources[-1]["id"]] if rnd.sources else [])]
    out: dict[str, str] = {}
    for sid in dict.fromkeys(wanted):
        src = by_id[sid]
        said = " ".join(
            q.replace("-", "\u2013").replace(" '", " \u2018") for q in quotes.get(sid, [])
        )
        body = (
            f"{src['title']}. {said} (Recorded demo page.)"
            if said
            else f"{src['title']}. (Recorded demo page.)"
        )
        out[src["url"]] = rnd.pages.get(sid, body)
    return out


def responder_for(proposal: dict[str, Any], rnd: Round) -> Callable[[Any], Any]:
    """One answer doing the whole research turn: the searches (new sources among the results,
    so they are verified), a fetch of the first new source, a cited remark, then the proposal."""
    from tests.support.mock_api import Reply, message
    from tests.support.mock_scenarios import (
        fetch_result,
        search_result,
        server_tool_use,
        text,
        tool_use,
    )

    def respond(request: Any) -> Any:
        blocks: list[dict[str, Any]] = []
        urls = [(s["url"], s["title"]) for s in rnd.sources]
        titles = dict(urls)
        for n, query in enumerate(rnd.searches):
            block_id = f"srvtoolu_demo_search_{n}"
            blocks.append(server_tool_use("web_search", {"query": query}, block_id))
            blocks.append(search_result(block_id, urls[n :: len(rnd.searches)] or urls[:1]))
        fetched = page_texts(rnd)
        for n, (url, body) in enumerate(fetched.items()):
            block_id = f"srvtoolu_demo_fetch_{n}" if n else "srvtoolu_demo_fetch"
            blocks.append(server_tool_use("web_fetch", {"url": url}, block_id))
            blocks.append(fetch_result(block_id, url, titles[url], body))
        blocks.append(text(rnd.summary))
        blocks.append(tool_use("submit_proposal", proposal, "toolu_demo_submit"))
        return Reply(
            message=message(
                blocks,
                "tool_use",
                input_tokens=max(1, len(request.raw) // 4),
                output_tokens=300 + len(json.dumps(proposal)) // 4,
                searches=len(rnd.searches),
                fetches=len(fetched),
            )
        )

    return respond


def record_round(path: Path, rnd: Round, out: Path) -> Path:
    from tools.record_cassette import record_demo_cassette

    with pinned_today(rnd.today):
        proposal = proposal_for_round(Document.read(path), rnd)
        return record_demo_cassette(path, out, responder_for(proposal, rnd), today=rnd.today)


def replay_round(path: Path, cassette: Path, rnd: Round) -> None:
    from oo_nb.agent.run import UpdateOptions, prepare_update, write_result

    with pinned_today(rnd.today):
        result = prepare_update(
            path, UpdateOptions(agent="replay", cassette=cassette, force=True, today=rnd.today)
        )
        if result.status != "proposed":
            raise RuntimeError(f"{path.name}: replay gave {result.status}: {result.message}")
        write_result(result, yes=True)
        if not result.written:
            raise RuntimeError(f"{path.name}: replayed update was not written: {result.warnings}")


def create(spec: DemoDoc, folder: Path) -> Path:
    from oo_nb.edit.new import NewSpec, create_document

    first = spec.rounds[0].today if spec.rounds else DEMO_TODAY
    with pinned_today(first):
        doc = create_document(
            NewSpec.from_text(spec.title, every_days=spec.every, sentinel=spec.sentinel), folder
        )
    assert doc.path is not None
    return doc.path


def build(out: Path = DATA_DIR, *, log: Callable[[str], None] = print) -> dict[str, Any]:
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="oo-demo-build-") as tmp:
        work = Path(tmp) / "library"
        recordings = Path(tmp) / "recordings"
        work.mkdir()
        manifest: dict[str, Any] = {
            "today": DEMO_TODAY.isoformat(),
            "documents": [],
            "cassettes": [],
        }
        staged = Path(tmp) / "out"
        (staged / "documents").mkdir(parents=True)
        (staged / "cassettes").mkdir()
        for spec in DOCS:
            path = create(spec, work)
            for n, rnd in enumerate(spec.rounds, 1):
                cassette = record_round(path, rnd, recordings / f"{path.name}.round{n}.json")
                replay_round(path, cassette, rnd)
                log(f"{path.name}: round {n} ({rnd.today}) recorded and replayed")
            if spec.next_round is not None:
                target = staged / "cassettes" / f"{path.name}.json"
                record_round(path, spec.next_round, target)
                manifest["cassettes"].append(target.name)
                log(f"{path.name}: next update recorded ({spec.next_round.today})")
            if spec.shipped:
                shutil.copyfile(path, staged / "documents" / path.name)
                manifest["documents"].append(path.name)
        (staged / "demo.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        for sub in ("documents", "cassettes"):
            shutil.rmtree(out / sub, ignore_errors=True)
        out.mkdir(parents=True, exist_ok=True)
        for item in staged.iterdir():
            if item.is_dir():
                shutil.copytree(item, out / item.name)
            else:
                shutil.copyfile(item, out / item.name)
    return manifest


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tools.demo_build",
        description="Rebuild the demo library (documents and the cassettes the notebooks replay).",
    )
    parser.add_argument(
        "out",
        nargs="?",
        type=Path,
        default=DATA_DIR,
        help=f"where to write it (default: {DATA_DIR})",
    )
    print(json.dumps(build(parser.parse_args(argv).out), indent=1))


if __name__ == "__main__":  # pragma: no cover
    main()
