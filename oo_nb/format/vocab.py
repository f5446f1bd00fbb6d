"""The words every package shares, each defined once: the citation token, the id attribute,
which URLs name the same page, which domain a deny or prefer entry covers, the characters text
shown to a reader must not carry, and how long text is cut.

It lives in ``format`` (not beside ``netguard``/``redaction``): only format and the packages above
it use these rules. The table of cases all callers must answer alike is tests/format/test_vocab.py.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

__all__ = [
    "AGENT_PID",
    "AGENT_PID_COMMENT",
    "CITATION",
    "CITATION_WITH_SPACE",
    "ID_ATTRIBUTE",
    "JS_SPACE",
    "LEADING_CITATION",
    "PID",
    "PID_WELLFORMED",
    "SOURCE_ID",
    "UNSAFE_CHARS",
    "UNSAFE_IN_LINE",
    "bound_pid",
    "citation_ids",
    "cited_id",
    "cited_label",
    "comment_pid",
    "domain_matches",
    "domain_of",
    "domain_pattern",
    "domain_patterns",
    "each_cited_id",
    "entry_label",
    "entry_source",
    "entry_source_id",
    "is_source_id",
    "js_trim",
    "linked_entry",
    "listed_domain",
    "matched_pattern",
    "normal_host",
    "source_id_of",
    "strip_unsafe",
    "tag_id",
    "terminal_safe",
    "trailing_citations",
    "truncate",
    "unsafe_found",
    "url_key",
]

# --------------------------------------------------------------------------- citations
# ASCII digits only, as the page's own script reads them (JavaScript's \d): "[s١]" is no citation.
# A citation is read as the page's script links it (/\[[sS](\d+)\]/): "[S3]" cites s3 as "[s3]"
# does, and "[s02]" cites s2: the script looks "s02" up among the References labels, else takes
# entry Number("02"), the entry the References numbering gives s2. A source's id is lower case
# with no leading zero, so read an id out of a match with ``cited_id`` (or take
# ``citation_ids``), never from the group itself.
SOURCE_ID = re.compile(r"s[0-9]+")
CITATION = re.compile(r"\[([sS][0-9]+)\]")
CITATION_WITH_SPACE = re.compile(r"(\s?)\[([sS][0-9]+)\]")  # removing one takes its space too
# JavaScript's white space (its \s, what String.trim strips): the page script reads labels and
# headings with it; Python's str.isspace leaves out U+FEFF and takes in U+001C..U+001F and U+0085.
JS_SPACE = (
    "\t\n\v\f\r \xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000\ufeff")
)
# A References entry's own label, by .match, as the page script reads it (/^\s*\[([sS]\d+)\]/,
# lower-cased: ``entry_label``).
LEADING_CITATION = re.compile(f"[{re.escape(JS_SPACE)}]*\\[([sS][0-9]+)\\]")


def entry_label(text: str) -> str | None:
    """The label a References entry's text starts with, as the page script keys it ("[S03] ..."
    is "s03": the entry's id in the page), or None; the source it names is ``source_id_of``."""
    m = LEADING_CITATION.match(text)
    return m.group(1).lower() if m else None


def source_id_of(token: str) -> str:
    """The source id a citation or label token names: "S03" and "s3" name "s3" (the page links
    "[s03]" to entry 3 when no entry is labelled "[s03]"). No int(): a token may be long."""
    if token[0] == "s" and token[1] != "0":
        return token  # (most: "s12" as written)
    digits = token[1:].lstrip("0") or "0"
    return "s" + digits


def entry_source(text: str) -> str | None:
    """The source id a References entry's label names ("[S03] ..." names "s3"), or None."""
    label = entry_label(text)
    return None if label is None else source_id_of(label)


def linked_entry(source_id: str, labels: Sequence[str | None]) -> int | None:
    """The index of the References entry the page links a citation of ``source_id`` to, as its
    script does (``byLabel[label] || items[N - 1]``): the first entry labelled with it, else the
    N-th entry whatever its label; None when there is neither. ``labels``: each entry's
    ``entry_source`` (None when it has no label), in order. (The preview, which links the text
    as written, passes each ``entry_label`` and a ``cited_label``: "[s02]" by "s02".)"""
    if source_id in labels:
        return labels.index(source_id)
    digits = source_id[1:]
    if not (source_id.startswith("s") and digits.isascii() and digits.isdigit()):
        return None
    n = int(digits) if len(digits) <= 9 else 0  # (a longer token is past any list)
    return n - 1 if 1 <= n <= len(labels) else None


def entry_source_id(
    label: str | None, position: int, href: str, ids_by_url: Mapping[str, Sequence[str]]
) -> str:
    """The source a References entry stands for when the list is edited source by source: its
    label's (``entry_source``); unlabelled, the cached source whose URL it links (``url_key``),
    the one of its own position when that one has it (one URL under two ids, issue 26), else the
    first; else the source of its position, as the page numbers it. ``ids_by_url``: url_key ->
    the cache's ids with that URL, in order."""
    if label is not None:
        return label
    own = f"s{position}"
    ids = ids_by_url.get(url_key(href), ()) if href else ()  # no link: never an empty URL's id
    return own if own in ids or not ids else ids[0]


def js_trim(text: str) -> str:
    """``text.trim()`` as the page script does it."""
    return text.strip(JS_SPACE)


# The trailing run of markers of a string fact ("text [s17] [s18]"), matched on the reversed
# text: a search for (?:\s*\[s\d+\])+\s*$ tries every position of a long fact, this only the end.
_TRAILING_REVERSED = re.compile(r"\s*(?:\][0-9]+[sS]\[\s*)+")


# A pid comment: ``pid:SECTION:8HEX`` when well formed. Any ``pid:`` comment without spaces
# counts as one (``pid:overview`` in some files, non-hex ids in others, FORMAT.md §3): it names
# the next element, and the audit reports it as malformed rather than as a missing pid.
# Its white space is JavaScript's (the page's bindPids reads /^\s*pid:(\S+)\s*$/): U+FEFF around
# the pid is space, U+001C before "pid:" makes it no pid comment.
_JS_CLASS = re.escape(JS_SPACE)
PID = re.compile(f"^[{_JS_CLASS}]*pid:([^:{_JS_CLASS}]+)(?::([^{_JS_CLASS}]+))?[{_JS_CLASS}]*$")
PID_WELLFORMED = re.compile(  # PID with an 8HEX id, by .match
    f"[{_JS_CLASS}]*pid:[^:{_JS_CLASS}]+:[0-9a-f]{{8}}[{_JS_CLASS}]*$"
)
# The pids agent-written HTML may carry through the sanitiser: stricter than PID (which reads
# what any document holds), as the value travels in an attribute and comes back as a comment:
# only id characters, so nothing in it can end either; any id (not only 8HEX), so a paragraph
# the agent rewrites keeps the pid an older document gave it.
_AGENT_PID = r"pid:[A-Za-z0-9_-]{1,80}:[A-Za-z0-9_-]{1,40}"
AGENT_PID = re.compile(_AGENT_PID)  # the value alone, by .fullmatch
AGENT_PID_COMMENT = re.compile(rf"\s*({_AGENT_PID})\s*")  # a comment's text, by .fullmatch


def comment_pid(text: str) -> str | None:
    """The pid a comment's text names (``pid:SECTION:ID``, trimmed as the page trims it), or
    None when it is no pid comment."""
    return js_trim(text) if PID.match(text) else None


def bound_pid(data_pid: str | None, comment_pids: list[str]) -> str | None:
    """The pid the page's bindPids gives an element: its own ``data-pid`` (never overridden),
    else the FIRST pid comment since the element before it (a later one finds the attribute
    set). ``comment_pids``: those comments' pids, in order.

    The pid is in the comment's form, ``pid:SECTION:ID``, from either (the page writes a
    comment's ``pid:a:1`` as ``data-pid="a:1"``), so check, the scan and the edit read one."""
    first = comment_pids[0] if comment_pids else None
    if data_pid is None or (first is not None and first.removeprefix("pid:") == data_pid):
        return first
    return f"pid:{data_pid}" if data_pid else None  # (an empty one: the page sets none over it)


def is_source_id(text: str) -> bool:
    return SOURCE_ID.fullmatch(text) is not None


def cited_id(match: re.Match[str]) -> str:
    """The source id a ``CITATION`` or ``CITATION_WITH_SPACE`` match names ("[S3]" and "[s03]"
    name "s3")."""
    return source_id_of(match.group(match.lastindex or 0))  # (the id is the last group)


def cited_label(match: re.Match[str]) -> str:
    """The label the page script looks a ``CITATION`` match up by ("[S03]" by "s03")."""
    return match.group(match.lastindex or 0).lower()


def each_cited_id(text: str) -> list[str]:
    """The id of every citation in ``text``, in order, repeats kept (``cited_id`` of each
    ``CITATION`` match, read by ``findall``: no match object per citation)."""
    return [source_id_of(token) for token in CITATION.findall(text)]


def citation_ids(text: str) -> list[str]:
    """The ids ``text`` cites, each once, in order of first citation."""
    return list(dict.fromkeys(cited_id(m) for m in CITATION.finditer(text)))


def trailing_citations(text: str) -> tuple[int, list[str]]:
    """Where the trailing run of ``[sN]`` markers (with the spaces around them) starts, and the
    ids it names in order; ``(len(text), [])`` when ``text`` does not end with one."""
    if not text.rstrip().endswith("]"):  # \s is what str.isspace is: no marker at the end
        return len(text), []
    run = _TRAILING_REVERSED.match(text[::-1])
    if run is None:
        return len(text), []
    start = len(text) - run.end()
    return start, [cited_id(m) for m in CITATION.finditer(text, start)]


# --------------------------------------------------------------------------- id attribute
# Inside one start tag already cut out; the article model reads attributes as a browser does.
# The name starts after a space, quote or "/": "data-id=" is another attribute (\b allowed it).
ID_ATTRIBUTE = re.compile(
    r"""(?<=[\s"'/])id\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE
)


def _id_value(m: re.Match[str]) -> str:
    double, single, bare = m.groups()  # (one of them matched)
    return double if double is not None else single if single is not None else bare


def tag_id(tag: str) -> str | None:
    """The id of one start tag (its text), or None."""
    m = ID_ATTRIBUTE.search(tag)
    return _id_value(m) if m else None


# --------------------------------------------------------------------------- URLs and domains
# Parameters that say who sent the reader, not which page: dropped from the key.
_TRACKING = re.compile(r"utm_\w+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|ref_src", re.IGNORECASE)
# An http(s) URL whose host is plain ASCII: the host is what urlsplit would find, a tenth of its
# cost, which a scan pays for every cached source. Spelled out rather than IGNORECASE, which also
# lets "ſ" stand for "s" (a scheme urlsplit refuses).
_PLAIN_HOST = re.compile(r"[hH][tT][tT][pP][sS]?://([A-Za-z0-9.-]+)(?::[0-9]*)?(?=[/?#]|\Z)")
# The same host with no scheme (a string source's "ft.com"), which urlsplit reads after "//".
_BARE_HOST = re.compile(r"([A-Za-z0-9.-]+)(?::[0-9]*)?(?=[/?#]|\Z)")


def _with_authority(url: str) -> str:
    """``url`` as urlsplit finds its host: a bare ``host/path`` (a string source's) gets "//".
    A backslash is a slash, as a browser reads an http(s) URL: ``https://denied.com\\.x/`` is
    on denied.com."""
    url = url.replace("\\", "/")
    return url if "//" in url else "//" + url


def normal_host(host: str) -> str:
    """A host as compared: lower case, no trailing dot, no ``www.``, IDNA in its ASCII form."""
    if "%" in host:  # a browser decodes it: "denied%2Ecom" is denied.com
        host = unquote(host, errors="strict") if _is_utf8_escape(host) else host
    host = host.lower().removeprefix("www.").rstrip(".")
    if not host.isascii():
        with contextlib.suppress(UnicodeError):  # not a valid IDNA name: compared as written
            host = host.encode("idna").decode("ascii")
    return host


def _is_utf8_escape(host: str) -> bool:
    try:
        unquote(host, errors="strict")
    except UnicodeDecodeError:
        return False
    return True


def domain_of(url: str) -> str:
    """The domain a URL (or a bare ``host/path``) is on, as compared (see ``_host``)."""
    url = url.replace("\\", "/")  # before asking whether it has "//": "http:/\\x" is on x
    plain = (_PLAIN_HOST if "//" in url else _BARE_HOST).match(url)
    if plain is not None:
        return normal_host(plain.group(1))
    try:
        host = urlsplit(_with_authority(url)).hostname or ""
    except ValueError:
        return ""
    return normal_host(host)


@functools.lru_cache(maxsize=65536)  # the audit keys every cached source at each run: ~17 µs each
def url_key(url: str) -> str:
    """What identifies the page a URL names: ``http://www.X.com:80/a/?utm_source=y#top`` and
    ``https://x.com/a`` give the same key. Scheme, ``www.``, default ports, a trailing slash, the
    fragment and tracking parameters do not count; the path's case and every other query
    parameter do (``?id=1`` and ``?id=2`` are two pages)."""
    text = url.strip()
    try:
        parts = urlsplit(_with_authority(text))
        host = normal_host(parts.hostname or "")
        port = parts.port
    except ValueError:
        return text.lower()
    if port and port not in (80, 443):
        host = f"{host}:{port}"
    path = parts.path.rstrip("/") or "/"  # "", "/" and "//" all name the root
    # surrogateescape: bytes that are not UTF-8 (a Latin-1 query, %E9 vs %FF) stay distinct;
    # decoded as U+FFFD they made two pages one, and a merge rewrites citations
    pairs = parse_qsl(parts.query, keep_blank_values=True, errors="surrogateescape")
    kept = [(k, v) for k, v in pairs if not _TRACKING.fullmatch(k)]
    query = urlencode(kept, encoding="utf-8", errors="surrogateescape")
    return urlunsplit(("", host, path, query, ""))


def domain_pattern(entry: str) -> str:
    """A deny or prefer entry as the domain it covers: ``example.com``, ``.example.com``,
    ``*.example.com``, ``https://www.Example.com/x`` and ``example.com.`` all give
    ``example.com`` (which covers its subdomains too); "" when it names none."""
    return domain_of(entry.strip().lstrip("*.")).lstrip(".")


@functools.lru_cache(maxsize=4096)  # few distinct policies in a library
def domain_patterns(entries: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p for p in map(domain_pattern, entries) if p))


@functools.lru_cache(maxsize=65536)  # few distinct (domain, policy) pairs in a library
def matched_pattern(host: str, patterns: tuple[str, ...]) -> str | None:
    """The first of ``patterns`` (from ``domain_patterns``) that ``host`` is, or is under."""
    for p in patterns:
        if host == p or host.endswith("." + p):
            return p
    return None


def domain_matches(host: str, entry: str) -> bool:
    """``host`` (or a URL) is the domain a deny/prefer ``entry`` covers, or a subdomain of it."""
    pattern = domain_pattern(entry)
    return bool(pattern) and matched_pattern(domain_of(host), (pattern,)) is not None


def listed_domain(url: str, entries: Iterable[str]) -> str | None:
    """The domain of a deny/prefer list that ``url`` is on, if any."""
    return matched_pattern(domain_of(url), domain_patterns(tuple(entries)))


# --------------------------------------------------------------------------- unsafe text
# C0 controls but tab and newline (a lone "\r" rewrites the line), DEL and C1 (ESC and CSI start
# terminal escapes); bidi controls, which reorder what a reader sees; zero-width characters that
# hide text; the line and paragraph separators U+2028/U+2029, which break a line where a
# reader (str.splitlines, a CSV reader, an editor) sees none, as NEL (U+0085) does. The joiners
# U+200C/U+200D stay: Persian, Indic scripts and emoji need them.
_CONTROLS = r"\x00-\x08\x0b-\x1f\x7f-\x9f"
_BIDI = r"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_INVISIBLE = r"\u200b\u2060-\u2064\ufeff"
_SEPARATORS = r"\u2028\u2029"
UNSAFE_CHARS = re.compile(f"[{_CONTROLS}{_BIDI}{_INVISIBLE}{_SEPARATORS}]")
# The same and tab and newline: for text that stays on one line (a title, a file name, a note
# from a hand-editable file printed to a terminal or a cron log).
UNSAFE_IN_LINE = re.compile(f"[{_CONTROLS}{_BIDI}{_INVISIBLE}{_SEPARATORS}\t\n]")


def strip_unsafe(text: str, replacement: str = " ") -> str:
    """``text`` with every unsafe character replaced (text kept: a title, a warning)."""
    return UNSAFE_CHARS.sub(replacement, text)


def _shown(char: str) -> str:
    return f"\\u{ord(char):04x}"  # every unsafe character is in the BMP


def terminal_safe(text: str) -> str:
    """``text`` for a terminal or a table: each unsafe character shown escaped (ESC as
    ``\\u001b``, a right-to-left override as ``\\u202e``), so a reader sees what was there and
    nothing moves the cursor or reorders the line. Inside a JSON string the escape means the same
    character, so JSON text stays the same data."""
    return UNSAFE_CHARS.sub(lambda m: _shown(m.group()), text)


def unsafe_found(text: str) -> list[str]:
    """The unsafe characters in ``text``, each once, escaped as ``terminal_safe`` shows them:
    for a warning or a finding that names what it saw."""
    return list(dict.fromkeys(map(_shown, UNSAFE_CHARS.findall(text))))


def truncate(text: str, limit: int) -> str:
    """At most ``limit`` characters: when cut, ends in "…" (one character, counted), without the
    spaces before it."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…" if limit > 0 else ""
