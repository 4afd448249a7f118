"""The API's settings (environment prefix ``HIPPOGRAPH_API_``), read at the application edge."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ApiSettings(BaseSettings):
    """How the API serves and what it allows."""

    model_config = SettingsConfigDict(env_prefix="HIPPOGRAPH_API_", extra="forbid")

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
