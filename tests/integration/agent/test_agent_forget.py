"""Erasing a scope while an agent still consolidates a turn there: the erase waits for the
turn's background writes, so none of them lands after it (a late write would undo the erase)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from hippograph.agent import demo_model
from hippograph.memory import Memory
from hippograph.memory.ports import Exchange
from hippograph.ops import MemoryOp, UpsertNode
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals


class _GatedExtractor:
    """Extracts one fact, but only once the test opens the gate."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()

    async def extract(self, exchange: Exchange) -> Sequence[MemoryOp]:
        self.entered.set()
        await self.gate.wait()
        return [UpsertNode(op="upsert_node", label="favourite colour", content="The user's favourite colour is teal.")]


async def test_forget_waits_for_the_turns_background_writes(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    scope = tenant.child("user", "fran")
    sibling = tenant.child("user", "gus")
    extractor = _GatedExtractor()
    agent = make_agent(demo_model(), extractor=extractor)
    await agent.run(scope, "Hello there, my favourite colour is teal.")
    await asyncio.wait_for(extractor.entered.wait(), timeout=30)
    assert internals(memory).pending.within(tenant), "the turn's consolidation is registered as pending"
    assert internals(memory).pending.within(sibling) == []

    erase = asyncio.create_task(memory.forget(scope))
    await asyncio.wait([erase], timeout=3)  # time enough to erase a few memories
    assert not erase.done(), "the erase waits while the turn's writes are pending"
    extractor.gate.set()
    erased = await asyncio.wait_for(erase, timeout=60)

    assert erased >= 2  # the turn's event and the extracted fact were written, then erased
    reports = await agent.drain()
    assert reports and reports[0].errors == []
    assert await internals(memory).store.query_subtree(scope) == []
    assert internals(memory).pending.within(tenant) == []


async def test_forget_of_an_unrelated_scope_does_not_wait(tenant: Scope, memory: Memory, make_agent: MakeAgent) -> None:
    extractor = _GatedExtractor()
    agent = make_agent(demo_model(), extractor=extractor)
    await agent.run(tenant.child("user", "hal"), "Hello there, my favourite colour is teal.")
    await asyncio.wait_for(extractor.entered.wait(), timeout=30)

    await asyncio.wait_for(memory.forget(tenant.child("user", "ivy")), timeout=30)

    extractor.gate.set()
    await agent.drain()
