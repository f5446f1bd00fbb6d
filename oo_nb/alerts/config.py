"""A library's alert settings: ``DIR/.oo/alerts.json``, never a document.

    {
      "channels": [
        {"type": "webhook", "name": "team", "format": "slack", "url_env": "OO_SLACK_WEBHOOK"},
        {"type": "webhook", "name": "phone", "format": "ntfy", "url": "https://ntfy.sh",
         "topic": "my-library"},
        {"type": "email", "name": "me", "host": "smtp.example.org", "port": 587,
         "from": "oo@example.org", "to": ["me@example.org"], "username": "oo",
         "password_file": "smtp-password"},
        {"type": "desktop"}
      ],
      "events": ["sentinel", "proposal", "failed", "links", "budget"],
      "digest_after": 3
    }

Secrets (an SMTP password, a webhook URL that carries a token) are read from an environment
variable (``*_env``) or from a file under ``DIR/.oo/`` (``*_file``) that only its owner may read
(0600); a ``password`` written into the settings is refused. ``Channel.hidden`` lists what a
channel's errors must never show (``channels`` replaces it). They are not registered with
``redaction`` for the whole process: its echo rule would then also cut every run of 12 characters
of a webhook URL (``https://hooks.``) out of documents and messages. Bad settings raise a ``ValidationError`` naming
the file and the field. Settings are used only once the user has confirmed them as theirs
(``alerts.trust``): until then ``load_config`` raises ``UntrustedSettings`` before any secret is
read.
"""

from __future__ import annotations

import json
import os
import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from oo_nb.alerts.trust import trust_problem
from oo_nb.errors import ValidationError
from oo_nb.store.library_trust import refuse_settings_dir, trust_steps
from oo_nb.store.private_file import PrivateFileError, read_private

__all__ = [
    "CHANNEL_TYPES",
    "EVENT_KINDS",
    "WEBHOOK_FORMATS",
    "AlertConfig",
    "Channel",
    "UntrustedSettings",
    "config_path",
    "load_config",
    "private_dir",
    "url_host",
]

CONFIG_FILE = "alerts.json"
EVENT_KINDS = ("sentinel", "proposal", "failed", "links", "budget")
CHANNEL_TYPES = ("webhook", "email", "desktop")
WEBHOOK_FORMATS = ("json", "slack", "discord", "ntfy")
DEFAULT_DIGEST_AFTER = 3  # more new events than this at once: one digest per channel


class UntrustedSettings(ValidationError):
    """The settings are not (or no longer) confirmed by the user: nothing is sent."""


@dataclass(frozen=True)
class Channel:
    """One place alerts go. ``secret`` is the webhook URL or the SMTP password, when any."""

    type: str
    name: str
    options: dict[str, Any] = field(default_factory=dict, repr=False)
    secret: str | None = field(default=None, repr=False)

    @property
    def hidden(self) -> tuple[str, ...]:
        """The secret, and a webhook URL's path (often its token), longest first."""
        values = [self.secret or ""]
        url = self.secret if self.type == "webhook" else None
        url = url or (str(self.options.get("url")) if self.type == "webhook" else None)
        if url:
            values += [url, urlsplit(url).path]
        return tuple(sorted({v for v in values if len(v) >= 4}, key=len, reverse=True))

    def describe(self) -> str:
        """The channel for people, without its secret."""
        o = self.options
        if self.type == "webhook":
            # the host only: a webhook URL's path is often its token
            where = url_host(o["url"]) if o.get("url") else "a URL from " + _secret_origin(o, "url")
            return f"{self.name}: webhook ({o.get('format', 'json')}) to {where}"
        if self.type == "email":
            to = ", ".join(o.get("to", []))
            tls = "STARTTLS" if o.get("starttls", True) else "no TLS"
            text = f"{self.name}: email via {o.get('host')}:{o.get('port', 587)} ({tls}) to {to}"
            if o.get("username"):  # what it sends the host, and where that comes from
                text += f"; logs in as {o['username']} with the password from "
                text += _secret_origin(o, "password")
            if o.get("ca_file"):  # a host it trusts beyond the system's CAs
                text += f"; trusts the certificates in .oo/{o['ca_file']}"
            return text
        return f"{self.name}: desktop notification (notify-send)"


@dataclass(frozen=True)
class AlertConfig:
    path: Path
    channels: tuple[Channel, ...]
    events: frozenset[str]
    digest_after: int


_ENV_PREFIX = "OO_"  # the variables a channel may read its secret from


def private_dir(root: Path) -> Path:
    """``DIR/.oo``: the library's own settings and records (created 0700). Raises ``OOError``
    naming it when it is a link (even to nothing) or not a folder: never made or used through
    one."""
    folder = root / ".oo"
    refuse_settings_dir(root)
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        refuse_settings_dir(root)  # (made meanwhile: checked again)
    return folder


def config_path(root: str | Path) -> Path:
    return Path(root) / ".oo" / CONFIG_FILE


def load_config(root: str | Path, *, require_trust: bool = True) -> AlertConfig | None:
    """The alert settings of a library.

    Parameters
    ----------
    root : str or Path
        The library folder; the settings are ``root/.oo/alerts.json``.
    require_trust : bool
        Refuse settings the user has not confirmed (``oo alerts DIR --trust``); False only to
        show or confirm them.

    Returns
    -------
    AlertConfig or None
        None when the library has no settings.

    Raises
    ------
    UntrustedSettings
        The settings (or a ``ca_file`` they name) are not the ones the user confirmed.
    ValidationError
        A bad field, a password in the file, a secret variable not set or a secret file others
        may read: the message names the file and the field.
    """
    path = config_path(root)
    refuse_settings_dir(Path(root))  # a link's settings are another library's, or none
    if not path.is_file():
        return None
    data = path.read_bytes()
    try:
        raw = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationError(f"not valid JSON: {exc}", file=str(path)) from None
    problem = trust_problem(path, data, raw) if require_trust else None
    if problem is not None:  # before any secret is read: they may name the user's variables
        raise UntrustedSettings(
            f"{problem}: alerts are not sent. Settings that came with a library could send your "
            f"secrets to its author; read the file, then {trust_steps(path.parent.parent)}",
            file=str(path),
        )
    if not isinstance(raw, dict):
        raise ValidationError("must be a JSON object", file=str(path))
    channels_raw = raw.get("channels", [])
    if not isinstance(channels_raw, list):
        raise ValidationError("must be a list of channels", file=str(path), key="channels")
    channels = tuple(_channel(path, i, c) for i, c in enumerate(channels_raw))
    names = [c.name for c in channels]
    if len(set(names)) != len(names):
        raise ValidationError("two channels share a name", file=str(path), key="channels")
    events = raw.get("events", list(EVENT_KINDS))
    if not isinstance(events, list) or not set(events) <= set(EVENT_KINDS):
        raise ValidationError(
            f"must be a list of: {', '.join(EVENT_KINDS)}", file=str(path), key="events"
        )
    digest_after = raw.get("digest_after", DEFAULT_DIGEST_AFTER)
    if not isinstance(digest_after, int) or isinstance(digest_after, bool) or digest_after < 1:
        raise ValidationError(
            "must be a whole number, at least 1", file=str(path), key="digest_after"
        )
    return AlertConfig(path, channels, frozenset(events), digest_after)


def _channel(path: Path, index: int, raw: Any) -> Channel:
    where = f"channels[{index}]"
    if not isinstance(raw, dict):
        raise ValidationError("must be an object", file=str(path), key=where)
    kind = raw.get("type")
    if kind not in CHANNEL_TYPES:
        raise ValidationError(
            f"type must be one of {', '.join(CHANNEL_TYPES)}, found {kind!r}",
            file=str(path),
            key=where,
        )
    name = raw.get("name", kind)
    if not isinstance(name, str) or not name.strip():
        raise ValidationError(
            "name must be a non-empty string", file=str(path), key=f"{where}.name"
        )
    options = {k: v for k, v in raw.items() if k not in ("type", "name")}
    if "password" in options:
        raise ValidationError(
            "a password is never written in the settings: give password_env (a variable) or "
            "password_file (a 0600 file under .oo/)",
            file=str(path),
            key=f"{where}.password",
        )
    secret: str | None = None
    if kind == "webhook":
        secret = _webhook_url(path, where, options)
        fmt = options.get("format", "json")
        if fmt not in WEBHOOK_FORMATS:
            raise ValidationError(
                f"must be one of {', '.join(WEBHOOK_FORMATS)}",
                file=str(path),
                key=f"{where}.format",
            )
        if fmt == "ntfy" and not isinstance(options.get("topic"), str):
            raise ValidationError(
                "an ntfy channel needs a topic", file=str(path), key=f"{where}.topic"
            )
    elif kind == "email":
        for key in ("host", "from"):
            if not isinstance(options.get(key), str) or not options[key]:
                raise ValidationError("is required", file=str(path), key=f"{where}.{key}")
        to = options.get("to")
        if isinstance(to, str):
            options["to"] = [to]
        elif not (isinstance(to, list) and to and all(isinstance(t, str) for t in to)):
            raise ValidationError(
                "must be an address or a list of them", file=str(path), key=f"{where}.to"
            )
        port = options.get("port", 587)
        if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
            raise ValidationError("must be a port number", file=str(path), key=f"{where}.port")
        ca_file = options.get("ca_file")
        if ca_file is not None and (
            not isinstance(ca_file, str) or Path(ca_file).name != ca_file or ca_file in ("", "..")
        ):  # the certificates to trust are the user's, in .oo/: never a path a library names
            raise ValidationError(
                "must name a file in .oo/", file=str(path), key=f"{where}.ca_file"
            )
        if ca_file is not None:
            _check_certificates(path, where, path.parent / ca_file)
        if options.get("username"):
            secret = _secret(path, where, options, "password")
            if secret is None:
                raise ValidationError(
                    "a username needs password_env or password_file", file=str(path), key=where
                )
    return Channel(kind, name.strip(), options, secret)


def _check_certificates(path: Path, where: str, ca_path: Path) -> None:
    """Refuse a ``ca_file`` that holds no certificate: it would be confirmed and trusted blind."""
    reason = None
    try:
        if not ca_path.is_file():  # a FIFO would hold the read forever
            reason = "is not a plain file" if ca_path.exists() else "does not exist"
        else:
            ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=str(ca_path))
    except ssl.SSLError:
        reason = "holds no certificate"
    except (OSError, ValueError):
        reason = "cannot be read"
    if reason is not None:
        raise ValidationError(
            f".oo/{ca_path.name} {reason} (a PEM file of the CA to trust is needed)",
            file=str(path),
            key=f"{where}.ca_file",
        ) from None


def _webhook_url(path: Path, where: str, options: dict[str, Any]) -> str:
    url = options.get("url")
    if url is None:
        url = _secret(path, where, options, "url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValidationError(
            "needs an http(s) url (url, url_env or url_file)", file=str(path), key=f"{where}.url"
        )
    return url


def url_host(url: str) -> str:
    """A URL shown for people: its scheme and host only (its path is often a token)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}/…"


def _secret_origin(options: dict[str, Any], key: str) -> str:
    if options.get(f"{key}_env"):
        return f"${options[f'{key}_env']}"
    return f".oo/{options.get(f'{key}_file')}"


def _secret(path: Path, where: str, options: dict[str, Any], key: str) -> str | None:
    """The value of ``KEY_env`` or ``KEY_file``, registered as a secret; None when neither."""
    env, file = options.get(f"{key}_env"), options.get(f"{key}_file")
    value: str | None = None
    if isinstance(env, str) and env:
        if not env.startswith(_ENV_PREFIX):
            # settings that came with a library (a clone) could name ANTHROPIC_API_KEY and a
            # host of theirs: only variables made for oo may be read and sent
            raise ValidationError(
                f"must name a variable starting with {_ENV_PREFIX} (got {env!r})",
                file=str(path),
                key=f"{where}.{key}_env",
            )
        value = os.environ.get(env)
        if not value:
            raise ValidationError(
                f"the variable {env} is not set", file=str(path), key=f"{where}.{key}_env"
            )
    elif isinstance(file, str) and file:
        value = _private_file(path, where, key, file)
    return value.strip() if value is not None else None


def _private_file(path: Path, where: str, key: str, name: str) -> str:
    """A secret kept in a file of ``.oo/`` (``store.private_file`` says what that file must be)."""
    field = f"{where}.{key}_file"
    if Path(name).is_absolute() or ".." in Path(name).parts or len(Path(name).parts) != 1:
        raise ValidationError("must name a file in .oo/", file=str(path), key=field)
    try:
        return read_private(path.parent / name)
    except PrivateFileError as exc:
        raise ValidationError(str(exc), file=str(path), key=field) from None
