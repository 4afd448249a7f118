"""Two sessions' turns at once: each turn reports its own failures and no other turn's.

The summaries of older turns (long-session compaction, working memory's summary) ask the model;
here the model fails the compaction of session A's turn only, while session B's turn hydrates
at the same time. A's turn must report the failure and B's must not.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from hippograph.agent import AgentConfig
from hippograph.agent.events import StageFailed
from hippograph.llm import ScriptedModel
from hippograph.llm.errors import ModelError
from hippograph.llm.events import ModelEvent
from hippograph.llm.types import ModelRequest, ModelResponse
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent

SUMMARY_PREFIX = "You compress"


class _SummaryFailsForAlpha:
    """Replies "Fine." to turns; once armed, the first summary of session ``alpha`` fails soon,
    its next one answers late, and session ``beta``'s summaries answer in between."""

    def __init__(self) -> None:
        self._replies = ScriptedModel(lambda request: "Fine.")
        self.armed = False
        self._alpha_calls = 0

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        return self._replies.stream(request)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        is_summary = request.system is not None and request.system.text.startswith(SUMMARY_PREFIX)
        if is_summary and self.armed:
            if "alpha" in request.messages[0].text:
                self._alpha_calls += 1
                if self._alpha_calls == 1:
                    await asyncio.sleep(0.05)
                    raise ModelError("summary model down for alpha")
                await asyncio.sleep(0.6)
            else:
                await asyncio.sleep(0.2)
        return await self._replies.complete(request)


def _summary_failures(errors: list[StageFailed]) -> list[StageFailed]:
    return [e for e in errors if e.stage in ("hydrate.compaction", "hydrate.working_summary")]


async def test_a_summary_failure_is_reported_by_its_own_turn_only(tenant: Scope, make_agent: MakeAgent) -> None:
    model = _SummaryFailsForAlpha()
    config = AgentConfig.model_validate(
        {"hydrate": {"working_summary": "llm"}, "sessions": {"history_turns": 1, "compaction": "llm"}}
    )
    agent = make_agent(model, config)
    sessions: dict[str, str | None] = {"alpha": None, "beta": None}
    for i in range(3):
        for name in sessions:
            response = await agent.run(tenant, f"Message {i} of {name} about the trip.", session_id=sessions[name])
            sessions[name] = response.session_id
            await agent.drain()
    model.armed = True
    alpha, beta = await asyncio.gather(
        agent.run(tenant, "Message 3 of alpha about the trip.", session_id=sessions["alpha"]),
        agent.run(tenant, "Message 3 of beta about the trip.", session_id=sessions["beta"]),
    )
    assert [e.message for e in _summary_failures(alpha.errors)] == ["summary model down for alpha"]
    assert _summary_failures(beta.errors) == []
