"""The memory capability's own settings, against the real Neo4j: the quick nap in the
background (awaitable, its failures surfaced), a UTF-8 ceiling per memory beside the block
budget, recent turns of a bound conversation, spreading activation per capability, and every
scope form a host may hold."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from itertools import pairwise

import pytest

from hippograph.consolidation import ConsolidationConfig, ConsolidationReport, SleepConsolidator
from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import InvalidInputError, InvalidScopeError
from hippograph.memory import Memory, Recollection, RecordFailure, as_scope
from hippograph.models import Layer, Relationship
from hippograph.retrieval.config import ActivationConfig
from hippograph.retrieval.types import Channel
from hippograph.scope import Scope, ScopeLevel
from hippograph.store import Neo4jConnection
from tests.integration.memory.helpers import add, edge, node
from tests.support.memory_internals import internals

pytestmark = pytest.mark.integration


class HeldNap:
    """The real consolidator's cadence, its quick nap held until the test lets it go."""

    def __init__(self, consolidator: SleepConsolidator) -> None:
        self.consolidator = consolidator
        self.release = asyncio.Event()
        self.started = asyncio.Event()

    def note_turn(self, scope: Scope) -> bool:
        return self.consolidator.note_turn(scope)

    async def quick_nap(self, scope: Scope) -> object:
        self.started.set()
        await self.release.wait()
        return await self.consolidator.quick_nap(scope)


class FailingNap:
    def note_turn(self, scope: Scope) -> bool:
        return True

    async def quick_nap(self, scope: Scope) -> object:
        raise RuntimeError("the nap broke")


async def test_record_returns_before_the_nap_and_wait_idle_awaits_it(
    tenant: Scope, memory: Memory, conn: Neo4jConnection
) -> None:
    held = HeldNap(SleepConsolidator(conn, ConsolidationConfig(turns_between_naps=1)))
    me = memory.for_scope(tenant, consolidation=held)
    report = await asyncio.wait_for(me.record("My plant is a fern.", "Noted."), timeout=30)
    assert report.nap_due and report.nap_task is not None and report.nap is None
    await asyncio.wait_for(held.started.wait(), timeout=10)
    assert not report.nap_task.done() and me.naps_in_flight == 1
    assert "fern" in (await me.recall("What is my plant?")).text  # recallable while the nap waits
    held.release.set()
    assert await asyncio.wait_for(me.wait_idle(), timeout=60) == []
    assert isinstance(report.nap, ConsolidationReport) and report.nap_task.done()
    assert me.naps_in_flight == 0 and report.failures == []


async def test_a_failed_nap_is_surfaced_not_lost(tenant: Scope, memory: Memory) -> None:
    me = memory.for_scope(tenant, consolidation=FailingNap())
    report = await me.record("Hello.", "Hi.")
    assert report.nap_task is not None
    assert await report.nap_task is None
    failures = await me.wait_idle()
    assert failures == [RecordFailure("quick_nap", "RuntimeError", "the nap broke")]
    assert report.failures == failures and await me.wait_idle() == []  # reported once
    await me.record("Again.", "Sure.")
    assert [f.step for f in await me.flush()] == ["quick_nap"]


async def test_each_memory_is_cut_to_the_item_ceiling_within_the_block(tenant: Scope, memory: Memory) -> None:
    long = "Die Nutzerin wohnt in Zürich, nahe dem Seeufer, und liebt Grüße aus den Bergen 🏔️ " * 3
    await memory.remember(tenant, "Zürich home", long)
    await memory.remember(tenant, "Zürich office", "Das Büro ist in Zürich Oerlikon.")
    query = "Zürich"
    whole = await memory.for_scope(tenant, limit=5).recall(query, include_working=False)
    assert max(len(line.encode("utf-8")) for line in whole.text.splitlines()) > 120

    cut = await memory.for_scope(tenant, limit=5, item_budget=80).recall(query, include_working=False)
    lines = cut.text.splitlines()
    assert len(cut.ids) == len(whole.ids) and lines
    assert all(len(line.encode("utf-8")) <= 80 for line in lines)
    assert any(line.endswith("…") for line in lines)
    assert cut.text.encode("utf-8").decode("utf-8") == cut.text  # never half a character

    both = await memory.for_scope(tenant, limit=5, item_budget=80, budget=90).recall(query, include_working=False)
    assert both.bytes <= 90 and len(both.ids) == 1 and both.dropped
    with pytest.raises(InvalidInputError, match="item_budget"):
        memory.for_scope(tenant, item_budget=0)


async def test_a_bound_conversation_shows_its_own_recent_turns(tenant: Scope, memory: Memory) -> None:
    user = tenant.child("user", "dora")
    chat = memory.for_scope(user, conversation="chat-1", recent_turns=3)
    for i in range(5):
        await chat.record(f"Chat one message {i}.", f"Reply {i}.")
    await memory.for_scope(user, conversation="chat-2").record("Chat two message.", "Reply.")

    found = await chat.recall("message")
    working = [line for line in found.text.splitlines() if "[working" in line]
    assert len(working) == 3, found.text
    assert [("message 2" in w, "message 3" in w, "message 4" in w) for w in working] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
    ]
    assert not any("Chat two" in w for w in working)
    events = await internals(memory).store.query_subtree(user, {"layers": ["episodic"]})
    assert sorted({e.session_id for e in events}) == ["chat-1", "chat-2"]  # record chained per conversation

    none = await memory.for_scope(user, conversation="chat-1", recent_turns=0).recall("message")
    assert not any("[working" in line for line in none.text.splitlines())
    assert chat.conversation == "chat-1"
    with pytest.raises(InvalidInputError, match="recent_turns"):
        memory.for_scope(user, recent_turns=-1)


async def test_spreading_activation_is_set_per_capability(tenant: Scope, memory: Memory) -> None:
    query = "harbor lantern"
    seed = node(Layer.SEMANTIC, query, nid="S", embedding=await HashingEmbeddings().embed(query))
    chain = [node(Layer.SEMANTIC, f"chain link {i}", nid=f"A{i}") for i in (1, 2, 3)]  # only activation finds them
    await add(internals(memory).store, tenant, seed, *chain)
    await internals(memory).store.upsert_edges(
        tenant, [edge(a, b, Relationship.NEXT) for a, b in pairwise(["S", "A1", "A2", "A3"])]
    )

    def reached(found: Recollection) -> set[str]:
        return {i.node.id for i in found.result.items if Channel.ACTIVATION in i.channels}

    default = await memory.for_scope(tenant, limit=10).recall(query, include_working=False)
    assert reached(default) == {"A1"}  # the memory's config: first-degree neighbours
    deeper = memory.for_scope(tenant, limit=10, activation=ActivationConfig(max_hops=3))
    assert reached(await deeper.recall(query, include_working=False)) == {"A1", "A2", "A3"}
    direct = memory.for_scope(tenant, limit=10, activation=ActivationConfig(max_nodes=0))
    assert reached(await direct.recall(query, include_working=False)) == set()
    with pytest.raises(InvalidInputError, match="activation"):
        memory.for_scope(tenant, activation={"max_hops": 2})


@dataclass
class HostScope:
    """A host's own scope type that converts itself."""

    tenant: str

    def to_scope(self) -> Scope:
        return Scope.root("org", self.tenant)


@dataclass
class PathScope:
    """A host's scope type that carries a path of level objects."""

    levels: list[ScopeLevel]


async def test_every_scope_form_binds_the_same_scope(tenant: Scope, memory: Memory) -> None:
    user = tenant.child("user", "eve")
    forms: list[object] = [
        user,
        user.key,
        [tuple(level) for level in user.levels],
        [{"kind": level.kind, "id": level.id} for level in user.levels],
        PathScope(list(user.levels)),
    ]
    for form in forms:
        assert memory.for_scope(form).scope == user, form
    assert as_scope(HostScope("acme")) == Scope.root("org", "acme")
    await memory.for_scope(user.key).record("My bike is red.", "Noted.")
    assert "red" in (await memory.for_scope(PathScope(list(user.levels))).recall("What colour is my bike?")).text
    for bad in (42, "", [("org",)], object()):
        with pytest.raises(InvalidScopeError):
            memory.for_scope(bad)
