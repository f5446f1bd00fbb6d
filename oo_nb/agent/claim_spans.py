"""A claim's text read with its citations in place (``claims.py``): as *spans*, each run of words
with the citations that close it (the sources that wording rests on), and as one sequence of
tokens (a paragraph split in two, or two merged, keeps it: ``regrouped``).

A citation is written ``[sN]`` after the words it sources (``format/vocab.CITATION``); a run of
them (``[s1][s4]``) closes one span. Words after the last citation form a span closed by none.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Hashable, Sequence

from oo_nb.format.vocab import CITATION, cited_id

__all__ = [
    "Span",
    "is_citation",
    "marked_tokens",
    "marked_tokens_at",
    "regrouped",
    "spans",
    "unread_grounds",
]

TOKEN = re.compile(r"\w+|[^\w\s]")  # a word, or one punctuation mark
_MARK = "["  # a citation token is "[sN]" (no word or mark token starts so and is longer)

Span = tuple[
    tuple[str, ...], tuple[str, ...]
]  # (words and marks, the ids of the citations closing it)


def marked_tokens(text: str) -> tuple[str, ...]:
    """The words and punctuation marks of ``text`` with each citation in place as ``[sN]``
    (its source id: "[S03]" reads "[s3]")."""
    return tuple(token for _, token in marked_tokens_at(text))


def marked_tokens_at(text: str) -> list[tuple[int, str]]:
    """``marked_tokens``, each with the offset in ``text`` where it starts."""
    out: list[tuple[int, str]] = []
    at = 0
    for m in CITATION.finditer(text):
        out += [(t.start(), t.group()) for t in TOKEN.finditer(text, at, m.start())]
        out.append((m.start(), f"[{cited_id(m)}]"))
        at = m.end()
    out += [(t.start(), t.group()) for t in TOKEN.finditer(text, at)]
    return out


def is_citation(token: str) -> bool:
    return len(token) > 1 and token[0] == _MARK


def spans(tokens: Sequence[str]) -> list[Span]:
    """Each run of words with the run of citations right after it, in order (the last run of
    words with ``()`` when no citation closes it)."""
    out: list[Span] = []
    words: list[str] = []
    cites: list[str] = []
    for token in tokens:
        if is_citation(token):
            cites.append(token[1:-1])
            continue
        if cites:
            out.append((tuple(words), tuple(dict.fromkeys(cites))))
            words, cites = [], []
        words.append(token)
    if words or cites:
        out.append((tuple(words), tuple(dict.fromkeys(cites))))
    return out


def unread_grounds(
    before: Sequence[str] | None, after: Sequence[str], cites: Sequence[str], read: Collection[str]
) -> list[str]:
    """The sources, not read in this run, that a changed wording of ``after`` rests on (``[]``:
    every changed wording rests only on sources the run read). ``before``: the claim's tokens
    before the update (None for a new claim); ``cites``: the ids ``after`` cites.

    A changed wording rests on the citations closing its span; on every source of the claim
    when none closes it. Several sources closing it, some not read: which one the new words
    rest on cannot be told, so the unread ones count. A span whose words were kept but whose
    closing citations changed is a changed claim too (citations traded between two sentences
    of a paragraph keep its set of sources): it rests on the sources that closed it and on
    those that close it now, unless citations were only added (its old support stands: only
    the added ones count). A span whose words went rests on the sources that closed it, where
    still cited."""
    old = Counter(spans(before or ()))
    reworded: list[Span] = []
    for span in spans(after):
        if old[span] > 0:
            old[span] -= 1
        else:
            reworded.append(span)
    closings_of: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for words, closing in old.elements():  # (the old spans no new span matches exactly)
        closings_of.setdefault(words, []).append(closing)
    grounds: list[str] = []
    for words, closing in reworded:
        was = closings_of.get(words)
        if not was:
            grounds += closing or cites
            continue
        before_closing = was.pop(0)
        if set(closing) >= set(before_closing):
            grounds += [k for k in closing if k not in before_closing]
        else:
            grounds += [k for k in before_closing if k in cites] + list(closing)
    for went in closings_of.values():  # (spans whose words went)
        grounds += [k for closing in went for k in closing if k in cites]
    return [k for k in dict.fromkeys(grounds) if k not in read]


def regrouped(
    old: Sequence[Sequence[Hashable]], new: Sequence[Sequence[Hashable]]
) -> tuple[set[int], set[int]]:
    """Which of ``old``'s and ``new``'s claims (their tokens, in document order, those an update
    changed in one section) only regroup: a run of old claims and a run of new ones, more than
    one claim in all, whose tokens read as one sequence are the same (a paragraph split in two,
    two merged; the text is cut at other paragraph boundaries, never reordered, so no word or
    citation changes place). A new claim may not start with a citation (a cut between words
    and the citation closing them leaves those words unsourced). Returns their indices in
    ``old`` and in ``new``. Each old claim, in order, is tried as the start of a run against
    each new claim not yet taken (a new paragraph or an edit elsewhere in the section is passed
    over)."""
    out_old: set[int] = set()
    out_new: set[int] = set()
    for i in range(len(old)):
        if i in out_old or not old[i]:
            continue
        for k in range(len(new)):
            if k in out_new or not new[k] or new[k][0] != old[i][0]:
                continue
            run = _run(old, new, i, k, out_old, out_new)
            if run is not None:
                out_old.update(run[0])
                out_new.update(run[1])
                break
    return out_old, out_new


def _run(
    old: Sequence[Sequence[Hashable]],
    new: Sequence[Sequence[Hashable]],
    i: int,
    k: int,
    taken_old: set[int],
    taken_new: set[int],
) -> tuple[range, range] | None:
    """The run of old claims from ``i`` and of new ones from ``k`` (none already taken) that read
    as the same sequence, more than one claim in all; None when there is none."""
    o, n = i + 1, k + 1
    have, want = tuple(old[i]), tuple(new[k])
    while have != want:
        if have[: len(want)] == want and n < len(new) and n not in taken_new:
            want += tuple(new[n])
            n += 1
        elif want[: len(have)] == have and o < len(old) and o not in taken_old:
            have += tuple(old[o])
            o += 1
        else:
            return None
    if o - i + n - k <= 2 or any(_starts_cited(new[j]) for j in range(k, n)):
        return None
    return range(i, o), range(k, n)


def _starts_cited(tokens: Sequence[Hashable]) -> bool:
    """Whether a claim's first token is a citation (``tokens`` as ``marked_tokens`` writes
    them, or each paired with what it reads in: ``claim_markup``)."""
    first = tokens[0] if tokens else ""
    first = first[0] if isinstance(first, tuple) else first
    return isinstance(first, str) and is_citation(first)
