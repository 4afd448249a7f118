"""Triage stage: the intent verdict (which layers to recall) and tool routing (which tools
the model sees)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from hippograph.agent.capabilities import tools_for
from hippograph.agent.events import AgentEvent, IntentClassified, StageFailed, ToolRoutingDecision
from hippograph.agent.prompts import HYDRATE_CONTEXT_TOOL_NAME, hydrate_context_tool
from hippograph.agent.stages import Stage
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.triage import TriageMode, triage
from hippograph.agent.turn_state import TurnState


async def run(t: TurnState, d: StageDeps) -> AsyncIterator[AgentEvent]:
    """The turn's tools (from the capabilities registered), then decide; report the verdict
    and the routing (when they are switched on) and tool names that clashed."""
    c = d.config
    t.jit = c.prompt_mode == "jit" and c.hydrate.enabled
    with t.clock.time(Stage.TRIAGE):
        t.tools, clashes = tools_for(d.capabilities, t.scope)
        if t.tools.pop(HYDRATE_CONTEXT_TOOL_NAME, None) is not None:
            clashes.append(HYDRATE_CONTEXT_TOOL_NAME)
        specs = [tool.spec for tool in t.tools.values()]
        if t.jit:
            specs.append(hydrate_context_tool())
        t.decision = decision = triage(t.message, specs, d.triage, classifier=d.classifier)
    if clashes:
        yield StageFailed(
            stage=Stage.TRIAGE, error_type="ToolNameClash",
            message=f"tools left out, their names are taken: {', '.join(clashes)}"[:500],
        )  # fmt: skip
    if decision.intent is not None:
        yield IntentClassified.from_result(decision.intent, decision.intent_mode)
    if c.triage.tool_routing_mode is not TriageMode.OFF and specs:
        yield ToolRoutingDecision.from_routing(decision.routing)
