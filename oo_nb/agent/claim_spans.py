"""A claim's text read with its citations in place (``claims.py``): as *spans*, each run of words
with the citations that close it (the sources that wording rests on), and as *sentences*, each
with the citations it carries (a paragraph split in two at a sentence, or two merged, keeps them).

A citation is written ``[sN]`` after the words it sources (``format/vocab.CITATION``); a run of
them (``[s1][s4]``) closes one span. Words after the last citation form a span closed by none.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence

from oo_nb.format.vocab import CITATION, cited_id

__all__ = ["Span", "marked_tokens", "regrouped", "sentences", "spans", "unread_grounds"]

TOKEN = re.compile(r"\w+|[^\w\s]")  # a word, or one punctuation mark
_MARK = "["  # a citation token is "[sN]" (no word or mark token starts so and is longer)
_SENTENCE_END = frozenset(".!?")

Span = tuple[
    tuple[str, ...], tuple[str, ...]
]  # (words and marks, the ids of the citations closing it)


def marked_tokens(text: str) -> tuple[str, ...]:
    """The words and punctuation marks of ``text`` with each citation in place as ``[sN]``
    (its source id: "[S03]" reads "[s3]")."""
    out: list[str] = []
    at = 0
    for m in CITATION.finditer(text):
        out += TOKEN.findall(text, at, m.start())
        out.append(f"[{cited_id(m)}]")
        at = m.end()
    out += TOKEN.findall(text, at)
    return tuple(out)


def _is_citation(token: str) -> bool:
    return len(token) > 1 and token[0] == _MARK


def spans(tokens: Sequence[str]) -> list[Span]:
    """Each run of words with the run of citations right after it, in order (the last run of
    words with ``()`` when no citation closes it)."""
    out: list[Span] = []
    words: list[str] = []
    cites: list[str] = []
    for token in tokens:
        if _is_citation(token):
            cites.append(token[1:-1])
            continue
        if cites:
            out.append((tuple(words), tuple(dict.fromkeys(cites))))
            words, cites = [], []
        words.append(token)
    if words or cites:
        out.append((tuple(words), tuple(dict.fromkeys(cites))))
    return out


def sentences(tokens: Sequence[str]) -> list[tuple[str, ...]]:
    """The sentences of ``tokens``, each with its citations in place: a sentence ends at ``.``,
    ``!`` or ``?`` (and the citations right after it) where a word follows."""
    out: list[tuple[str, ...]] = []
    current: list[str] = []
    ended = False
    for token in tokens:
        if ended and not _is_citation(token) and token not in _SENTENCE_END:
            out.append(tuple(current))
            current, ended = [], False
        current.append(token)
        ended = ended or token in _SENTENCE_END
    if current:
        out.append(tuple(current))
    return out


def unread_grounds(
    before: Sequence[str] | None, after: Sequence[str], cites: Sequence[str], read: Collection[str]
) -> list[str]:
    """The sources, not read in this run, that a changed wording of ``after`` rests on (``[]``:
    every changed wording rests only on sources the run read). ``before``: the claim's tokens
    before the update (None for a new claim); ``cites``: the ids ``after`` cites.

    A changed wording rests on the citations closing its span; on every source of the claim
    when none closes it. Several sources closing it, some not read: which one the new words
    rest on cannot be told, so the unread ones count. A span whose words were kept and only its
    citations changed is no changed wording (new citations and lost ones are reasons of their
    own); a span whose words went rests on the sources that closed it, where still cited."""
    old = Counter(spans(before or ()))
    old_words = Counter(words for words, _ in old.elements())
    grounds: list[str] = []
    for span in spans(after):
        words, closing = span
        if old[span] > 0:
            old[span] -= 1
            old_words[words] -= 1
        elif old_words[words] > 0:
            old_words[words] -= 1
        else:
            grounds += closing or cites
    for (words, closing), left in old.items():  # (kept spans were taken off: what went is left)
        if left > 0 and old_words[words] > 0:
            grounds += [k for k in closing if k in cites]
    return [k for k in dict.fromkeys(grounds) if k not in read]


def regrouped(
    old: Sequence[Sequence[str]], new: Sequence[Sequence[str]]
) -> tuple[set[int], set[int]]:
    """Which of ``old``'s and ``new``'s claims (their tokens, in document order, those an update
    changed in one section) only regroup sentences: a run of old claims and a run of new ones
    holding the same sentences with the same citations (a multiset), more than one claim in all
    (a paragraph split in two at a sentence, two merged, sentences reordered). Returns their
    indices in ``old`` and in ``new``. Runs are matched from the start of both lists; where a
    claim's sentences fit neither side (an edit), both heads are passed over."""
    old_sentences = [Counter(sentences(t)) for t in old]
    new_sentences = [Counter(sentences(t)) for t in new]
    out_old: set[int] = set()
    out_new: set[int] = set()
    i = k = 0
    while i < len(old) and k < len(new):
        o, n = i + 1, k + 1
        have, want = old_sentences[i].copy(), new_sentences[k].copy()
        while have != want:
            if want <= have and n < len(new):
                want += new_sentences[n]
                n += 1
            elif have <= want and o < len(old):
                have += old_sentences[o]
                o += 1
            else:
                break
        if have == want:
            out_old.update(range(i, o))
            out_new.update(range(k, n))
            i, k = o, n
        else:
            i, k = i + 1, k + 1
    return out_old, out_new
