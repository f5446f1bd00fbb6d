"""What a claim's words read *in* (``claims.py``): the markup around each token that changes
what the words say to a reader, read from the article model (``format/article_model``).

The same words and citations struck out (``<del>``, ``<s>``: shown retracted), marked inserted,
made a quotation (``<q>``, inside a ``<blockquote>``: someone else's words, not the document's
claim), raised or lowered (``10<sup>3</sup>`` reads a thousand, ``10<sub>3</sub>`` an index), or
shown right to left (a ``dir`` attribute reorders what is shown), or a ranked list numbered
otherwise (an ``<ol>``'s ``start``, ``reversed``) are another claim: a change of that markup
around words an update kept is held (``markup_changes``). Emphasis, code, small print and the like change how
text looks, not what it says.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from difflib import SequenceMatcher

from oo_nb.agent.claim_spans import marked_tokens_at
from oo_nb.format.article_model import UNSEEN, Node

__all__ = ["MEANING_TAGS", "markup_changes", "read_in"]

# The elements of the sanitiser's allow-list (``format/sanitize.ALLOWED_TAGS``; a test holds
# them in it) that change what the text inside them says; ``strike`` is dropped by the sanitiser
# but is read here too, should an article hold one.
MEANING_TAGS = frozenset({"blockquote", "del", "ins", "q", "s", "strike", "sub", "sup"})
_DIRECTION = "dir"  # the allowed attribute that changes how text reads on any element
_NUMBERING = ("start", "reversed")  # an <ol>'s: the numbers a ranking shows its items with


def read_in(node: Node, holder: Node | None = None) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``node``'s visible text, its tokens (``claim_spans.marked_tokens``) and what each token
    reads in: the meaning markup around it (``MEANING_TAGS``, a ``dir``), inside ``node`` and
    around it up to the article's root, written as one string ("" for none). ``holder``: the
    element a text node is in (a text node holds no link to it)."""
    outside = _around(holder if node.kind == "text" else node.parent)
    pieces: list[tuple[str, str]] = []  # (text, what it reads in)
    stack: list[tuple[Node, tuple[str, ...]]] = [(node, outside)]
    while stack:  # (a stack, not recursion: an article may nest thousands deep)
        one, marks = stack.pop()
        if one.kind == "text":
            pieces.append((one.data, " ".join(sorted(set(marks)))))
        elif one.kind == "element" and one.name not in UNSEEN:
            inner = marks + _marks_of(one)
            stack.extend((child, inner) for child in reversed(one.children))
    shown = "".join(text for text, _ in pieces)
    starts: list[int] = []
    at = 0
    for text, _ in pieces:
        starts.append(at)
        at += len(text)
    tokens = marked_tokens_at(shown)
    reads = tuple(pieces[bisect_right(starts, offset) - 1][1] for offset, _ in tokens)
    return shown, tuple(token for _, token in tokens), reads


def markup_changes(
    before: Sequence[str], before_in: Sequence[str], after: Sequence[str], after_in: Sequence[str]
) -> list[str]:
    """The meaning markup put around, or taken from, tokens an update kept (a claim's tokens
    and what each reads in, before and after; ``[]``: none). New words in new markup are new
    wording, judged as such (``claim_spans.unread_grounds``)."""
    if not any(before_in) and not any(after_in):
        return []
    if before == after and before_in == after_in:
        return []
    out: list[str] = []
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    for i, j, size in matcher.get_matching_blocks():
        for was, now in zip(before_in[i : i + size], after_in[j : j + size], strict=True):
            if was != now:
                out += sorted(set(was.split()) ^ set(now.split()))
    return list(dict.fromkeys(out))


def _marks_of(element: Node) -> tuple[str, ...]:
    marks: tuple[str, ...] = (element.name,) if element.name in MEANING_TAGS else ()
    direction = element.attr(_DIRECTION)
    if direction is not None:
        marks += (f"dir={''.join(direction.split()).casefold()}",)
    # (no class: the sanitiser keeps none the page's style sheets give a rule, such as
    # ``contract-panel``'s ``display: none``, and taking off the stub's ``stub-notice`` is what a
    # first update does)
    if element.name == "ol":
        marks += tuple(
            f"{name}={element.attr(name)}" for name in _NUMBERING if element.attr(name) is not None
        )
    return marks


def _around(element: Node | None) -> tuple[str, ...]:
    """The meaning markup of ``element`` and the elements it is in."""
    marks: tuple[str, ...] = ()
    while element is not None:
        marks += _marks_of(element) if element.kind == "element" else ()
        element = element.parent
    return marks
