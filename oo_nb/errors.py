"""Typed errors. Every error names where it happened: file, block, line, column, key.

Error text is where a secret most easily escapes: a server that echoes a request header (``bad
header x-api-key: sk-ant-…``) puts the key in a message oo_nb prints. So every ``OOError`` message
and string is passed through ``redact`` (``oo_nb.redaction``) when it is made: the key, an echo
of part of it in any case, ``sk-ant-…`` tokens and URL credentials become ``[redacted]``.
"""

from __future__ import annotations

from oo_nb.redaction import redact, register_secret

__all__ = [
    "AgentError",
    "BlockError",
    "BudgetExceeded",
    "ConflictError",
    "FormatError",
    "LockedError",
    "NotFound",
    "OOError",
    "ValidationError",
    "redact",
    "register_secret",
]


class OOError(Exception):
    """Base of every error oo_nb raises on purpose.

    The message is composed from the parts that are known, e.g.
    ``doc.o-o.html: block oo-manifest, line 12, column 5, key 'version': must be an integer``.
    ``message`` and ``str()`` never show an API key (see ``redact``).
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        block: str | None = None,
        line: int | None = None,
        column: int | None = None,
        key: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.block = block
        self.line = line
        self.column = column
        self.key = key
        super().__init__(self._compose())

    @property
    def message(self) -> str:
        return self._message

    @message.setter
    def message(self, value: str) -> None:
        self._message = redact(str(value))

    def __str__(self) -> str:  # args may have been set by other code: redact again
        return redact(super().__str__())

    def _compose(self) -> str:
        where: list[str] = []
        if self.block:
            where.append(f"block {self.block}")
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        if self.key:
            where.append(f"key {self.key!r}")
        prefix = f"{self.file}: " if self.file else ""
        loc = ", ".join(where)
        return redact(f"{prefix}{loc}: {self.message}" if loc else f"{prefix}{self.message}")

    def with_file(self, file: str) -> OOError:
        """Return the same error with the file name filled in (when a caller knows it)."""
        if self.file is None:
            self.file = file
            self.args = (self._compose(),)
        return self


class FormatError(OOError):
    """The file is not an o-o document (no heredoc, no terminator, unreadable bytes...)."""


class BlockError(OOError):
    """A JSON block is missing, duplicated or not valid JSON."""


class ValidationError(OOError):
    """A value is of the wrong type or out of range."""


class LockedError(OOError):
    """Another writer holds the document's lock."""


class ConflictError(OOError):
    """The file changed on disk since it was read: writing would lose that change."""


class NotFound(OOError):
    """A file, version or proposal that was asked for does not exist."""


class AgentError(OOError):
    """The research agent failed (API error, invalid proposal...)."""

    def __init__(self, message: str, *, cost_usd: float = 0.0, **where: str | int | None) -> None:
        self.cost_usd = cost_usd
        super().__init__(message, **where)  # type: ignore[arg-type]


class BudgetExceeded(AgentError):
    """The next request could not be paid for within the budget."""
