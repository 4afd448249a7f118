"""Fabrication stage: check the draft against what the turn saw (memory, tool results, the
user's words) and observe, revise or refuse; then release the reply's held text.

The draft is the model's last reply with its memory block stripped (parsed by
:func:`hippograph.agent.stages.extraction.parse`). ``revise`` asks the model once more with
the findings and streams the rewrite; ``refuse`` replaces the reply with the safe one and
drops the draft's memory ops. With the check off this stage only sets the reply.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from hippograph.agent.events import AgentEvent, FabricationDetected
from hippograph.agent.fabrication import FabricationMode
from hippograph.agent.stages import Stage, extraction, model
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.turn_state import TurnState
from hippograph.llm.events import TextDelta
from hippograph.llm.types import ChatMessage, TextBlock

KEEP_BLOCK_NOTE = "\nKeep your <MEMORY_EXTRACT> block, if you had one, at the end of the rewritten reply."


async def run(t: TurnState, d: StageDeps) -> AsyncIterator[AgentEvent]:
    """Check the draft; yield the finding, any revision, then the reply's text."""
    t.stage = Stage.FINISH
    t.extraction = extraction.parse(t, d)
    reply, released = t.extraction.reply.strip(), t.held
    if d.checker.mode is not FabricationMode.OFF:
        with t.clock.time(Stage.FABRICATION):
            report = d.checker.check(
                reply,
                tool_results=[r.content for r in t.tool_results],
                memory_context="\n".join(t.memory_texts),
                user_message="\n".join([*(m.text for m in t.messages if m.role == "user")]),
            )
        detected = FabricationDetected.from_report(report)
        if detected is not None:
            yield detected
        if report.action == "refused":
            t.refused, reply = True, report.reply
            released = [TextDelta(index=_text_index(t), text=reply)]
        elif report.action == "revise" and report.revision_instructions:
            t.held = []  # the draft's text is never shown; its message is closed
            if t.last_end is not None:
                yield t.last_end
            revision = [
                *t.messages,
                model.assistant(t.require_last()),
                ChatMessage(role="user", content=report.revision_instructions + KEEP_BLOCK_NOTE),
            ]
            t.raw_texts = []  # the revision replaces the draft
            async for event in model.call(t, d, model.request(d, t, revision), hold=False, purpose="revision"):
                yield event
            revised = extraction.parse(t, d)
            reply = revised.reply.strip()
            if revised.strategy is not None:
                t.extraction = revised
            t.stage = Stage.FINISH
            released = []
    for delta in released:
        yield delta
    t.held = []
    t.reply = reply


def _text_index(t: TurnState) -> int:
    """The content index the reply's text had (where the safe reply goes)."""
    if t.held:
        return t.held[0].index
    response = t.last
    if response is not None:
        for i, block in enumerate(response.content):
            if isinstance(block, TextBlock):
                return i
    return 0
