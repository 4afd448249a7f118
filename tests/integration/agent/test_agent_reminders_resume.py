"""Triggers that do not nag and sessions that resume with their summary, over scripted
multi-session conversations on real Neo4j: a condition fires by meaning (MiniLM) as well
as by words; a due trigger is shown once per session unless it fires anew, in a resumed
session too; a long session compacts by tokens and a second connection resumes it with its
summary."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from hippograph.agent import Agent, AgentConfig, AgentResponse, SessionSettings, TriggerSettings
from hippograph.agent.events import TriggerFired
from hippograph.agent.sessions import KEPT_KEY, SUMMARY_KEY
from hippograph.embeddings import HashingEmbeddings, SentenceTransformerEmbeddings
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals

TRIP = "We are flying to Portugal next month for a holiday."  # no word of the trip condition


@pytest.fixture(scope="module")
def minilm() -> Iterator[SentenceTransformerEmbeddings]:
    provider = SentenceTransformerEmbeddings()
    yield provider
    provider.close()


def _fired(reply: AgentResponse) -> list[tuple[str, str]]:
    return [(e.id, e.reason) for e in reply.events if isinstance(e, TriggerFired)]


async def test_conditions_fire_by_meaning_and_a_due_trigger_is_shown_once_per_session(
    tenant: Scope, store: GraphStore, minilm: SentenceTransformerEmbeddings
) -> None:
    memory = Memory(store, minilm)
    pm = internals(memory).prospective
    rent = await pm.set_trigger(tenant, "rent day", "remind them to pay the rent", due_at=time.time() - 3600)
    trip = await pm.set_trigger(tenant, "the user plans a trip abroad", "offer the travel checklist")
    model = ScriptedModel(["Sure."], cycle=True)
    agent = Agent(memory, model)

    assert _fired(await agent.run(tenant, "Good morning.", session_id="a")) == [(rent.id, "due")]
    planned = await agent.run(tenant, TRIP, session_id="a")
    assert _fired(planned) == [(trip.id, "condition")]  # by meaning; the rent was shown already
    event = next(e for e in planned.events if isinstance(e, TriggerFired))
    assert event.matched == [] and event.similarity is not None and event.similarity >= 0.3
    section = model.requests[-1].system.context  # type: ignore[union-attr]
    assert f"[id:{rent.id[:8]}] reminded earlier in this conversation" in section
    assert "FIRED, the message is about this" in section
    assert _fired(await agent.run(tenant, "What should I cook tonight?", session_id="a")) == []
    assert _fired(await agent.run(tenant, "Did I pay the rent?", session_id="a")) == [(rent.id, "due")]  # anew
    assert _fired(await agent.run(tenant, TRIP, session_id="a")) == [(trip.id, "condition")]  # a new matching turn
    assert _fired(await agent.run(tenant, "Good morning.", session_id="b")) == [(rent.id, "due")]  # another chat
    await agent.drain()

    restarted = Agent(Memory(store, minilm), ScriptedModel(["Sure."], cycle=True))
    assert _fired(await restarted.run(tenant, "Hello.", session_id="a")) == []  # resumed: shown already
    resumed = restarted.sessions.get(tenant, "a")
    assert resumed is not None and resumed.resumed and rent.id in resumed.reminded

    by_words = AgentConfig(triggers=TriggerSettings(match_by_meaning=False, once_per_session=False))
    words_only = Agent(memory, ScriptedModel(["Sure."], cycle=True), by_words)
    assert _fired(await words_only.run(tenant, TRIP, session_id="c")) == [(rent.id, "due")]
    assert _fired(await words_only.run(tenant, "Hello.", session_id="c")) == [(rent.id, "due")]  # as before: nags
    for done in (restarted, words_only):
        await done.drain()


def _echo() -> ScriptedModel:
    return ScriptedModel(lambda request: f"echo: {request.messages[-1].text}")


async def test_a_session_compacts_by_tokens_and_resumes_with_its_summary_over_another_connection(
    tenant: Scope, memory: Memory, make_agent: MakeAgent, neo4j_server: tuple[str, str]
) -> None:
    config = AgentConfig(sessions=SessionSettings(history_turns=10, history_tokens=30, compaction="extractive"))
    said = [
        "We picked Lisbon for the May trip.",
        "The budget is two thousand euros.",
        "Maria wants a hotel near the river.",
        "We land on the third at noon.",
    ]  # 17–20 tokens a turn with the echo: two never fit in 30, far below 10 turns
    first = make_agent(_echo(), config)
    for message in said:
        await first.run(tenant, message, session_id="long")
    await first.drain()
    session = first.sessions.get(tenant, "long")
    assert session is not None and [t.user for t in session.history] == [said[3]]
    kept_summary = session.summary
    assert "Lisbon" in kept_summary and "Maria" not in kept_summary  # turns 1–2 folded, 3 waits
    newest = (await internals(memory).episodic.query_events(tenant, session_id="long", limit=1))[0]
    assert newest.properties[SUMMARY_KEY] == kept_summary and newest.properties[KEPT_KEY] == 1

    uri, password = neo4j_server
    conn = await Neo4jConnection.connect(uri, password=password)  # another process's connection
    try:
        model = _echo()
        second = Agent(Memory(GraphStore(conn), HashingEmbeddings()), model, config)
        await second.run(tenant, "What did we settle on?", session_id="long")
        await second.drain()
    finally:
        await conn.close()
    sent = model.requests[0]
    assert [m.text for m in sent.messages] == [said[3], f"echo: {said[3]}", "What did we settle on?"]
    context = sent.system.context  # type: ignore[union-attr]
    line = next(x for x in context.splitlines() if x.startswith("Summary of the turns before these messages: "))
    assert "Lisbon" in line and "Maria" in line  # the stored summary, and turn 3 folded into it now
