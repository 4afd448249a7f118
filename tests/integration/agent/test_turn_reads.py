"""The turn's small reads in one statement (``search_turn_reads``, :class:`TurnReads`): the
rows are exactly those of the three reads it replaces, the prompt a turn builds from them is the
one the parts' own reads build, every turn reads afresh (a persona or trigger written between
two turns is in the next prompt), and a failing combined read leaves each part to read itself."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from hippograph.agent import Agent, AgentConfig
from hippograph.agent.events import StageFailed
from hippograph.errors import StoreError
from hippograph.layers.repository import LayerRepository
from hippograph.layers.semantic import AGENT_IDENTITY, MAX_PERSONA_NODES, SOUL_PREFIX
from hippograph.llm import ScriptedModel
from hippograph.llm.types import ModelRequest
from hippograph.memory import Memory
from hippograph.memory import memory as orchestrator_module
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from hippograph.store.queries import MemoryQuery
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals


async def _seed(memory: Memory, tenant: Scope) -> Scope:
    """A chat under a user, with persona nodes on both, triggers, working memory and a sibling."""
    user = tenant.child("user", "u1")
    chat = user.child("chat", "c1")
    await internals(memory).semantic.ensure_identity(user, "I am Hippo, a careful assistant.")
    await internals(memory).semantic.soul(user, "style", {"tone": "dry", "length": "short"})
    await internals(memory).semantic.soul(chat, "style", {"length": "long"})
    await internals(memory).semantic.soul(user.child("chat", "other"), "style", {"tone": "loud"})  # a sibling's: unseen
    await internals(memory).semantic.store_fact(user, "The user's dog is called Rex.")
    await internals(memory).prospective.set_trigger(
        chat, "the user mentions the budget", "remind them of the March review"
    )
    gone = await internals(memory).prospective.set_trigger(chat, "the user mentions taxes", "file the forms")
    await memory.retract(chat, gone.id, reason="test", actor="user")
    await internals(memory).working.push(chat, "User: hello | Agent: hi there", session_id="s1")
    await internals(memory).working.push(chat, "User: other session | Agent: yes", session_id="s2")
    return chat


async def test_the_combined_read_returns_exactly_the_rows_of_the_three_reads(tenant: Scope, memory: Memory) -> None:
    chat = await _seed(memory, tenant)
    repo = LayerRepository(internals(memory).store)
    for scope in (chat, tenant.child("user", "u1"), tenant):
        rows = await repo.turn_reads(
            scope, working=True, prospective=True, persona=True, identity=AGENT_IDENTITY, prefix=SOUL_PREFIX,
            limit=MAX_PERSONA_NODES,
        )  # fmt: skip
        assert rows.working == await repo.own_nodes(scope, Layer.WORKING)
        assert rows.prospective == await repo.own_nodes(scope, Layer.PROSPECTIVE)
        persona = await repo.persona_nodes(scope, identity=AGENT_IDENTITY, prefix=SOUL_PREFIX, limit=MAX_PERSONA_NODES)
        assert rows.persona is not None and sorted(rows.persona, key=lambda n: n.id) == sorted(
            persona, key=lambda n: n.id
        )
    rows = await repo.turn_reads(chat, working=True, prospective=True, persona=True, identity=AGENT_IDENTITY,
                                 prefix=SOUL_PREFIX, limit=MAX_PERSONA_NODES)  # fmt: skip
    assert rows.working is not None and len(rows.working) == 2
    assert rows.prospective is not None and len(rows.prospective) == 1  # the retracted one is not read
    assert rows.persona is not None and len(rows.persona) == 3  # identity + the user's and the chat's style
    none = await repo.turn_reads(chat, working=False, prospective=False, persona=False, identity=AGENT_IDENTITY,
                                 prefix=SOUL_PREFIX, limit=MAX_PERSONA_NODES)  # fmt: skip
    assert (none.working, none.prospective, none.persona) == (None, None, None)


class _StopAtTheModel:
    """Records the request and fails: a failed turn stores nothing, so the next run of the
    same turn sees the same store."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        self.requests.append(request)
        raise RuntimeError("stop at the model")
        yield  # an async generator

    async def complete(self, request: ModelRequest) -> Any:
        self.requests.append(request)
        raise RuntimeError("stop at the model")


async def _stopped_turn(agent: Agent, chat: Scope, message: str) -> list[StageFailed]:
    """Run a turn up to the model; the stage failures it reported (the model's stop last)."""
    return [e async for e in agent.stream(chat, message, session_id="s1") if isinstance(e, StageFailed)]


def _prompt(request: ModelRequest) -> tuple[Any, ...]:
    assert request.system is not None
    return (request.system.model_dump(), [m.model_dump() for m in request.messages])


def _statements(conn: Neo4jConnection, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = conn.read

    async def read(query: Any, **params: Any) -> Any:
        seen.append(str(query))
        return await original(query, **params)

    monkeypatch.setattr(conn, "read", read)
    return seen


async def test_a_turn_builds_the_same_prompt_from_one_statement_as_from_the_parts_own_reads(
    tenant: Scope, memory: Memory, make_agent: MakeAgent, conn: Neo4jConnection,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    chat = await _seed(memory, tenant)
    message = "What about the budget? And my dog?"
    seen = _statements(conn, monkeypatch)
    folded = _StopAtTheModel()
    await _stopped_turn(make_agent(folded, AgentConfig()), chat, message)
    folded_reads = list(seen)

    real = orchestrator_module.Memory.turn_reads

    def parts_read_themselves(self: Any, scope: Scope, **_: bool) -> Any:
        return real(self, scope, working=False, prospective=False, persona=False)

    monkeypatch.setattr(orchestrator_module.Memory, "turn_reads", parts_read_themselves)
    seen.clear()
    own = _StopAtTheModel()
    await _stopped_turn(make_agent(own, AgentConfig()), chat, message)
    own_reads = list(seen)

    assert _prompt(folded.requests[0]) == _prompt(own.requests[0])
    system = folded.requests[0].system
    assert system is not None
    shown = system.model_dump_json()
    assert "March review" in shown and "hi there" in shown and "length" in shown and "Hippo" in shown
    assert "other session" not in shown and "loud" not in shown and "file the forms" not in shown
    assert folded_reads.count(MemoryQuery.SEARCH_TURN_READS) == 1
    assert MemoryQuery.SEARCH_PERSONA not in folded_reads and MemoryQuery.SEARCH_SCOPE_LAYER not in folded_reads[:1]
    assert own_reads.count(MemoryQuery.SEARCH_SCOPE_LAYER) >= 2 and MemoryQuery.SEARCH_PERSONA in own_reads


async def test_every_turn_reads_afresh_a_persona_or_trigger_written_between_turns_is_in_the_next_prompt(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    chat = await _seed(memory, tenant)
    model = ScriptedModel(["Sure."], cycle=True)
    agent = make_agent(model, AgentConfig())
    await agent.run(chat, "Hello there.", session_id="s1")
    await agent.drain()
    await internals(memory).semantic.soul(chat, "manner", {"greeting": "ahoy"})
    await internals(memory).prospective.set_trigger(chat, "the user says hello", "wave back")
    await agent.run(chat, "Hello again.", session_id="s1")
    second = model.requests[-1].system
    assert second is not None
    shown = second.model_dump_json()
    assert "ahoy" in shown and "wave back" in shown


async def test_a_failing_combined_read_leaves_each_part_to_read_itself(
    tenant: Scope, memory: Memory, make_agent: MakeAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = await _seed(memory, tenant)
    message = "What about the budget? And my dog?"
    good = _StopAtTheModel()
    await _stopped_turn(make_agent(good, AgentConfig()), chat, message)

    async def boom(*_: Any, **__: Any) -> Any:
        raise StoreError("injected failure", retryable=True)

    monkeypatch.setattr(LayerRepository, "turn_reads", boom)
    model = _StopAtTheModel()
    failures = await _stopped_turn(make_agent(model, AgentConfig()), chat, message)
    assert [e.stage for e in failures] == ["model"]  # only the model's stop: every part read itself
    assert _prompt(model.requests[0]) == _prompt(good.requests[0])


def _db_hits(plan: dict[str, Any]) -> int:
    return int(plan.get("dbHits", 0)) + sum(_db_hits(child) for child in plan.get("children", []))


async def test_the_persona_read_seeks_the_persona_not_every_fact_the_scope_sees(
    tenant: Scope, memory: Memory, conn: Neo4jConnection
) -> None:
    """However many facts a user holds, a turn's persona read touches only the persona's nodes
    (the (scope_key, label) index), never each fact's label."""
    chat = await _seed(memory, tenant)
    user = tenant.child("user", "u1")
    facts = [MemoryNode(layer=Layer.SEMANTIC, label=f"fact {i}", content=f"The user likes {i}.") for i in range(400)]
    await internals(memory).store.add_nodes(user, facts)
    params = {
        "scope_key": chat.key, "visible": chat.ancestor_keys(), "working": False, "prospective": False,
        "persona": True, "working_layer": Layer.WORKING.value, "prospective_layer": Layer.PROSPECTIVE.value,
        "semantic_layer": Layer.SEMANTIC.value, "identity": AGENT_IDENTITY, "prefix": SOUL_PREFIX,
        "limit": MAX_PERSONA_NODES,
    }  # fmt: skip
    for query in (MemoryQuery.SEARCH_TURN_READS, MemoryQuery.SEARCH_PERSONA):
        profiled = "PROFILE " + query.text
        _, summary, _ = await conn.driver.execute_query(
            profiled, {**params, "layer": Layer.SEMANTIC.value}, database_=conn.database
        )
        assert summary.profile is not None
        assert _db_hits(summary.profile) < 100, query  # 400 facts: a label read each would be 800+
    rows = await LayerRepository(internals(memory).store).turn_reads(
        chat, working=False, prospective=False, persona=True, identity=AGENT_IDENTITY, prefix=SOUL_PREFIX,
        limit=MAX_PERSONA_NODES,
    )  # fmt: skip
    assert rows.persona is not None and len(rows.persona) == 3
