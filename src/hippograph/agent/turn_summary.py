"""A turn's summary for telemetry — numbers and names, never text — and its two shapes
outside the process: span attributes under :data:`SUMMARY_PREFIX` and one JSON line."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hippograph.llm.types import TokenUsage
from hippograph.tracing import AttributeValue

__all__ = [
    "SUMMARY_PREFIX",
    "TurnStats",
    "TurnSummary",
    "append_lines",
    "summary_attributes",
    "summary_from_attributes",
]

SUMMARY_PREFIX = "hippograph.telemetry."
"""The prefix of the span attributes that carry a :class:`TurnSummary` (its fields, nested
ones joined by dots: ``hippograph.telemetry.turn.usage.output_tokens``)."""


class TurnStats(BaseModel):
    """The foreground part of a turn, taken when the turn hands its exchange on."""

    model_config = ConfigDict(frozen=True)

    model: str | None = None
    stop_reason: str | None = None
    model_calls: int = 0
    usage: TokenUsage = Field(default_factory=TokenUsage)
    stages_ms: dict[str, float] = Field(default_factory=dict)
    tools: list[str] = Field(default_factory=list)
    message_chars: int = 0
    reply_chars: int = 0
    ops: int = 0
    stage_failures: list[str] = Field(default_factory=list)


class TurnSummary(BaseModel):
    """One turn, summarised for telemetry (one JSON line in :class:`JsonLinesTelemetry`)."""

    model_config = ConfigDict(frozen=True)

    at: float = Field(default_factory=time.time)
    scope_key: str
    session_id: str
    task_id: str
    turn: TurnStats
    turn_event_id: str | None = None
    action_event_id: str | None = None
    applied_ops: int = 0
    failed_ops: int = 0
    skipped_ops: int = 0
    quick_nap: bool = False
    background_ms: float = 0.0
    background_failures: list[str] = Field(default_factory=list)


def append_lines(path: Path, summaries: Iterable[TurnSummary]) -> None:
    """Append one JSON line per summary to ``path`` (created with its folder when missing)."""
    text = "".join(summary.model_dump_json() + "\n" for summary in summaries)
    if not text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(text)


def summary_attributes(summary: TurnSummary) -> dict[str, AttributeValue]:
    """``summary`` as span attributes under :data:`SUMMARY_PREFIX` (fields left unset — None —
    are left out); :func:`summary_from_attributes` reads it back."""
    flat: dict[str, AttributeValue] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}.{key}", inner)
        elif value is not None:
            flat[prefix] = list(value) if isinstance(value, list) else value

    walk(SUMMARY_PREFIX.rstrip("."), summary.model_dump(mode="json"))
    return flat


def summary_from_attributes(attributes: Mapping[str, object] | None) -> TurnSummary | None:
    """The :class:`TurnSummary` a span's attributes carry; None when they carry none."""
    tree: dict[str, Any] = {}
    for key, value in (attributes or {}).items():
        if not key.startswith(SUMMARY_PREFIX):
            continue
        *path, leaf = key[len(SUMMARY_PREFIX) :].split(".")
        node = tree
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = list(value) if isinstance(value, tuple) else value
    return TurnSummary.model_validate(tree) if tree else None
