"""Domain models: memory nodes and edges, the closed vocabularies that become labels and
relationship types, and the small value types shared by layers, retrieval and consolidation."""

from __future__ import annotations

import math
import re
import time
import uuid
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from hippograph.errors import InvalidInputError

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$")
MAX_TEXT = 20_000
MAX_LABEL = 300
MAX_SOURCE_EPISODES = 20


def now() -> float:
    """Wall-clock seconds since the epoch: every *_at field uses this unit."""
    return time.time()


def new_id() -> str:
    return uuid.uuid4().hex


def check_id(value: Any, field: str = "id") -> str:
    """Validate an id before it reaches a query; raise InvalidInputError naming ``field``."""
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        raise InvalidInputError(field, f"must match {ID_PATTERN.pattern}, got {value!r:.80}")
    return value


class Layer(StrEnum):
    """The five memory layers. ``label`` is the Neo4j node label."""

    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    PROSPECTIVE = "prospective"

    @property
    def label(self) -> str:
        return self.value.capitalize()


class Durability(StrEnum):
    DURABLE = "durable"
    TRANSIENT = "transient"
    EXPIRED = "expired"


class Provenance(StrEnum):
    DIRECT = "direct"
    SYNTHETIC = "synthetic"
    INFERRED = "inferred"
    CORRECTION = "correction"


class Relationship(StrEnum):
    """Relationship types between memories (closed: they become Neo4j relationship types)."""

    RELATES_TO = "RELATES_TO"
    MENTIONS = "MENTIONS"
    NEXT = "NEXT"
    CO_OCCURRED = "CO_OCCURRED"
    INFERRED = "INFERRED"
    SYNTHETIC_LINK = "SYNTHETIC_LINK"
    CLUSTERS = "CLUSTERS"
    SUPERSEDES = "SUPERSEDES"
    SUMMARIZES = "SUMMARIZES"
    DERIVED_FROM = "DERIVED_FROM"
    PART_OF = "PART_OF"
    CAUSES = "CAUSES"
    PREFERS = "PREFERS"
    HAS_STEP = "HAS_STEP"
    TRIGGERS = "TRIGGERS"
    RESEMBLES = "RESEMBLES"

    @classmethod
    def parse(cls, value: str | Relationship, field: str = "relationship") -> Relationship:
        try:
            return cls(value)
        except ValueError:
            raise InvalidInputError(
                field, f"unknown relationship {value!r:.60}; one of {[r.value for r in cls]}"
            ) from None


class KeyKind(StrEnum):
    """What a key (``(:Key)-[:KEY_OF]->(:Memory)``, an extra index entry enrichment writes for a
    turn) says of its turn."""

    KEYPHRASE = "keyphrase"
    DATE = "date"
    """A date the turn means, resolved to an absolute one."""
    STATEMENT = "statement"
    """What the speaker says of themselves, told of the speaker by name."""
    FACT = "fact"
    QUESTION = "question"
    """A question the turn answers."""
    PERSON = "person"
    """What the turn implies about a person."""


Importance = Annotated[float, Field(ge=1.0, le=10.0)]


class MemoryNode(BaseModel):
    """One memory. ``scope_key`` is set by the store from the scope it is written in."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(default_factory=new_id)
    layer: Layer
    label: str = Field(default="", max_length=MAX_LABEL)
    content: str = Field(default="", max_length=MAX_TEXT)
    context: str = Field(default="", max_length=MAX_TEXT)
    properties: dict[str, JsonValue] = Field(default_factory=dict)
    embedding: list[float] | None = None
    scope_key: str = ""
    session_id: str | None = Field(default=None, max_length=128)
    """The chat session a working or episodic memory belongs to."""
    key: str | None = Field(default=None, max_length=MAX_LABEL)
    """A fact's stable subject key (e.g. ``user.home_city``): a new fact with the same key in
    the same scope supersedes the current one."""
    created_at: float = Field(default_factory=now)
    updated_at: float = Field(default_factory=now)
    occurred_at: float | None = None
    access_count: int = Field(default=0, ge=0)
    spreading_access_count: int = Field(default=0, ge=0)
    last_accessed_at: float | None = None
    importance: Importance = 5.0
    durability: Durability = Durability.DURABLE
    ttl: float | None = Field(default=None, gt=0)
    valid_from: float | None = None
    valid_until: float | None = None
    superseded_by: str | None = None
    retracted: bool = False
    retracted_at: float | None = None
    retraction: dict[str, JsonValue] | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        return check_id(v)

    @field_validator("embedding")
    @classmethod
    def _embedding(cls, v: list[float] | None) -> list[float] | None:
        if v is None:
            return None
        if len(v) == 0:
            raise ValueError("embedding must not be empty")
        if not all(math.isfinite(x) for x in v):
            raise ValueError("embedding must hold finite numbers")
        # a zero vector has no direction: Neo4j's cosine refuses it, and one stored would fail
        # every exact-scan recall of the scopes that see it; such a memory has no embedding
        return v if any(v) else None

    @property
    def text(self) -> str:
        """The memory's own words: label and content."""
        if self.label and self.content and not self.content.startswith(self.label):
            return f"{self.label}: {self.content}"
        return self.content or self.label

    @property
    def search_text(self) -> str:
        """What the fulltext index sees: the text plus its retrieval ``context``
        (speaker, date, caption, neighbouring words) when the writer supplied one."""
        return f"{self.text}\n{self.context}" if self.context else self.text


class MemoryEdge(BaseModel):
    """A weighted, typed link between two memories of visible scopes."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=new_id)
    source: str
    target: str
    relationship: Relationship = Relationship.RELATES_TO
    weight: float = Field(default=1.0, gt=0)
    provenance: Provenance = Provenance.DIRECT
    uses: int = Field(default=0, ge=0)
    created_at: float = Field(default_factory=now)
    source_episodic_ids: list[str] = Field(default_factory=list, max_length=MAX_SOURCE_EPISODES)
    scope_key: str = ""

    @field_validator("id", "source", "target")
    @classmethod
    def _ids(cls, v: str) -> str:
        return check_id(v)

    @field_validator("relationship", mode="before")
    @classmethod
    def _rel(cls, v: Any) -> Relationship:
        return Relationship.parse(v)
