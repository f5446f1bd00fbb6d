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
    assert leaks._count(key.upper(), needles) >= 1  # in other letter case too
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


# --------------------------------------------------------------------------- echoes, base URLs
def test_partial_and_case_changed_echoes_of_the_key_are_redacted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "sk-ant-api03-MARKERq8Zt3vW9xY2kP4mN7bR1cD6fG0hJ5-Ab_9QQ"
    middle = key[len("sk-ant-api03-") :]
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    cases = {
        f"bad key {key.upper()}": "bad key [redacted]",  # the whole key, shouted
        f"header x-api-key: {middle[4:20]}…": "header x-api-key: [redacted]…",  # 16 of the middle
        f"masked sk-ant-…{middle[-14:]}": "masked sk-ant-…[redacted]",
        f"lower {middle[10:30].lower()}!": "lower [redacted]!",
        f"eleven {middle[0:11]} stays": f"eleven {middle[0:11]} stays",  # below MIN_ECHO: a word
        "Sk-Ant-Oat01-OtherKey9": "[redacted]",  # any key-shaped token, in any case
    }
    for text, expected in cases.items():
        assert redact(text) == expected, text
    exc = AgentError(f"the proxy said: token {middle[20:40].swapcase()} is invalid")
    assert str(exc) == "the proxy said: token [redacted] is invalid"


def test_redaction_of_a_long_text_is_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    key = "sk-ant-api03-MARKERq8Zt3vW9xY2kP4mN7bR1cD6fG0hJ5-Ab_9QQ"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    text = "Lorem ipsum dolor sit amet, consectetur adipiscing. " * 100_000 + key[20:40]
    started = time.perf_counter()
    assert redact(text).endswith("[redacted]")
    assert time.perf_counter() - started < 2.0  # 5 MB: a large document


@pytest.mark.parametrize("given", ["--base-url", "ANTHROPIC_BASE_URL"])
def test_base_url_credentials_appear_nowhere(
    given: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = leaks.marker_key()
    password = "pr0xy-PASSWORD-7f3a9c"
    mock = MockAPI(Script([error_reply(500, "api_error", "boom")], repeat_last=True)).start()
    url = mock.base_url.replace("http://", f"http://gateway-user:{password}@")
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    path = copy_doc(tmp_path)
    args = ["update", str(path), "--force", "--yes", "--record", str(tmp_path / "c.json")]
    if given == "--base-url":
        args += ["--base-url", url]
    else:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    try:
        with leaks._debug_logging() as logs:
            code = main(args)
    finally:
        mock.stop()
    out, err = capsys.readouterr()
    assert code == 2 and mock.message_requests  # it was sent, and failed
    shown = out + err + "\n".join(logs.lines)
    files = "".join(p.read_text("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file())
    for text in (shown, files):
        assert password.lower() not in text.lower() and "gateway-user:" not in text
    auth = mock.message_requests[0].headers.get("authorization", "")
    assert auth.startswith("Basic ")  # the credentials still authenticate to the gateway
    assert "http://127.0.0.1:" in err  # the endpoint is named, without its credentials


def test_keys_of_eight_characters_or_more_are_redacted_shorter_ones_are_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "abcdefgh")  # 8: a key
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "  tok1234  ")  # 7 without its spaces: a word
    assert redact("x abcdefgh y tok1234 z") == "x [redacted] y tok1234 z"
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", " tok12345\n")  # 8 without them: a key
    assert redact("a tok12345 b") == "a [redacted] b"


def test_registered_keys_follow_the_same_length_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    from oo_nb import redaction

    monkeypatch.setattr(redaction, "_REGISTERED", frozenset())
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    for short in (None, "", "1234567", "  1234567  "):
        redaction.register_secret(short)
    assert redact("[1234567] [  1234567  ]") == "[1234567] [  1234567  ]"
    redaction.register_secret("  proxy-12  ")  # 8 characters once stripped
    assert redact("[proxy-12] [  proxy-12  ]") == "[[redacted]] [[redacted]]"
