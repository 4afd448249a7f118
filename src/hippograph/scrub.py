"""Credential scrubbing: secrets never reach a prompt or a stored memory's text.

Property keys that look like secrets are dropped; values and free text that look like
credentials (API keys, bearer tokens, private keys, password assignments) are masked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

REDACTED = "[REDACTED]"
# A property key is secret when its words (camelCase, snake_case and kebab-case split) spell
# one of these stems, or when one of its words is one of the short names: "auth_token" and
# "pin" are secret, "author", "shipping" and "opinion" are not.
SECRET_KEY_STEMS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "credential",
    "authorization",
    "cookie",
    "creditcard",
    "sessionid",
)
SECRET_KEY_WORDS = frozenset({"pass", "pwd", "auth", "oauth", "pin", "ssn", "cvv", "otp"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_KEY_WORD = re.compile(r"[a-z0-9]+")
SECRET_VALUE = re.compile(
    r"(sk-(ant-)?[A-Za-z0-9_-]{16,}"  # Anthropic / OpenAI style keys
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
    r"|gh[pousr]_[A-Za-z0-9]{30,}"  # GitHub tokens
    r"|xox[abprs]-[A-Za-z0-9-]{10,}"  # Slack tokens
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"  # JWT
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----)"
)
ASSIGNMENT = re.compile(
    # a credential name, bare or compound (db_password, access_token, x-api-key, "password"),
    r"(?<![A-Za-z0-9])([A-Za-z0-9_-]*?(?:password|passwd|passphrase|pwd|secret|token|api[ _-]?key"
    r"|access[_-]?key|private[_-]?key))(?![A-Za-z0-9])"
    # then = or : (quotes around the name or the value allowed) or " is ", then the value
    r"([\"']?\s*[:=]\s*[\"']?|\s+is\s+)([^\s\"',;}]+)",
    re.IGNORECASE,
)
BEARER = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}", re.IGNORECASE)


def scrub_text(text: str) -> str:
    """Mask credentials inside free text."""
    text = SECRET_VALUE.sub(REDACTED, text)
    text = BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)


def is_secret_key(key: str) -> bool:
    """True for property keys that name a credential (see SECRET_KEY_STEMS / _WORDS)."""
    words = _KEY_WORD.findall(_CAMEL.sub("_", key).lower())
    joined = "".join(words)
    return any(stem in joined for stem in SECRET_KEY_STEMS) or any(w in SECRET_KEY_WORDS for w in words)


def scrub_properties(props: Mapping[str, Any]) -> dict[str, Any]:
    """Drop secret-looking keys (recursively) and mask secret-looking string values."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        if is_secret_key(str(key)):
            continue
        out[key] = _scrub_value(value)
    return out


def _scrub_value(value: Any) -> Any:
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, Mapping):
        return scrub_properties(value)
    if isinstance(value, list):
        return [_scrub_value(v) for v in value]
    return value
