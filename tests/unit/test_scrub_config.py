"""The configurable scrubber: patterns added and built-in ones turned off by configuration,
property-key names added or allowed, bad configurations refused."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hippograph.scrub import BUILTIN_PATTERNS, REDACTED, Scrubber, ScrubConfig, scrub_text


def test_an_added_pattern_is_masked_and_the_defaults_still_apply() -> None:
    scrubber = Scrubber(ScrubConfig(extra_patterns={"ticket": r"TCK-[0-9]{6}"}))
    out = scrubber.text("ticket TCK-123456 and key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv")
    assert out == f"ticket {REDACTED} and key {REDACTED}"
    assert scrub_text("ticket TCK-123456") == "ticket TCK-123456"  # the default scrubber is unchanged


def test_a_built_in_pattern_can_be_turned_off() -> None:
    text = "Authorization: Bearer abcdef0123456789.xyz"
    assert REDACTED in Scrubber().text(text)
    assert Scrubber(ScrubConfig(disabled_patterns=("bearer",))).text(text) == text
    assert set(BUILTIN_PATTERNS) >= {"api_key", "jwt", "private_key", "bearer", "assignment"}


def test_property_keys_can_be_added_and_allowed() -> None:
    scrubber = Scrubber(ScrubConfig(extra_secret_keys=("IBAN",), allowed_keys=("session_id",)))
    props = {"customer_iban": "DE00 1234", "session_id": "chat-1", "password": "x", "city": "Porto"}
    assert scrubber.properties(props) == {"session_id": "chat-1", "city": "Porto"}
    assert Scrubber().properties(props) == {"customer_iban": "DE00 1234", "city": "Porto"}


@pytest.mark.parametrize(
    "config",
    [
        {"extra_patterns": {"bad": "("}},
        {"extra_patterns": {"empty": "x*"}},
        {"extra_patterns": {"jwt": "abc"}},
        {"extra_patterns": {" ": "abc"}},
        {"disabled_patterns": ["nope"]},
        {"extra_secret_keys": ["--"]},
        {"unknown": 1},
    ],
)
def test_bad_configurations_are_refused(config: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ScrubConfig.model_validate(config)
