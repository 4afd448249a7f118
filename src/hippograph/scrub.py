"""Credential scrubbing: secrets never reach a prompt or a stored memory's text.

Property keys that look like secrets are dropped; values and free text that look like
credentials (API keys, bearer tokens, private keys, password assignments) are masked.

The patterns are configurable: a :class:`ScrubConfig` adds patterns (a name and a regular
expression whose every match is masked), turns built-in ones off by name
(:data:`BUILTIN_PATTERNS`), and adds or allows property-key names. A :class:`Scrubber` built
from it is given to the memory (``Memory(..., scrub=ScrubConfig(...))``), which applies it on
every write (each layer, the memory ops, the capability's records) and on every render into a
prompt. The module functions (:func:`scrub_text`, :func:`scrub_properties`) use the built-in
patterns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "BUILTIN_PATTERNS",
    "REDACTED",
    "ScrubConfig",
    "Scrubber",
    "is_secret_key",
    "scrub_properties",
    "scrub_text",
]

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


def _keep_scheme(m: re.Match[str]) -> str:
    return f"{m.group(1)} {REDACTED}"


def _keep_name(m: re.Match[str]) -> str:
    return f"{m.group(1)}{m.group(2)}{REDACTED}"


BUILTIN_PATTERNS: dict[str, tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = {
    "api_key": (re.compile(r"sk-(ant-)?[A-Za-z0-9_-]{16,}"), REDACTED),
    "aws_access_key": (re.compile(r"AKIA[0-9A-Z]{16}"), REDACTED),
    "github_token": (re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}"), REDACTED),
    "slack_token": (re.compile(r"xox[abprs]-[A-Za-z0-9-]{10,}"), REDACTED),
    "jwt": (re.compile(r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), REDACTED),
    "private_key": (
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
        REDACTED,
    ),
    "bearer": (BEARER, _keep_scheme),
    "assignment": (ASSIGNMENT, _keep_name),
}
"""The built-in patterns by name, applied in this order: a key or token (the whole match is
masked), ``bearer`` (the scheme kept) and ``assignment`` (``password=…``: the name kept)."""
MAX_PATTERN_CHARS = 500


class ScrubConfig(BaseModel):
    """What the scrubber masks and drops, beyond or instead of the built-in rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    extra_patterns: dict[str, str] = Field(default_factory=dict, max_length=100)
    """Patterns to mask, by name: a regular expression whose every match becomes
    ``[REDACTED]`` (e.g. ``{"ticket": r"TCK-[0-9]{6}"}``), applied after the built-in ones."""
    disabled_patterns: tuple[str, ...] = ()
    """Built-in patterns turned off, by name (see :data:`BUILTIN_PATTERNS`)."""
    extra_secret_keys: tuple[str, ...] = ()
    """More property-key stems to drop (matched like the built-in ones: ``"iban"`` drops
    ``iban`` and ``customer_iban``)."""
    allowed_keys: tuple[str, ...] = ()
    """Property keys never dropped, even when they look secret (exact names)."""

    @field_validator("extra_patterns")
    @classmethod
    def _compiles(cls, patterns: dict[str, str]) -> dict[str, str]:
        for name, pattern in patterns.items():
            if not name.strip() or name in BUILTIN_PATTERNS:
                raise ValueError(f"pattern name {name!r:.40} is empty or a built-in one's")
            if len(pattern) > MAX_PATTERN_CHARS:
                raise ValueError(f"pattern {name!r:.40} is longer than {MAX_PATTERN_CHARS} characters")
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {name!r:.40} does not compile: {exc}") from None
            if compiled.fullmatch(""):
                raise ValueError(f"pattern {name!r:.40} matches the empty string")
        return patterns

    @field_validator("disabled_patterns")
    @classmethod
    def _known(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(names) - set(BUILTIN_PATTERNS))
        if unknown:
            raise ValueError(f"unknown built-in patterns {unknown}; known: {', '.join(BUILTIN_PATTERNS)}")
        return names

    @field_validator("extra_secret_keys")
    @classmethod
    def _stems(cls, stems: tuple[str, ...]) -> tuple[str, ...]:
        out = tuple("".join(_KEY_WORD.findall(_CAMEL.sub("_", s).lower())) for s in stems)
        if not all(out):
            raise ValueError("secret key stems must hold letters or digits")
        return out


class Scrubber:
    """Masks credentials in text and drops secret-looking property keys, by a
    :class:`ScrubConfig` (None: the built-in rules)."""

    _default: Scrubber | None = None

    def __init__(self, config: ScrubConfig | None = None) -> None:
        self.config = config or ScrubConfig()
        off = set(self.config.disabled_patterns)
        rules = [rule for name, rule in BUILTIN_PATTERNS.items() if name not in off]
        rules += [(re.compile(p), REDACTED) for p in self.config.extra_patterns.values()]
        self._rules: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = rules
        self._stems = (*SECRET_KEY_STEMS, *self.config.extra_secret_keys)
        self._allowed = frozenset(self.config.allowed_keys)

    @classmethod
    def default(cls) -> Scrubber:
        """The scrubber of the built-in rules (one shared instance)."""
        if cls._default is None:
            cls._default = cls()
        return cls._default

    def text(self, text: str) -> str:
        """Mask credentials inside free text."""
        for pattern, replacement in self._rules:
            text = pattern.sub(replacement, text)
        return text

    def is_secret_key(self, key: str) -> bool:
        """True for property keys that name a credential."""
        if key in self._allowed:
            return False
        words = _KEY_WORD.findall(_CAMEL.sub("_", key).lower())
        joined = "".join(words)
        return any(stem in joined for stem in self._stems) or any(w in SECRET_KEY_WORDS for w in words)

    def properties(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Drop secret-looking keys (recursively) and mask secret-looking string values."""
        return {key: self._value(value) for key, value in props.items() if not self.is_secret_key(str(key))}

    def _value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return self.properties(value)
        if isinstance(value, list):
            return [self._value(v) for v in value]
        return value

    def __repr__(self) -> str:
        return f"Scrubber(rules={len(self._rules)}, key_stems={len(self._stems)})"


def scrub_text(text: str) -> str:
    """Mask credentials inside free text (the built-in patterns)."""
    return Scrubber.default().text(text)


def is_secret_key(key: str) -> bool:
    """True for property keys that name a credential (see SECRET_KEY_STEMS / _WORDS)."""
    return Scrubber.default().is_secret_key(key)


def scrub_properties(props: Mapping[str, Any]) -> dict[str, Any]:
    """Drop secret-looking keys (recursively) and mask secret-looking string values."""
    return Scrubber.default().properties(props)
