"""Extraction stage: the memory ops of the reply's ``MEMORY_EXTRACT`` block (the block is
always stripped from what the user sees), reported as a ``MemoryExtracted`` event. Ops of a
refused draft are not applied; with extraction off none are."""

from __future__ import annotations

from collections.abc import AsyncIterator

from hippograph.agent.events import AgentEvent, MemoryExtracted
from hippograph.agent.extraction import ExtractionResult, extract_memory_ops
from hippograph.agent.stages import Stage
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.turn_state import TurnState

REFUSED_REASON = "the draft was refused by the fabrication check; its ops were not applied"


def parse(t: TurnState, d: StageDeps) -> ExtractionResult:
    """Parse the turn's last model reply(s) (timed as extraction)."""
    with t.clock.time(Stage.EXTRACTION):
        text = "\n\n".join(text.strip() for text in t.raw_texts if text.strip())
        return extract_memory_ops(text, max_ops=d.config.extraction.max_ops)


async def run(t: TurnState, d: StageDeps) -> AsyncIterator[AgentEvent]:
    """Settle the ops to apply (``t.ops``) and report them."""
    enabled = d.config.extraction.enabled
    result = t.require_extraction()
    t.ops = list(result.ops) if enabled and not t.refused else []
    if enabled:
        event = MemoryExtracted.from_result(result)
        if t.refused:
            event = event.model_copy(update={"ops": [], "reason": REFUSED_REASON})
        yield event
