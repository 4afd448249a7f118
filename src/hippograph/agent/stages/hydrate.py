"""Hydrate stage: recall into the memory context (full prompt mode), then the prompt: the
system prompt and the messages of the first model call.

In JIT mode nothing is recalled here: the model asks through the ``hydrate_context`` tool
(see :mod:`hippograph.agent.stages.tools`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from hippograph.agent.events import AgentEvent, StageFailed
from hippograph.agent.prompt_sections import SectionInput
from hippograph.agent.prompts import full_system_prompt, jit_system_prompt
from hippograph.agent.stages import Stage
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.turn_state import TurnState
from hippograph.llm.types import ChatMessage


async def run(t: TurnState, d: StageDeps) -> AsyncIterator[AgentEvent]:
    """Recall (its failures and its Activation are events), then build the prompt."""
    c = d.config
    memory_text = ""
    if c.hydrate.enabled and not t.jit:
        with t.clock.time(Stage.HYDRATE):
            hydration = await d.hydrator.hydrate(
                t.scope, t.message, t.require_decision().layers, session_id=t.require_session().id
            )
        for error in hydration.errors:
            yield error
        if hydration.activation is not None:
            yield hydration.activation
        memory_text = hydration.text
        t.memory_texts.append(memory_text)

    with t.clock.time(Stage.PROMPT):
        if t.jit:
            t.system = jit_system_prompt(
                scope=t.scope.key, agent_name=c.agent_name, agent_description=c.agent_description,
                cache=c.cache_system_prompt,
            )  # fmt: skip
        else:
            t.system = full_system_prompt(
                memory_text, scope=t.scope.key, agent_name=c.agent_name,
                agent_description=c.agent_description, cache=c.cache_system_prompt,
            )  # fmt: skip
        history = t.require_session().messages() if c.sessions.history_turns else []
        t.messages = [*history, ChatMessage(role="user", content=t.message)]
        failures = await _plugin_sections(t, d)
    for failure in failures:
        yield failure


async def _plugin_sections(t: TurnState, d: StageDeps) -> list[StageFailed]:
    """The host's plugin sections into the system prompt; the ones that failed, as events."""
    if d.sections is None or not len(d.sections):
        return []
    given = SectionInput(t.scope, t.message, t.require_session().id, d.config.prompt_mode)
    t.system, rendered = await d.sections.apply(t.require_system(), given)
    return rendered.failures
