"""What extraction found in a reply: the valid memory ops, the skipped ones and the strategy
that found the block. Plain values, read by the events and the stages alike; the parser is
in :mod:`hippograph.agent.ops_block`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from hippograph.ops import MemoryOp


class ExtractionStrategy(StrEnum):
    """Which strategy found the block."""

    MEMORY_EXTRACT = "memory_extract"
    GRAPH_OPERATIONS = "graph_operations"
    JSON_FENCE = "json_fence"
    BARE_JSON = "bare_json"


@dataclass(frozen=True, slots=True)
class InvalidOp:
    """An op that was skipped: its position in the payload and why."""

    index: int
    reason: str


@dataclass(frozen=True)
class ExtractionResult:
    """What extraction found.

    Attributes:
        reply: The user-visible reply, with the block removed.
        ops: The valid ops, in payload order.
        invalid: The skipped ops as ``(index, reason)``.
        strategy: The strategy that found a block, or None.
        reason: Why ``ops`` is empty (no block, bad JSON, ...); None when ops were found.
    """

    reply: str
    ops: list[MemoryOp] = field(default_factory=list)
    invalid: list[InvalidOp] = field(default_factory=list)
    strategy: ExtractionStrategy | None = None
    reason: str | None = None
