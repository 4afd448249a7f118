"""What the MCP tools return: small pydantic models (the SDK sends them as structured content
and as JSON text), mapped from the library's results by one function each."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from pydantic import BaseModel, Field

from hippograph.app.recall_view import explanation, path_in_words, snippet
from hippograph.models import MemoryNode
from hippograph.retrieval.types import RecallItem, RecallResult


class RecalledMemory(BaseModel):
    """One recalled memory and why it was recalled."""

    id: str
    layer: str
    scope_key: str
    text: str
    score: float
    current: bool = Field(description="False when a newer fact superseded it or it expired.")
    found_by: dict[str, int] = Field(description="Channel → this memory's rank in it.")
    score_parts: dict[str, float]
    activation_path: str | None = Field(description="Seed → relationship → … → this memory, in words.")
    explanation: str

    @classmethod
    def of(cls, item: RecallItem, labels: Mapping[str, str]) -> RecalledMemory:
        node = item.node
        return cls(
            id=node.id,
            layer=node.layer.value,
            scope_key=node.scope_key,
            text=snippet(node, 2000),
            score=round(item.score, 4),
            current=node.superseded_by is None and item.parts.currency >= 1,
            found_by={c.value: rank for c, rank in item.channels.items()},
            score_parts={k: round(v, 4) for k, v in item.parts.model_dump().items() if isinstance(v, float) and v},
            activation_path=path_in_words(item, labels),
            explanation=explanation(item, labels),
        )


class RecallAnswer(BaseModel):
    query: str
    scope_key: str
    items: list[RecalledMemory]
    degraded: list[str] = Field(description="Parts of recall that failed and were left out (normally empty).")

    @classmethod
    def of(cls, result: RecallResult, labels: Mapping[str, str]) -> RecallAnswer:
        return cls(
            query=result.query,
            scope_key=result.scope_key,
            items=[RecalledMemory.of(i, labels) for i in result.items],
            degraded=[f"{d.part}: {d.message}" for d in result.degraded],
        )


class StoredMemory(BaseModel):
    id: str
    layer: str
    scope_key: str
    text: str
    retracted: bool = False

    @classmethod
    def of(cls, node: MemoryNode) -> StoredMemory:
        return cls(
            id=node.id,
            layer=node.layer.value,
            scope_key=node.scope_key,
            text=snippet(node, 2000),
            retracted=node.retracted,
        )


class PendingTrigger(BaseModel):
    """A prospective memory: when ``condition`` holds (or at ``due``), do ``task``."""

    id: str
    scope_key: str
    condition: str
    task: str
    due: str | None = Field(description="ISO 8601, UTC; null when the trigger has no date.")
    overdue: bool

    @classmethod
    def of(cls, node: MemoryNode, now: float) -> PendingTrigger:
        due_at = node.properties.get("due_at")
        due = float(due_at) if isinstance(due_at, int | float) else None
        return cls(
            id=node.id,
            scope_key=node.scope_key,
            condition=str(node.properties.get("condition", "")),
            task=str(node.properties.get("task", "")),
            due=datetime.fromtimestamp(due, UTC).isoformat() if due is not None else None,
            overdue=due is not None and due <= now,
        )


class PendingTriggers(BaseModel):
    scope_key: str
    triggers: list[PendingTrigger]
