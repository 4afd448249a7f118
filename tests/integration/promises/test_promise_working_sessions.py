"""Issue 9 #8: working memory is per session, as in the reference: two chats of one user do
not share their "last turns" block (episodic memory, which is shared, may still recall an
earlier chat — but as an event, not as the last turns of this one)."""

from __future__ import annotations

from hippograph.agent import Agent, AgentConfig
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.scope import Scope


def _working_lines(context: str) -> list[str]:
    return [line for line in context.splitlines() if "[working" in line]


async def test_two_chats_of_one_user_do_not_share_their_last_turns(memory: Memory, tenant: Scope) -> None:
    user = tenant.child("user", "ana")
    model = ScriptedModel(lambda request: f"echo: {request.messages[-1].text}")
    agent = Agent(memory, model, AgentConfig())
    try:
        await agent.run(user, "The secret word is pineapple.", session_id="chat-1")
        await agent.drain()
        await agent.run(user, "Tell me about the weather today.", session_id="chat-2")
        await agent.drain()
        await agent.run(user, "And what did I just say?", session_id="chat-1")
        await agent.drain()
    finally:
        await agent.drain()
    chat1_first, chat2, chat1_again = (r.system.context or "" for r in model.requests)  # type: ignore[union-attr]
    assert _working_lines(chat1_first) == []
    assert not any("pineapple" in line for line in _working_lines(chat2)), chat2
    own = _working_lines(chat1_again)
    assert any("pineapple" in line for line in own), chat1_again  # a chat still sees its own last turns
    assert not any("weather" in line for line in own), chat1_again
