"""Fuzzing the codec: every input either parses or raises OOError; what parses round-trips byte
for byte, every view either works or raises OOError, and every edit either gives a document that
re-parses with exactly the edited value (and every other byte unchanged) or raises OOError."""

from __future__ import annotations

import hashlib
import random
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from oo_nb.errors import OOError
from oo_nb.format.document import Document, neutralise_terminator
from tests.support.corpus import corpus_dir
from tests.support.figures import Figure
from tests.support.fuzz_inputs import binary_documents, mutate, structured_documents

__all__ = ["FuzzStats", "check_input", "fuzz"]

_HOSTILE_VALUE = "</script><script>alert(1)</script>\nOO_HTML\n<!-- $(touch pwned) \u2028"
_UNWRITABLE: tuple[dict[str, Any], ...] = ({"x": float("nan")}, {"x": "\ud800"}, {"x": {1, 2}})
_HOSTILE_ARTICLE = "\n<p>fuzz [s1]</p>\nOO_HTML\n<!-- pid:fuzz:00000000 -->\n<p>two</p>\n"


@dataclass
class FuzzStats:
    inputs: int = 0
    parsed: int = 0
    origins: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)  # OOError subclass -> count
    bugs: Counter[str] = field(default_factory=Counter)  # "stage: ExcType at file:line" -> count
    roundtrip_failures: int = 0
    views: int = 0
    edits: int = 0
    edits_refused: int = 0
    edit_failures: Counter[str] = field(default_factory=Counter)
    examples: dict[str, bytes] = field(default_factory=dict)  # first input of each problem

    def problem(self, key: str, data: bytes, counter: Counter[str] | None = None) -> None:
        (self.bugs if counter is None else counter)[key] += 1
        self.examples.setdefault(key, data)


def _where(exc: BaseException) -> str:
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if "/oo_nb/" in f.filename and "/testing/" not in f.filename
    ]
    last = frames[-1] if frames else None
    return f"{Path(last.filename).name}:{last.lineno}" if last else "?"


def _guard(stats: FuzzStats, data: bytes, stage: str, fn: Callable[[], Any]) -> Any:
    """Run ``fn``; an OOError is a fine answer (None), anything else is a bug."""
    try:
        return fn()
    except OOError:
        return None
    except Exception as exc:
        stats.problem(f"{stage}: {type(exc).__name__} at {_where(exc)}: {str(exc)[:80]}", data)
        return None


def _touch_views(doc: Document) -> None:
    _ = doc.kind, doc.layout, doc.line_of(len(doc.text)), doc.marker
    for name in list(doc.blocks):
        doc.block_json(name)


def _view_fns(doc: Document) -> dict[str, Callable[[], Any]]:
    return {
        "manifest": lambda: doc.manifest,
        "contract": lambda: (c := doc.contract, c.is_sentinel),
        "source_cache": lambda: (s := doc.source_cache, s.by_id()),
        "changelog": lambda: (c := doc.changelog, c.latest),
        "article": lambda: (a := doc.article, a.excerpt, a.cited_ids),
        "blocks": lambda: _touch_views(doc),
    }


def _same_outside(old: Document, new: Document, start: int, end: int) -> bool:
    tail = len(old.text) - end
    return (
        new.text[:start] == old.text[:start] and new.text[len(new.text) - tail :] == old.text[end:]
    )


def _check_block_edit(doc: Document, name: str, value: Any, stats: FuzzStats, data: bytes) -> None:
    stats.edits += 1
    try:
        new = doc.with_block(name, value)
    except OOError:
        stats.edits_refused += 1
        return
    except Exception as exc:
        stats.problem(f"with_block: {type(exc).__name__} at {_where(exc)}: {str(exc)[:80]}", data)
        return
    span = doc.blocks[name]
    try:
        again = Document.parse(new.to_bytes())
        ok = again.block_json(name) == value and _same_outside(doc, again, span.start, span.end)
    except Exception as exc:
        stats.problem(
            f"with_block result unreadable: {type(exc).__name__}: {str(exc)[:80]}",
            data,
            stats.edit_failures,
        )
        return
    if not ok:
        stats.problem(
            "with_block: value or surrounding bytes differ after re-parse",
            data,
            stats.edit_failures,
        )


def _check_article_edit(doc: Document, html: str, stats: FuzzStats, data: bytes) -> None:
    if doc.article_span is None:
        return
    stats.edits += 1
    try:
        new = doc.with_article(html)
    except OOError:
        stats.edits_refused += 1
        return
    except Exception as exc:
        stats.problem(f"with_article: {type(exc).__name__} at {_where(exc)}: {str(exc)[:80]}", data)
        return
    expected = neutralise_terminator(html, doc.marker)
    if doc.article_newline == "\r\n":  # (the article's own line ending: CRLF in an LF page too)
        expected = expected.replace("\r\n", "\n").replace("\n", "\r\n")
    span = doc.article_span
    try:
        again = Document.parse(new.to_bytes())
        ok = again.article_html == expected and _same_outside(doc, again, span.start, span.end)
        ok = ok and all(again.block_text(n) == doc.block_text(n) for n in doc.blocks)
    except Exception as exc:
        stats.problem(
            f"with_article result unreadable: {type(exc).__name__}: {str(exc)[:80]}",
            data,
            stats.edit_failures,
        )
        return
    if not ok:
        stats.problem(
            "with_article: the article or other bytes differ after re-parse",
            data,
            stats.edit_failures,
        )


def _hostile(value: Any) -> Any:
    if isinstance(value, dict):
        return {**value, "fuzz": _HOSTILE_VALUE}
    if isinstance(value, list):
        return [*value, _HOSTILE_VALUE]
    return _HOSTILE_VALUE


def check_input(data: bytes, stats: FuzzStats, origin: str = "", *, edits: bool = True) -> None:
    """All the checks of the module doc for one input."""
    stats.inputs += 1
    stats.origins[origin.split("+")[0]] += 1
    try:
        doc = Document.parse(data)
    except OOError as exc:
        stats.rejected[type(exc).__name__] += 1
        return
    except Exception as exc:
        stats.problem(f"parse: {type(exc).__name__} at {_where(exc)}: {str(exc)[:80]}", data)
        return
    stats.parsed += 1
    if doc.to_bytes() != data or doc.text.encode("utf-8") != data:
        stats.roundtrip_failures += 1
        stats.examples.setdefault("round trip", data)
    for stage, fn in _view_fns(doc).items():
        stats.views += 1
        _guard(stats, data, stage, fn)
    if not edits:
        return
    for name in list(doc.blocks):
        try:
            value = doc.block_json(name)
        except Exception:  # already counted by the views above when it was not an OOError
            continue
        _check_block_edit(doc, name, value, stats, data)
        _check_block_edit(doc, name, _hostile(value), stats, data)
        # Values that cannot be written must be refused with an OOError, never half-written.
        for bad in _UNWRITABLE:
            stats.edits += 1
            if (
                _guard(stats, data, "with_block(unwritable)", partial(doc.with_block, name, bad))
                is not None
            ):
                stats.problem("with_block accepted an unwritable value", data, stats.edit_failures)
            else:
                stats.edits_refused += 1
    if doc.article_span is not None:
        html = doc.article_html
        _check_article_edit(doc, html + _HOSTILE_ARTICLE, stats, data)
        _check_article_edit(doc, html.replace("<p>", "<p>x", 1)[: len(html) // 2], stats, data)
        _check_article_edit(
            doc, '<p>a</p></article><script>alert(1)</script><article id="article">', stats, data
        )


def _corpus_inputs() -> list[bytes]:
    folder = corpus_dir()
    return [p.read_bytes() for p in sorted(folder.glob("*.o-o.html"))]


def fuzz(
    total: int, *, seed: int = 0, workdir: Path | None = None, required: int | None = None
) -> tuple[list[Figure], FuzzStats]:
    """``total`` inputs: 70% mutations of corpus documents, 30% hypothesis strategies
    (structured documents and raw bytes). Failing inputs are saved to ``workdir``."""
    stats = FuzzStats()
    rng = random.Random(seed)
    corpus = _corpus_inputs()
    for doc_bytes in corpus:
        check_input(doc_bytes, stats, "corpus")
    n_mut = int(total * 0.7) - len(corpus)
    for _ in range(n_mut):
        origin, data = mutate(rng.choice(corpus), rng)
        check_input(data, stats, origin, edits=rng.random() < 0.5)
    n_hyp = total - stats.inputs
    _run_hypothesis(stats, structured_documents(), "hypothesis-structured", n_hyp * 2 // 3, seed)
    _run_hypothesis(stats, binary_documents(), "hypothesis-binary", total - stats.inputs, seed)
    if workdir is not None and stats.examples:
        workdir.mkdir(parents=True, exist_ok=True)
        for key, data in stats.examples.items():
            name = hashlib.sha256(key.encode()).hexdigest()[:12]
            (workdir / f"{name}.bin").write_bytes(data)
            (workdir / f"{name}.txt").write_text(key + "\n", "utf-8")
    bugs = sum(stats.bugs.values())
    edit_failures = sum(stats.edit_failures.values())
    origins = ", ".join(f"{k} {v}" for k, v in stats.origins.most_common(6))
    rows = [
        Figure(
            "3 fuzz",
            "inputs (corpus mutations + hypothesis)",
            stats.inputs,
            stats.inputs,
            f"≥ {required}" if required else "info (reduced run)",
            stats.inputs >= required if required else None,
        ),
        Figure("3 fuzz", "… by generator (top 6)", stats.inputs, origins, "info", None),
        Figure("3 fuzz", "inputs that parse", stats.inputs, stats.parsed, "info", None),
        Figure(
            "3 fuzz",
            "exceptions other than OOError",
            stats.inputs + stats.views + stats.edits,
            bugs,
            "0",
            bugs == 0,
        ),
        Figure(
            "3 fuzz",
            "round trip not byte-identical",
            stats.parsed,
            stats.roundtrip_failures,
            "0",
            stats.roundtrip_failures == 0,
        ),
        Figure(
            "3 fuzz", "view accesses (manifest…article)", stats.views, stats.views, "info", None
        ),
        Figure(
            "3 fuzz",
            "edits giving a wrong/unreadable doc",
            stats.edits,
            edit_failures,
            "0",
            edit_failures == 0,
        ),
        Figure(
            "3 fuzz", "edits refused with OOError", stats.edits, stats.edits_refused, "info", None
        ),
    ]
    return rows, stats


def _run_hypothesis(
    stats: FuzzStats, strategy: st.SearchStrategy[bytes], origin: str, count: int, seed: int
) -> None:
    if count <= 0:
        return

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(data: bytes) -> None:
        check_input(data, stats, origin)

    run()
