"""Credential scrubbing (hippograph.scrub): secrets in free text are masked, secret-looking
property keys are dropped, everything else is kept."""

from __future__ import annotations

import pytest

from hippograph.scrub import REDACTED, scrub_properties, scrub_text

SECRETS = [
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv",
    "sk-proj-0123456789abcdefABCDEF",
    "AKIAABCDEFGHIJKLMNOP",
    "ghp_" + "a1B2c3D4e5" * 4,
    "xoxb-1234567890-abcdefghij",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_well_known_key_formats_are_masked_wherever_they_appear(secret: str) -> None:
    out = scrub_text(f"use {secret} for the deploy")
    assert secret not in out and REDACTED in out and out.startswith("use ") and out.endswith(" for the deploy")


def test_private_key_blocks_are_masked_whole() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----"
    out = scrub_text(f"key:\n{block}\nthanks")
    assert "MIIEowIBAAKCAQEA7" not in out and out == f"key:\n{REDACTED}\nthanks"


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Bearer abcdef0123456789.xyz",
        "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='",
        "bearer 0123456789abcdefXYZ",
    ],
)
def test_bearer_and_basic_tokens_are_masked(text: str) -> None:
    out = scrub_text(text)
    assert REDACTED in out
    assert "abcdef0123456789" not in out and "dXNlcjpwYXNzd29yZA" not in out and "0123456789abcdefXYZ" not in out


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: hunter2", "hunter2"),
        ("my password is hunter2", "hunter2"),
        ("PASSWORD=hunter2 next", "hunter2"),
        ("api_key = 12345abcde", "12345abcde"),
        ("the token is tok_987654", "tok_987654"),
        ("secret:s3cr3t!", "s3cr3t!"),
        ("pwd=letmein", "letmein"),
    ],
)
def test_assignments_of_credentials_are_masked(text: str, secret: str) -> None:
    out = scrub_text(text)
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('{"password": "hunter2"}', "hunter2"),
        ("{'api_key': 'abc123xyz'}", "abc123xyz"),
        ("DB_PASSWORD=hunter2", "hunter2"),
        ("access_token=ya29.a0Af_secret", "ya29.a0Af_secret"),
        ("client_secret: shh-its-me", "shh-its-me"),
        ("export GITHUB_TOKEN=abc123def456", "abc123def456"),
        ("x-api-key: 0f0f0f0f0f", "0f0f0f0f0f"),
    ],
)
def test_quoted_and_prefixed_credential_assignments_are_masked(text: str, secret: str) -> None:
    # JSON / env-file spellings and compound names (db_password, access_token) are the common ones.
    out = scrub_text(text)
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize(
    "text",
    [
        "The user prefers dark mode and lives in Lisbon.",
        "We used 3 tokens of the budget; the secret ingredient is love",
        "Password managers are useful.",
        "skiing is fun; sk-short",
        "Bearer of bad news",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert scrub_text(text) == text


def test_secret_looking_keys_are_dropped_at_every_depth() -> None:
    props = {
        "name": "deploy", "password": "x", "API_KEY": "y", "accessKey": "z", "client-secret": "s",
        "nested": {"auth_token": "t", "ok": 1, "deeper": [{"privateKey": "k", "keep": "v"}]},
        "cookie": "c", "ssn": "123", "credit_card": "4111",
    }  # fmt: skip
    assert scrub_properties(props) == {
        "name": "deploy",
        "nested": {"ok": 1, "deeper": [{"keep": "v"}]},
    }


def test_secret_looking_values_are_masked_under_innocent_keys() -> None:
    out = scrub_properties({"note": "Bearer abcdefghijklmnop", "tags": ["sk-ant-0123456789abcdefgh", 3]})
    assert out == {"note": f"Bearer {REDACTED}", "tags": [REDACTED, 3]}


@pytest.mark.parametrize("key", ["author", "authored", "shipping_address", "opinion", "spinach", "topic", "passenger"])
def test_innocent_keys_that_merely_contain_a_secret_word_are_kept(key: str) -> None:
    # "author" is not "auth", "shipping" is not a PIN: dropping them loses data for nothing.
    assert scrub_properties({key: "value"}) == {key: "value"}


def test_scrubbing_is_idempotent_and_keeps_non_strings() -> None:
    once = scrub_properties({"a": 1, "b": None, "c": True, "d": "password=hunter2"})
    assert scrub_properties(once) == once == {"a": 1, "b": None, "c": True, "d": f"password={REDACTED}"}
