"""The API's settings (environment prefix ``HIPPOGRAPH_API_``), read at the application edge.

Besides how the API serves, they hold the served agent's configuration: the whole
:class:`~hippograph.agent.AgentConfig` (``agent``), the consolidator's
:class:`~hippograph.consolidation.ConsolidationConfig` (``consolidation``: the nap cadence is
its ``turns_between_naps``), the nightly schedule (``nightly``) and the daily token budget.
Every value comes, highest first, from ``hippograph serve``'s options, the environment
(nested fields joined by ``__``: ``HIPPOGRAPH_API_AGENT__FABRICATION__MODE=refuse``), an
optional config file (``config_file``: TOML, or JSON when it ends in ``.json``, with the same
field names) and the defaults. A misspelt or invalid field is an error that names it
(:func:`describe_errors`).
"""

from __future__ import annotations

import json
import os
import tomllib
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from hippograph.agent.config import AgentConfig
from hippograph.consolidation.config import ConsolidationConfig
from hippograph.errors import ConfigurationError, HippographError
from hippograph.scope import Scope

if TYPE_CHECKING:
    from hippograph.app.settings import Settings

ENV_PREFIX = "HIPPOGRAPH_API_"
CONFIG_FILE_ENV = ENV_PREFIX + "CONFIG_FILE"
MASK = "***"


class NightlySchedule(BaseModel):
    """When ``hippograph serve`` runs the nightly consolidation (every phase) by itself: at a
    UTC time of day (``at``) or every so many seconds (``every``), over ``scopes`` (each with
    its subtree) or, by default, every root scope (tenant). Neither set (the default): no
    nightly runs; the operator's scheduler may call ``hippograph consolidate --mode
    nightly_nap`` instead."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: time | None = None
    """A UTC time of day, ``"03:30"``: a nightly run then, every day."""
    every: float | None = Field(default=None, ge=1)
    """Or seconds between runs, the first one this long after the server starts."""
    scopes: tuple[str, ...] = ()
    """The scopes to run over (keys, e.g. ``org:acme``), each with its subtree; empty: every
    root scope of the database."""

    @field_validator("scopes")
    @classmethod
    def _scope_keys(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for key in v:
            try:
                Scope.parse(key)
            except HippographError as exc:
                raise ValueError(str(exc)) from None
        return v

    @model_validator(mode="after")
    def _one_way(self) -> NightlySchedule:
        if self.at is not None and self.every is not None:
            raise ValueError("give at (a time of day) or every (seconds), not both")
        return self

    @property
    def enabled(self) -> bool:
        return self.at is not None or self.every is not None

    def seconds_until_next(self, now: float) -> float:
        """Seconds from ``now`` (epoch seconds) to the next run.

        Raises:
            ValueError: No schedule is set.
        """
        if self.every is not None:
            return self.every
        if self.at is None:
            raise ValueError("no nightly schedule")
        current = datetime.fromtimestamp(now, UTC)
        target = datetime.combine(current.date(), self.at.replace(tzinfo=UTC))
        if target <= current:
            target += timedelta(days=1)
        return (target - current).total_seconds()


class ApiSettings(BaseSettings):
    """How the API serves, what it allows, and the agent it serves."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", env_nested_delimiter="__")

    config_file: Path | None = None
    """A TOML file (JSON when it ends in ``.json``) of these settings, read at start; the
    environment and ``serve``'s options win over it."""
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    dev_mode: bool = False
    """No keys: every request acts as an admin of every scope. Only on 127.0.0.1."""
    embedder: Literal["minilm", "hashing"] = "minilm"
    """``hashing`` is the tiny deterministic stand-in (tests, benchmarks without a model)."""
    rate_limit_per_minute: int = Field(default=600, ge=1)
    """Requests per key per minute unless the key has its own limit."""
    daily_token_budget: int = Field(default=1_000_000, ge=0)
    """Model tokens (input + output) the scope a key is bound to may spend on turns per UTC day."""
    max_first: int = Field(default=100, ge=1, le=1000)
    """Hard cap on ``first`` of every list and connection."""
    max_depth: int = Field(default=10, ge=2)
    """Deepest selection nesting a GraphQL operation may have."""
    max_tokens: int = Field(default=2000, ge=100)
    """Most lexical tokens a GraphQL document may have (names, punctuation, values)."""
    max_aliases: int = Field(default=15, ge=1)
    """Most aliases a GraphQL document may use."""
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    """Largest request body (bytes) of every route but the import; larger is 413 before parsing."""
    max_import_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    """Largest body of ``POST /v1/import`` (bytes); larger files go through ``hippograph import``."""
    ws_allowed_origins: list[str] = Field(default_factory=list)
    """Origins (``https://host[:port]``) besides the server's own whose pages may open a GraphQL
    WebSocket; a JSON list in the environment."""
    store_retry_seconds: float = Field(default=5.0, gt=0, le=120)
    """How long a request retries a lost database connection (a restart, a failover) before it
    is answered 503 with ``Retry-After``."""
    neighbours_per_memory: int = Field(default=50, ge=1, le=500)
    agent: AgentConfig = AgentConfig()
    """The served agent: triage, prompt mode, fabrication policy, sessions and compaction,
    enabled layers, MCP servers, … (see :class:`~hippograph.agent.AgentConfig`)."""
    consolidation: ConsolidationConfig = ConsolidationConfig()
    """The served consolidator: the nap cadence (``turns_between_naps``, 10 by default; 0: no
    naps) and every phase's thresholds."""
    nightly: NightlySchedule = NightlySchedule()
    """The nightly consolidation the server runs by itself (none by default)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, dotenv_settings, file_secret_settings, ConfigFileSource(settings_cls)

    def served_consolidation(self) -> ConsolidationConfig:
        """The consolidator's config: ``consolidation``, with nightly runs allowed when the
        server schedules them."""
        if self.nightly.enabled and not self.consolidation.nightly_enabled:
            return self.consolidation.model_copy(update={"nightly_enabled": True})
        return self.consolidation


class ConfigFileSource(PydanticBaseSettingsSource):
    """The settings of ``config_file`` (named by ``serve --config``, a keyword argument or
    ``HIPPOGRAPH_API_CONFIG_FILE``), below the options and the environment."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # the whole file is read at once in __call__

    def __call__(self) -> dict[str, Any]:
        named = self.current_state.get("config_file") or os.environ.get(CONFIG_FILE_ENV)
        return read_config_file(Path(named)) if named else {}


def read_config_file(path: Path) -> dict[str, Any]:
    """The settings in a TOML (or ``.json``) file.

    Raises:
        ConfigurationError: The file cannot be read or parsed, or holds no table of settings.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(f"config file {path}: {exc.strerror or exc}") from None
    try:
        data: object = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"config file {path}: not valid {_kind(path)}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigurationError(f"config file {path}: expected a table of settings at the top")
    return data


def _kind(path: Path) -> str:
    return "JSON" if path.suffix.lower() == ".json" else "TOML"


def describe_errors(exc: ValidationError) -> str:
    """A validation error of :class:`ApiSettings` as lines a person reads: each bad field by
    its dotted name, its environment variable and its config file table, and what is wrong."""
    lines = []
    for error in exc.errors(include_url=False):
        loc = [str(part) for part in error["loc"]]
        name = ".".join(loc) or "(settings)"
        where = f"{ENV_PREFIX}{'__'.join(loc).upper()}"
        if len(loc) > 1:
            where += f", or {loc[-1]} in [{'.'.join(loc[:-1])}] of the config file"
        value = error.get("input")
        shown = f" (got {value!r})" if isinstance(value, str | int | float | bool) and len(repr(value)) < 80 else ""
        lines.append(f"invalid setting {name} ({where}): {error['msg']}{shown}")
    return "\n".join(lines)


def effective_settings(api: ApiSettings, app: Settings | None = None) -> dict[str, JsonValue]:
    """What the server runs with, secrets masked: the API's settings (the agent's included)
    and the application's (the connection, the embedder, the model)."""
    served = api.model_dump(mode="json")
    served["consolidation"] = api.served_consolidation().model_dump(mode="json")  # as the consolidator runs
    for server in served["agent"]["mcp_servers"]:
        server["env"] = dict.fromkeys(server["env"], MASK)
        server["headers"] = dict.fromkeys(server["headers"], MASK)
        if server.get("url"):
            server["url"] = _without_credentials(server["url"])
    result: dict[str, JsonValue] = {"api": served}
    if app is not None:
        shown = app.model_dump(mode="json")  # SecretStr fields dump as "**********"
        if shown.get("neo4j_uri"):
            shown["neo4j_uri"] = _without_credentials(shown["neo4j_uri"])
        if shown.get("anthropic_base_url"):
            shown["anthropic_base_url"] = _without_credentials(shown["anthropic_base_url"])
        result["app"] = shown
    return result


def _without_credentials(url: str) -> str:
    """``url`` with any user and password and its query masked."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rsplit('@', 1)[1]}"
    return urlunsplit((parts.scheme, netloc, parts.path, MASK if parts.query else "", ""))
