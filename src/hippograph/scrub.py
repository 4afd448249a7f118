"""Credential scrubbing: secrets never reach a prompt or a stored memory's text.

Property keys that look like secrets are dropped; values and free text that look like
credentials (API keys, bearer tokens, private keys, password assignments) are masked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

REDACTED = "[REDACTED]"
SECRET_KEY = re.compile(
    r"(pass(word|wd|phrase)?|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|"
    r"credential|auth(orization)?|session[_-]?id|cookie|ssn|credit[_-]?card|cvv|pin)",
    re.IGNORECASE,
)
SECRET_VALUE = re.compile(
    r"(sk-(ant-)?[A-Za-z0-9_-]{16,}"  # Anthropic / OpenAI style keys
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
    r"|gh[pousr]_[A-Za-z0-9]{30,}"  # GitHub tokens
    r"|xox[abprs]-[A-Za-z0-9-]{10,}"  # Slack tokens
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"  # JWT
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----)"
)
ASSIGNMENT = re.compile(
    r"\b(password|passwd|pwd|secret|token|api[_-]?key|apikey)\b(\s*[:=]\s*|\s+is\s+)(\S+)",
    re.IGNORECASE,
)
BEARER = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}", re.IGNORECASE)


def scrub_text(text: str) -> str:
    """Mask credentials inside free text."""
    text = SECRET_VALUE.sub(REDACTED, text)
    text = BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)


def scrub_properties(props: Mapping[str, Any]) -> dict[str, Any]:
    """Drop secret-looking keys (recursively) and mask secret-looking string values."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        if SECRET_KEY.search(str(key)):
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
