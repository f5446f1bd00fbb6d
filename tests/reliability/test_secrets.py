"""Secrets: a marker API key must appear nowhere oo_nb writes, prints, logs or raises."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from oo_nb.agent.run import UpdateOptions, prepare_update
from oo_nb.cli.main import main
from oo_nb.errors import AgentError, BudgetExceeded, OOError, ValidationError, redact
from tests.support import leaks
from tests.support.agent_helpers import assert_no_secret, copy_doc
from tests.support.mock_api import MockAPI, Script, error_reply
from tests.support.reliability_helpers import run_part


def test_marker_key_never_leaks(tmp_path: Path) -> None:
    rows = run_part(6, tmp_path)
    assert all(r.result == 0 for name, r in rows.items() if name.startswith("key found in"))
    assert isinstance(rows["requests that carried the marker key"].result, int)
    assert rows["requests that carried the marker key"].result > 0


def test_the_scanners_would_see_a_leak(tmp_path: Path) -> None:
    key = leaks.marker_key()
    needles = leaks._needles(key)
    masked = key[:12] + "..." + key[19:40]  # a partly masked key still shows its random middle
    assert leaks._count(f"Authorization: Bearer {key}", needles) >= 1
    assert leaks._count(masked, needles) >= 1
    (tmp_path / ".oo-history" / "x").mkdir(parents=True)
    (tmp_path / ".oo-history" / "x" / "pending.json").write_text(f'{{"key": "{key}"}}')
    assert leaks._scan_files(tmp_path, needles)["pending"] == 2
    with leaks._debug_logging() as logs:
        logging.getLogger("anthropic").debug("headers %s", {"x-api-key": key})
    assert any(leaks._count(line, needles) for line in logs.lines)


# --------------------------------------------------------------------------- keys echoed in errors
# A realistic key (sk-ant-… pattern) and one only the environment variable identifies.
ECHO_KEYS = ["sk-ant-api03-MARKERa1b2c3d4e5f6-Zz_9", "plain-secret-token-1234567"]


@pytest.mark.parametrize("key", ECHO_KEYS)
def test_key_echoed_by_the_server_is_redacted(
    key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = error_reply(400, "invalid_request_error", f"bad header x-api-key: {key}")
    mock = MockAPI(Script([reply], repeat_last=True), api_key=key).start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    try:
        path = copy_doc(tmp_path)
        assert main(["update", str(path), "--force", "--yes", "--base-url", mock.base_url]) == 2
        out, err = capsys.readouterr()
        with pytest.raises(AgentError) as caught:
            prepare_update(
                path,
                UpdateOptions(force=True, agent="anthropic", api_key=key, base_url=mock.base_url),
            )
    finally:
        mock.stop()
    assert mock.message_requests, "the mock must have been asked (else nothing was tested)"
    assert "API error 400" in err and "bad header x-api-key: [redacted]" in err
    exc = caught.value
    for text in (out, err, str(exc), exc.message, repr(exc), *map(str, exc.args)):
        assert key not in text and key[5:-3] not in text
    assert "[redacted]" in str(exc)
    assert_no_secret(tmp_path)


def test_redact_patterns_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key-value-42\n")  # trailing newline kept in env
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "short")  # under 8 characters: an ordinary word
    text = "a sk-ant-admin01-Xy_z-9 b env-key-value-42 c short d"
    assert redact(text) == "a [redacted] b [redacted] c short d"
    assert redact("sk-ant-") == "sk-ant-"  # nothing after the prefix: not a key
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert redact("env-key-value-42") == "env-key-value-42"  # read at call time


def test_every_oo_error_redacts_message_str_and_late_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok-ABCDEFGH-123")
    for cls in (OOError, ValidationError, AgentError, BudgetExceeded):
        exc = cls(
            "header Authorization: Bearer tok-ABCDEFGH-123 and sk-ant-oat01-QQQ", key="k sk-ant-x1"
        )
        for text in (str(exc), exc.message, repr(exc)):
            assert "tok-ABCDEFGH" not in text and "sk-ant-" not in text, (cls, text)
        assert exc.message == "header Authorization: Bearer [redacted] and [redacted]"
    exc = OOError("boom")
    exc.message = "now sk-ant-api03-late"
    exc.args = ("args sk-ant-api03-late",)
    assert exc.message == "now [redacted]" and str(exc) == "args [redacted]"
    assert (
        str(OOError("x").with_file("sk-ant-api03-in-a-name.o-o.html")) == "[redacted].o-o.html: x"
    )


@pytest.mark.parametrize("variable", ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"])
def test_a_key_with_a_pasted_newline_is_named_not_sent(
    variable: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = "sk-ant-test-NEWLINE-1234\n"
    mock = MockAPI(
        Script([error_reply(500, "api_error", "unreachable")]), api_key=key.strip()
    ).start()
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, key)
    try:
        path = copy_doc(tmp_path)
        before = path.read_bytes()
        assert main(["update", str(path), "--force", "--yes", "--base-url", mock.base_url]) == 2
    finally:
        mock.stop()
    out, err = capsys.readouterr()
    assert f"{variable} contains whitespace" in err
    assert not mock.message_requests and path.read_bytes() == before
    assert key.strip() not in out + err


def test_a_key_echoed_by_the_token_count_is_redacted_from_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.mock_scenarios import research_scenario

    key = ECHO_KEYS[0]
    mock = MockAPI(research_scenario(with_image=False), api_key=key).start()
    mock.count_tokens_error = error_reply(
        400, "invalid_request_error", f"bad header x-api-key: {key}"
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    try:
        path = copy_doc(tmp_path)
        assert main(["update", str(path), "--force", "--base-url", mock.base_url]) == 0
    finally:
        mock.stop()
    out, err = capsys.readouterr()
    assert "could not be counted" in out and "[redacted]" in out
    assert key not in out + err
    assert_no_secret(tmp_path)  # pending.json holds the run's warnings


def test_a_key_given_in_code_is_redacted_without_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "proxy-token-QWERTY-123456"  # not sk-ant-…, and in no environment variable
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    mock = MockAPI(
        Script([error_reply(400, "invalid_request_error", f"bad token {key}")], repeat_last=True),
        api_key=key,
    ).start()
    try:
        with pytest.raises(AgentError) as caught:
            prepare_update(
                copy_doc(tmp_path),
                UpdateOptions(force=True, agent="anthropic", api_key=key, base_url=mock.base_url),
            )
    finally:
        mock.stop()
    assert (
        mock.message_requests and key not in str(caught.value) and "[redacted]" in str(caught.value)
    )


def test_a_key_that_contains_another_is_redacted_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    from oo_nb.errors import register_secret

    monkeypatch.setenv("ANTHROPIC_API_KEY", "abcdefgh")
    register_secret("abcdefgh-LONGER-SECRET")
    assert redact("x abcdefgh-LONGER-SECRET y") == "x [redacted] y"
