"""What counts as a secret, and text cleaned of it.

The secrets are the API key variables (``ANTHROPIC_API_KEY``, ``ANTHROPIC_AUTH_TOKEN``), every
key given in code (``register_secret``) and the credentials of a base URL
(``https://user:pass@host/``, from ``ANTHROPIC_BASE_URL`` or ``register_base_url``). ``scrub``
replaces with ``[redacted]``:

- each secret, whatever its case (``SK-ANT-…`` is the same key to whoever reads it);
- a partial echo: ``MIN_ECHO`` or more characters in a row of a secret's random part (the part
  after ``sk-ant-api03-``), again in any case. A model that repeats "the key starts with …" or a
  server that masks the middle of a key still gives most of it away;
- every ``sk-ant-…`` token, and the ``user:pass@`` of every URL.

The environment is read on each call. Finding an echo is fast on a large document: a run of
``MIN_ECHO`` characters of a secret always holds one of its aligned ``MIN_ECHO // 2``-character
blocks, so only those blocks are searched for (``str.find``), and each hit is grown both ways.
"""

from __future__ import annotations

import os
import re
import threading
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = [
    "MIN_ECHO",
    "REDACTED",
    "SECRET_ENV",
    "redact",
    "register_base_url",
    "register_secret",
    "scrub",
    "secrets_now",
    "split_credentials",
]

REDACTED = "[redacted]"
SECRET_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
BASE_URL_ENV = "ANTHROPIC_BASE_URL"
MIN_SECRET = 8  # shorter values would redact ordinary words
MIN_ECHO = 12  # this many characters of a key's random part in a row are an echo of it
_BLOCK = MIN_ECHO // 2
_KEY_TOKEN = "sk-ant-"  # and at least one of [A-Za-z0-9_-] after it
_KEY_TAIL = re.compile(r"[a-z0-9_-]+", re.IGNORECASE)
_KEY_PREFIX = re.compile(r"sk-ant-[a-z]+[0-9]*-", re.IGNORECASE)  # the same in every key
# user:pass@ right after "://"; "[" and "]" are not allowed in userinfo, so "[redacted]@" stays
_USERINFO = re.compile(r"([^\s/?#@\[\]\"'<>\\]+)@")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

_REGISTERED: frozenset[str] = (
    frozenset()
)  # keys given in code (UpdateOptions.api_key), URL credentials
_REGISTER_LOCK = threading.Lock()  # update-all registers from several threads


def register_secret(value: str | None) -> None:
    """Redact ``value`` too from now on (a key passed to a backend rather than set in the
    environment, e.g. a proxy's token that does not look like ``sk-ant-…``)."""
    global _REGISTERED
    if value and len(value.strip()) >= MIN_SECRET:
        with _REGISTER_LOCK:
            _REGISTERED = _REGISTERED | {value}


def split_credentials(url: str) -> tuple[str, str | None, str | None]:
    """``url`` without its ``user:pass@`` part, and the user and password it held (decoded)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, None, None
    if "@" not in parts.netloc:
        return url, None, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    clean = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return clean, unquote(user), unquote(password) if password else None


def register_base_url(url: str) -> str:
    """Register the credentials in ``url`` as secrets; return the URL without them."""
    clean, user, password = split_credentials(url)
    for value in (password, f"{user}:{password}" if password else user):
        register_secret(value)
    return clean


def secrets_now() -> list[str]:
    """Every secret known now, longest first (a key that contains another is replaced whole)."""
    values = [os.environ.get(name) or "" for name in SECRET_ENV] + list(_REGISTERED)
    base_url = os.environ.get(BASE_URL_ENV) or ""
    if "@" in base_url:
        _, user, password = split_credentials(base_url)
        values += [password or "", f"{user}:{password}" if password else user or ""]
    found = {v for value in values for v in (value, value.strip()) if len(v) >= MIN_SECRET}
    return sorted(found, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every secret and every echo of one replaced by ``[redacted]``."""
    return scrub(text)[0]


def scrub(text: str, *, keep: str = "", secrets: list[str] | None = None) -> tuple[str, int]:
    """``text`` cleaned of secrets (see the module notes), and how many places were replaced.

    No replaced run contains a character of ``keep``: pass the characters a replacement must not
    swallow where the text is code (``<>&"'`` in HTML), so that it stays well-formed. ``secrets``
    (``secrets_now()``, once for many texts) saves reading them again."""
    if not text:
        return text, 0
    lowered = _lowered(text)
    spans: list[tuple[int, int]] = []
    for secret in secrets_now() if secrets is None else secrets:
        spans += _occurrences(lowered, _lowered(secret))
        random_part = _lowered(secret[_prefix_length(secret) :])
        if len(random_part) >= MIN_ECHO:
            spans += _echoes(lowered, random_part)
    for at in _all(lowered, _KEY_TOKEN):
        tail = _KEY_TAIL.match(text, at + len(_KEY_TOKEN))
        if tail:
            spans.append((at, tail.end()))
    for at in _all(text, "://"):
        userinfo = _USERINFO.match(text, at + 3)
        if userinfo:
            spans.append(userinfo.span(1))
    if keep:
        spans = [piece for span in spans for piece in _split_at(text, span, keep)]
    if not spans:
        return text, 0
    out: list[str] = []
    at = count = 0
    for start, end in _merged(spans):
        out += [text[at:start], REDACTED]
        at, count = end, count + 1
    out.append(text[at:])
    return "".join(out), count


def _lowered(text: str) -> str:
    """``text`` in lower case, each character where it was (offsets into one are offsets into
    the other). ``str.lower`` only ever lengthens (``İ`` → ``i̇``): when it did, ASCII only."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_LOWER)


def _all(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _prefix_length(secret: str) -> int:
    m = _KEY_PREFIX.match(secret)
    return m.end() if m else 0


def _occurrences(lowered: str, needle: str) -> list[tuple[int, int]]:
    return [(at, at + len(needle)) for at in _all(lowered, needle)]


def _echoes(lowered: str, secret: str) -> list[tuple[int, int]]:
    """Runs of at least ``MIN_ECHO`` characters of ``secret`` in ``lowered`` (both lowered)."""
    found: list[tuple[int, int]] = []
    for offset in range(0, len(secret) - _BLOCK + 1, _BLOCK):
        block = secret[offset : offset + _BLOCK]
        at = lowered.find(block)
        while at >= 0:
            left = 0
            while (
                left < offset and left < at and lowered[at - left - 1] == secret[offset - left - 1]
            ):
                left += 1
            right, end = 0, offset + _BLOCK
            while (
                end + right < len(secret)
                and at + _BLOCK + right < len(lowered)
                and lowered[at + _BLOCK + right] == secret[end + right]
            ):
                right += 1
            if left + _BLOCK + right >= MIN_ECHO:
                found.append((at - left, at + _BLOCK + right))
            at = lowered.find(block, at + 1)
    return found


def _split_at(text: str, span: tuple[int, int], keep: str) -> list[tuple[int, int]]:
    """``span`` cut at every character of ``keep``; a piece shorter than an echo is dropped."""
    start, end = span
    if not any(ch in keep for ch in text[start:end]):
        return [span]
    pieces, at = [], start
    for i in range(start, end + 1):
        if i == end or text[i] in keep:
            if i - at >= MIN_ECHO:
                pieces.append((at, i))
            at = i + 1
    return pieces


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
