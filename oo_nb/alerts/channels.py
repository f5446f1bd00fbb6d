"""Sending one message through one channel: a webhook (a JSON POST), email over SMTP with
STARTTLS, or the desktop (``notify-send``). Each failure becomes a ``ChannelError`` that names
the channel and says why, with every secret redacted (``OOError`` redacts its message)."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import smtplib
import ssl
import subprocess
import urllib.error
import urllib.request
from email.message import EmailMessage
from pathlib import Path

from oo_nb.alerts.config import Channel
from oo_nb.alerts.message import Message, plain_markup, webhook_body
from oo_nb.errors import OOError
from oo_nb.redaction import REDACTED

__all__ = ["NOTIFY_ENV", "ChannelError", "send"]

NOTIFY_ENV = "OO_NOTIFY_SEND"  # another notify-send (a path), e.g. a test's stand-in
TIMEOUT_S = 15.0


class ChannelError(OOError):
    """A channel could not deliver: the message says which one and why."""


def send(channel: Channel, message: Message, settings_dir: Path) -> None:
    """Deliver ``message`` through ``channel`` or raise ``ChannelError``."""
    try:
        if channel.type == "webhook":
            _webhook(channel, message)
        elif channel.type == "email":
            _email(channel, message, settings_dir)
        else:
            _desktop(channel, message)
    except ChannelError as exc:
        raise ChannelError(_hide(str(exc), channel)) from None
    except (
        OSError,
        http.client.HTTPException,
        smtplib.SMTPException,
        subprocess.SubprocessError,
        ValueError,
    ) as exc:
        reason = _hide(_reason(exc), channel)
        raise ChannelError(f"channel {channel.name!r} ({channel.type}): {reason}") from None


def _hide(text: str, channel: Channel) -> str:
    for value in channel.hidden:
        text = text.replace(value, REDACTED)
    return text


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"the server answered HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return f"cannot connect: {exc.reason}"
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return f"login refused ({exc.smtp_code})"
    if isinstance(exc, subprocess.CalledProcessError):
        return f"notify-send exited with {exc.returncode}"
    return f"{type(exc).__name__}: {exc}"


def _webhook(channel: Channel, message: Message) -> None:
    url = channel.secret or str(channel.options["url"])
    body = webhook_body(message, str(channel.options.get("format", "json")), channel.options)
    request = urllib.request.Request(
        url,
        # (a file name that is not UTF-8 is shown with "?": a lone surrogate is no JSON text)
        data=json.dumps(body, ensure_ascii=False).encode("utf-8", "replace"),
        headers={"Content-Type": "application/json; charset=utf-8", "User-Agent": "oo-nb alerts"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
        answer.read()


def _email(channel: Channel, message: Message, settings_dir: Path) -> None:
    o = channel.options
    mail = EmailMessage()
    mail["Subject"] = message.subject
    mail["From"] = o["from"]
    mail["To"] = ", ".join(o["to"])
    mail.set_content(message.body)
    ca_file = o.get("ca_file")
    context = ssl.create_default_context(cafile=str(settings_dir / ca_file) if ca_file else None)
    with smtplib.SMTP(o["host"], int(o.get("port", 587)), timeout=TIMEOUT_S) as smtp:
        smtp.ehlo()
        if o.get("starttls", True):
            if not smtp.has_extn("starttls"):
                raise ChannelError(
                    f"channel {channel.name!r} (email): {o['host']} does not offer STARTTLS; "
                    "nothing was sent in clear"
                )
            smtp.starttls(context=context)
            smtp.ehlo()
        elif channel.secret is not None:
            raise ChannelError(
                f"channel {channel.name!r} (email): a password is only sent over STARTTLS"
            )
        if o.get("username") and channel.secret is not None:
            _login(smtp, str(o["username"]), channel.secret)
        smtp.send_message(mail)


def _login(smtp: smtplib.SMTP, user: str, password: str) -> None:
    """PLAIN when offered (inside TLS it is the usual one), else smtplib's choice. One
    mechanism only: after a refusal, trying the next would send the password again."""
    if "PLAIN" in smtp.esmtp_features.get("auth", "").upper().split():
        smtp.user, smtp.password = user, password
        smtp.auth("PLAIN", smtp.auth_plain)
    else:
        smtp.login(user, password)


def _desktop(channel: Channel, message: Message) -> None:
    command = os.environ.get(NOTIFY_ENV) or shutil.which("notify-send")
    if not command:
        raise ChannelError(
            f"channel {channel.name!r} (desktop): notify-send is not installed (package libnotify-bin)"
        )
    subprocess.run(
        # the body is markup to notification daemons (freedesktop's body-markup): escaped
        [command, "--app-name=oo", message.subject, plain_markup(message.body[:1000])],
        check=True,
        capture_output=True,
        timeout=TIMEOUT_S,
    )
