"""Settings read from the environment (prefix ``HIPPOGRAPH_``). Read at the application edge
only — the CLI, the API, the demo; the library takes explicit arguments."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from hippograph.embeddings.base import EmbeddingProvider
from hippograph.llm.defaults import DEFAULT_MODEL


class Settings(BaseSettings):
    """Everything the application edge reads from ``HIPPOGRAPH_*`` variables (or takes as
    keyword arguments). A misspelt option is an error, not ignored."""

    model_config = SettingsConfigDict(env_prefix="HIPPOGRAPH_", extra="forbid", populate_by_name=True)

    neo4j_uri: str | None = None
    """A running Neo4j (bolt://, neo4j://, neo4j+s://). Unset: the local embedded server."""
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"
    data_dir: Path = Path(".hippograph")
    """Where the local Neo4j keeps its data, password, pid and log (``<data_dir>/neo4j``)."""
    neo4j_port: int | None = None
    neo4j_heap: str = "1g"
    neo4j_pagecache_mb: int = 256
    neo4j_version: str | None = None
    """The Neo4j release the local server builds and runs (``5.26.31``: the 5.26 LTS line, on Java
    17–21; unset: the launcher's 2026.x, on Java 21+). Each version gets a launcher of its own."""
    embedder: str = "minilm"
    """The embedder of the memories' vectors: ``minilm`` (all-MiniLM-L6-v2, the default),
    ``st:PATH`` (a sentence-transformers model's folder), ``openai:MODEL[@BASE_URL]`` (an
    OpenAI-compatible ``/embeddings`` endpoint) or ``hashing:N`` (tests). The database records
    it and refuses another: ``hippograph reembed --embedder SPEC`` moves it to a new one."""
    embedder_api_key: SecretStr | None = None
    """The bearer key of an ``openai:`` embedder (else ``OPENAI_API_KEY`` is used when set)."""
    anthropic_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("HIPPOGRAPH_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY")
    )
    """Read from ``HIPPOGRAPH_ANTHROPIC_API_KEY`` or, as the SDK does, ``ANTHROPIC_API_KEY``."""
    anthropic_model: str = DEFAULT_MODEL
    """The Claude model the demo and the CLI ask for (one default for the whole library)."""
    anthropic_base_url: str | None = None
    """Another Messages API root (a proxy, a gateway); unset: Anthropic's."""
    consolidation_model: bool = True
    """With an Anthropic key, Claude writes episode summaries and judges merges during
    consolidation; False (or no key) keeps the extractive, cosine-only path."""

    def make_embedder(self) -> EmbeddingProvider:
        """The embedder :attr:`embedder` names."""
        from hippograph.embeddings.spec import embedder_from_spec

        key = self.embedder_api_key.get_secret_value() if self.embedder_api_key else None
        return embedder_from_spec(self.embedder, api_key=key)

    @property
    def local_data_dir(self) -> Path:
        return self.data_dir / "neo4j"
