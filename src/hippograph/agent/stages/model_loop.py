"""Model-loop stage: call the model; while it asks for tools, run them and call it again
(at most ``tools.max_rounds`` rounds). Leaves the last call's draft in the turn state for
the fabrication stage, its ``MessageEnd`` still held."""

from __future__ import annotations

from collections.abc import AsyncIterator

from hippograph.agent.events import AgentEvent, StageFailed
from hippograph.agent.fabrication import FabricationMode
from hippograph.agent.stages import Stage, model, tools
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.turn_state import TurnState
from hippograph.llm.types import ChatMessage, ToolResultBlock

HOLDING_MODES = frozenset({FabricationMode.REVISE, FabricationMode.REFUSE})
"""Fabrication modes that must see the whole draft before the user sees any of it."""


async def run(t: TurnState, d: StageDeps) -> AsyncIterator[AgentEvent]:
    """The model ↔ tools rounds; ``t.messages`` grows with each round."""
    hold = d.checker.mode in HOLDING_MODES
    rounds = 0
    while True:
        async for event in model.call(t, d, model.request(d, t, t.messages), hold=hold):
            yield event
        response = t.require_last()
        calls = response.tool_calls
        if response.stop_reason != "tool_use" or not calls:
            return
        if rounds >= d.config.tools.max_rounds:
            yield StageFailed(
                stage=Stage.TOOLS, error_type="ToolRoundLimit",
                message=f"the model asked for tools again after {rounds} rounds; stopped",
            )  # fmt: skip
            return
        rounds += 1
        for delta in t.held:
            yield delta
        yield t.require_last_end()
        results: list[ToolResultBlock] = []
        async for event in tools.run(t, d, calls, results):
            yield event
        t.messages = [*t.messages, model.assistant(response), ChatMessage(role="user", content=list(results))]
