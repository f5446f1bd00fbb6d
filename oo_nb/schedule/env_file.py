"""``DIR/.oo/env``: the few settings a scheduled run needs that cron does not give it (the API
key, the model, a webhook's address), as ``KEY=VALUE`` lines in a private file.

A library may come from elsewhere (a clone, a tarball) with this file in it, so the file may set
only what cannot run code or redirect a secret: the API key itself, ``OO_MODEL``, ``OO_AGENT`` and
the ``OO_`` variables alert channels read their secrets from. Never ``PATH`` (a planted
``.oo/bin/claude`` would run), ``ANTHROPIC_BASE_URL`` (the key would be sent to another host),
``PYTHON*``/``LD_*``, nor oo's own settings that name a program, a folder or the date."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from oo_nb.errors import ValidationError
from oo_nb.store.private_file import PrivateFileError, read_private

__all__ = ["ENV_FILE", "OWN_SETTINGS", "env_file_defaults", "read_env_file"]

ENV_FILE = "env"

# oo's settings that name a program to run, a folder to trust or the date to believe: set by
# the user's own environment only (tests/unattended/test_env_file.py finds every OO_ name the
# package reads and asks that each is here or deliberately allowed).
OWN_SETTINGS = frozenset(
    {
        "OO_CRONTAB",
        "OO_DATA_DIR",
        "OO_NOTIFY_SEND",
        "OO_PREVIEW_THEME",
        "OO_SYSTEMD_USER_DIR",
        "OO_TODAY",
    }
)
_API_KEYS = frozenset({"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"})


def allowed(name: str) -> bool:
    """Whether ``.oo/env`` may set ``name``."""
    return name in _API_KEYS or (name.startswith("OO_") and name not in OWN_SETTINGS)


def read_env_file(folder: Path) -> dict[str, str]:
    """The settings of ``folder/.oo/env`` (none when there is no such file); a line that is not
    ``KEY=VALUE``, a name the file may not set, or a file that is not private is an error naming
    the file and line."""
    path = folder / ".oo" / ENV_FILE
    if not path.exists() and not path.is_symlink():
        return {}
    try:
        text = read_private(path)
    except PrivateFileError as exc:
        raise ValidationError(str(exc), file=str(path)) from None
    settings: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValidationError("not a KEY=VALUE line", file=str(path), line=n)
        if not allowed(key):
            raise ValidationError(
                f"{key} may not be set here (only ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN and "
                "OO_ variables such as OO_MODEL or an alert's secret; a library from elsewhere "
                "could otherwise run its own programs or send the key to its own host)",
                file=str(path),
                line=n,
            )
        settings[key] = value.strip()
    return settings


@contextlib.contextmanager
def env_file_defaults(
    folder: Path, settings: Mapping[str, str] | None = None
) -> Iterator[dict[str, str]]:
    """The variables of ``folder/.oo/env`` (or ``settings``, read from it before) that the
    environment does not set, set for the block and taken away after it, never over the user's
    own: settings that name them (an alert's ``url_env``) are confirmed as a scheduled run reads
    them, and a run in a kernel (``%oo schedule DIR --run``) leaves no library's key or model to
    the next call on another library."""
    given = read_env_file(folder) if settings is None else settings
    added = {k: v for k, v in given.items() if k not in os.environ}
    os.environ.update(added)
    try:
        yield added
    finally:
        for key in added:
            os.environ.pop(key, None)
