"""The memory facade above the layers and recall: :class:`Memory` (``hippograph.Memory``), the
capability a host binds to one scope (:class:`MemoryCapability`), conversation ingest and the
one commit path of memory operations."""

from hippograph.memory.capability import MemoryCapability, RecordPolicy
from hippograph.memory.commit import CommitReport, OpWriter, Written
from hippograph.memory.ingest import ConversationTurn
from hippograph.memory.memory import Memory
from hippograph.memory.ports import Consolidation, Exchange, Extractor
from hippograph.memory.reports import Recollection, RecordFailure, RecordReport
from hippograph.memory.scopes import as_scope

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
    "RecordFailure",
    "RecordPolicy",
    "RecordReport",
    "Written",
    "as_scope",
]
