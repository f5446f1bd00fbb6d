"""Where a redaction starts and ends: echoes of a key found wherever they sit in the text, never
one character more, and a replacement in code cut at the characters that keep it well-formed."""

from __future__ import annotations

import random
import string

from oo_nb.redaction import MIN_ECHO, REDACTED, scrub

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
