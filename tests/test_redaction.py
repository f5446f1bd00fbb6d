"""Where a redaction starts and ends: echoes of a key found wherever they sit in the text, never
one character more, and a replacement in code cut at the characters that keep it well-formed."""

from __future__ import annotations

import random
import string

import pytest

from oo_nb import redaction
from oo_nb.redaction import (
    MIN_ECHO,
    REDACTED,
    SECRET_ENV,
    register_base_url,
    scrub,
    secrets_now,
    split_credentials,
)

# 38 distinct characters: a run of them in a text can only be an echo of one place in the key
RANDOM = "".join(random.Random(7).sample(string.ascii_lowercase + string.digits + "_-", 38))
PREFIX = "sk-ant-api03-"


def _scrub(text: str, random_part: str = RANDOM, keep: str = "") -> str:
    return scrub(text, keep=keep, secrets=[PREFIX + random_part])[0]


def test_an_echo_at_the_start_of_the_text_is_cut_at_its_first_character() -> None:
    echo = RANDOM[6:20]
    # the text ends with the key character that comes before the echo: never wrapped around to
    text = f"{echo} then {RANDOM[5]}"
    assert _scrub(text) == f"{REDACTED} then {RANDOM[5]}"


def test_an_echo_of_the_keys_start_does_not_reach_back_to_its_last_character() -> None:
    text = f"x {RANDOM[-1]}{RANDOM[:14]} y"
    assert _scrub(text) == f"x {RANDOM[-1]}{REDACTED} y"


def test_an_echo_of_the_keys_end_is_found_whatever_the_keys_length() -> None:
    """31 characters: the last 12 hold a whole six-character block only at offset 24."""
    random_part = RANDOM[:31]
    assert _scrub(f"[{random_part[-MIN_ECHO:]}]", random_part) == f"[{REDACTED}]"


def test_eleven_characters_of_the_keys_end_are_not_an_echo() -> None:
    """35 characters: the last block is five long; counted as six, 11 would pass for 12."""
    random_part = RANDOM[:35]
    text = f" {random_part[-11:]}!"
    assert _scrub(text, random_part) == text


def test_secrets_side_by_side_are_one_replacement() -> None:
    first, second = "abcdefgh1234", "zyxwvuts9876"
    text, count = scrub(f"<{first}{second}>", secrets=[first, second])
    assert (text, count) == (f"<{REDACTED}>", 1)


def test_a_replacement_in_code_is_cut_at_the_characters_it_must_keep() -> None:
    """A proxy token with markup characters inside, at the very end of the text: each piece of
    at least MIN_ECHO characters is replaced, the short one and the markup stay."""
    token = "abcdefghijkl<m>nopqrstuvwxyz"  # 12, 1 and 13 characters between < and >
    text, count = scrub(f"<p>{token}", keep="<>", secrets=[token])
    assert (text, count) == (f"<p>{REDACTED}<m>{REDACTED}", 2)
    text, count = scrub(f"{token}</p>", keep="<>", secrets=[token])
    assert (text, count) == (f"{REDACTED}<m>{REDACTED}</p>", 2)
    # the words between the last markup before it and the token stay
    text, count = scrub(f"<b>token: {token}", keep="<>", secrets=[token])
    assert (text, count) == (f"<b>token: {REDACTED}<m>{REDACTED}", 2)


def test_a_piece_shorter_than_an_echo_is_left_as_it_is() -> None:
    token = "abcdefghijk<mnopqrstuvwxyz"  # 11 | 14
    assert scrub(f'"{token}"', keep='<"', secrets=[token])[0] == f'"abcdefghijk<{REDACTED}"'


def test_without_a_kept_character_inside_the_replacement_is_whole() -> None:
    token = "abcdefghijkl&mnopq"
    assert scrub(f"<{token}>", keep="<>", secrets=[token]) == (f"<{REDACTED}>", 1)


# --------------------------------------------------------------------------- which texts are secrets
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "https://user:p%40ss@proxy.example:8080/v1?q=1#f",
            ("https://proxy.example:8080/v1?q=1#f", "user", "p@ss"),
        ),
        ("https://user:pa:ss@host/", ("https://host/", "user", "pa:ss")),  # the first ":" splits
        ("https://us@er:pw@host/", ("https://host/", "us@er", "pw")),  # the last "@" ends them
        ("https://token@host/", ("https://host/", "token", None)),
        ("https://host/v1", ("https://host/v1", None, None)),
    ],
)
def test_split_credentials(url: str, expected: tuple[str, str | None, str | None]) -> None:
    assert split_credentials(url) == expected


@pytest.fixture
def no_secrets(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(redaction, "_REGISTERED", frozenset())
    for name in (*SECRET_ENV, "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_base_urls_password_and_user_password_pair_are_registered(
    no_secrets: pytest.MonkeyPatch,
) -> None:
    clean = register_base_url("https://gateway-user:pr0xy-PASSWORD@host/v1")
    assert clean == "https://host/v1"
    assert secrets_now() == ["gateway-user:pr0xy-PASSWORD", "pr0xy-PASSWORD"]


def test_a_base_urls_token_alone_is_registered(no_secrets: pytest.MonkeyPatch) -> None:
    assert register_base_url("https://tok-12345678@host/") == "https://host/"
    assert secrets_now() == ["tok-12345678"]


def test_the_environments_keys_and_base_url_are_secrets_longest_first(
    no_secrets: pytest.MonkeyPatch,
) -> None:
    no_secrets.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + RANDOM)
    no_secrets.setenv("ANTHROPIC_BASE_URL", "https://gateway-user:pr0xy-PASSWORD@host/")
    # by length, not by letter: a key that contains another is replaced whole
    assert secrets_now() == [
        "sk-ant-api03-" + RANDOM,
        "gateway-user:pr0xy-PASSWORD",
        "pr0xy-PASSWORD",
    ]
    no_secrets.setenv("ANTHROPIC_BASE_URL", "https://only-a-token@host/")
    assert secrets_now() == ["sk-ant-api03-" + RANDOM, "only-a-token"]


# --------------------------------------------------------------------------- where they are found
def test_an_empty_text_has_nothing_replaced() -> None:
    assert scrub("", secrets=["abcdefgh"]) == ("", 0)


def test_a_random_part_of_exactly_an_echos_length_is_searched_for_echoes() -> None:
    random_part = RANDOM[:MIN_ECHO]
    assert _scrub(f"x {random_part.upper()} y", random_part) == f"x {REDACTED} y"


def test_the_keys_fixed_prefix_is_not_part_of_an_echo() -> None:
    """``api03-`` is the same in every key: with eight characters of the random part it is
    not an echo (14 characters of the key, only 8 of them random)."""
    text = f"ends api03-{RANDOM[:8]} here"
    assert _scrub(text) == text


def test_an_echo_of_a_token_without_a_prefix_starts_at_its_first_character() -> None:
    token = "proxytoken-" + RANDOM[:13]
    assert scrub(f"see {token[:MIN_ECHO]} end", secrets=[token])[0] == f"see {REDACTED} end"


def test_a_letter_that_lowers_to_two_keeps_the_replacement_in_place() -> None:
    """``str.lower`` turns İ into two characters: the offsets of the lowered text would be off
    by one from there on, so the text is lowered as ASCII."""
    key = "sk-ant-api03-" + RANDOM
    assert _scrub(f"İ {key.upper()} end") == f"İ {REDACTED} end"


def test_letters_beyond_ascii_are_matched_in_any_case() -> None:
    token = "ÄÖÜäöü-secret-token"
    assert scrub("x äöüÄÖÜ-SECRET-TOKEN y", secrets=[token])[0] == f"x {REDACTED} y"


def test_every_occurrence_is_found_even_overlapping_ones() -> None:
    tokens = " ".join(f"sk-ant-{n}" for n in ("one", "two", "three"))
    assert scrub(tokens, secrets=[]) == (f"{REDACTED} {REDACTED} {REDACTED}", 3)
    assert scrub("aaaaaaaaa", secrets=["aaaaaaaa"]) == (REDACTED, 1)  # at 0 and at 1
