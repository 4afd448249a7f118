"""Issue 9 #5: the model can retract what it sees. The prompt tells the model to retract by
id and says associated items carry the path that led to them; the rendered context must
agree: every item carries a short stable handle, ``[id:<handle>]``, and every associated
item says in words which memory led to it. A scripted turn retracts a fact it was shown."""

from __future__ import annotations

import json
import re

from hippograph.agent import Agent, AgentConfig
from hippograph.llm import ScriptedModel
from hippograph.llm.types import ModelRequest
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.scope import Scope
from tests.support.memory_internals import internals

HANDLE = re.compile(r"\[id:([A-Za-z0-9_-]+)\]")


def _context(request: ModelRequest) -> str:
    return request.system.context or ""  # type: ignore[union-attr]


async def test_a_scripted_turn_retracts_a_fact_it_was_shown(memory: Memory, tenant: Scope) -> None:
    wrong = await memory.remember(tenant, "Bob's city", "Bob lives in Lisbon.")
    await memory.remember(tenant, "Bob's job", "Bob works as a nurse.")

    def reply(request: ModelRequest) -> str:
        [line] = [line for line in _context(request).splitlines() if "Lisbon" in line]
        handle = HANDLE.search(line)
        ops = [{"op": "retract_node", "id": handle.group(1) if handle else "none", "reason": "Bob moved"}]
        return f"Noted, Bob no longer lives there.<MEMORY_EXTRACT>{json.dumps({'ops': ops})}</MEMORY_EXTRACT>"

    model = ScriptedModel(reply)
    agent = Agent(memory, model, AgentConfig())
    try:
        response = await agent.run(tenant, "Bob does not live in Lisbon any more. Where does Bob live?")
        [report] = await agent.drain()
    finally:
        await agent.drain()
    assert response.text == "Noted, Bob no longer lives there."
    context = _context(model.requests[0])
    shown = [line for line in context.splitlines() if "] [" in line]
    assert shown and all(HANDLE.match(line) for line in shown), context  # every item has its handle
    assert report.commit is not None and [a["op"] for a in report.commit.applied] == ["retract_node"]
    [stored] = await internals(memory).store.query_nodes(tenant, {"ids": [wrong.id], "include_retracted": True})
    assert stored.retracted and (stored.retraction or {}).get("reason") == "Bob moved"
    again = await memory.context(tenant, "Where does Bob live?")
    assert all(e.id != wrong.id for e in again[1].entries)


async def test_associated_items_say_which_memory_led_to_them(memory: Memory, tenant: Scope) -> None:
    city = await memory.remember(tenant, "Bob's city", "Bob lives in Lisbon.")
    [key] = await internals(memory).store.add_nodes(
        tenant, [MemoryNode(layer=Layer.SEMANTIC, label="spare key", content="The spare key is under the blue pot.")]
    )
    await internals(memory).store.upsert_edges(
        tenant, [MemoryEdge(source=city.id, target=key.id, relationship=Relationship.RELATES_TO)]
    )
    _, ctx = await memory.context(tenant, "Where does Bob live?")
    lines = ctx.text.splitlines()
    assert "Associated Context:" in lines
    associated = lines[lines.index("Associated Context:") + 1 :]
    [line] = [line for line in associated if "spare key" in line]
    assert HANDLE.match(line) and "Bob's city" in line and "RELATES_TO" in line.upper().replace(" ", "_"), line
    handles = {HANDLE.match(x).group(1) for x in lines if HANDLE.match(x)}  # type: ignore[union-attr]
    assert len(handles) == len(ctx.entries)  # one handle per item, no two alike
    _, again = await memory.context(tenant, "Where does Bob live?")
    assert {e.id: e.handle for e in again.entries} == {e.id: e.handle for e in ctx.entries}  # stable
