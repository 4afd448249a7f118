"""The memory facade above the layers and recall: :class:`Memory` (``hippograph.Memory``), the
capability a host binds to one scope (:class:`MemoryCapability`), conversation ingest and the
one commit path of memory operations."""

from hippograph.memory.capability import (
    Consolidation,
    Exchange,
    Extractor,
    MemoryCapability,
    Recollection,
    RecordPolicy,
    RecordReport,
)
from hippograph.memory.commit import CommitReport, OpWriter, Written
from hippograph.memory.ingest import ConversationTurn
from hippograph.memory.memory import Memory

__all__ = [
    "CommitReport",
    "Consolidation",
    "ConversationTurn",
    "Exchange",
    "Extractor",
    "Memory",
    "MemoryCapability",
    "OpWriter",
    "Recollection",
    "RecordPolicy",
    "RecordReport",
    "Written",
]
