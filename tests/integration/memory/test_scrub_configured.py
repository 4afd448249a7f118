"""A memory with its own scrubbing configuration, against the real Neo4j: an added pattern is
masked on every write path (a layer's generic write, an episodic event, a memory op, a recorded
exchange) and on render; a built-in pattern turned off is kept."""

from __future__ import annotations

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.ops import UpsertNode
from hippograph.scope import Scope
from hippograph.scrub import REDACTED, ScrubConfig
from hippograph.store import GraphStore
from tests.support.memory_internals import internals

TICKET = "TCK-482913"
BEARER = "Bearer abcdef0123456789.xyz"


async def test_configured_patterns_apply_on_every_write_and_render(store: GraphStore, tenant: Scope) -> None:
    config = ScrubConfig(extra_patterns={"ticket": r"TCK-[0-9]{6}"}, disabled_patterns=("bearer",))
    memory = Memory(store, HashingEmbeddings(), scrub=config)
    try:
        await internals(memory).semantic.write(
            tenant, {"label": f"ticket {TICKET}", "content": f"Support ticket {TICKET}."}
        )
        await internals(memory).episodic.store_event(tenant, f"Opened {TICKET} for the printer.")
        report = await memory.commit(tenant, [UpsertNode(op="upsert_node", label="printer", content=f"See {TICKET}.")])
        assert report.failed == []
        await memory.for_scope(tenant).record(f"My ticket is {TICKET}.", f"Noted; header {BEARER}.")

        stored = await internals(memory).store.query_subtree(tenant)
        texts = " ".join(f"{n.label} {n.content} {n.context}" for n in stored)
        assert len(stored) >= 5 and TICKET not in texts and REDACTED in texts
        assert BEARER in texts  # the built-in bearer pattern is off here

        rendered = [
            memory.get_layer(n.layer).render_for_prompt(n.model_copy(update={"content": TICKET})) for n in stored
        ]
        assert all(TICKET not in line for line in rendered)
        found = await memory.for_scope(tenant).recall("ticket printer")
        assert found.ids and TICKET not in found.text
    finally:
        await internals(memory).engine.drain()


async def test_the_default_memory_keeps_the_built_in_patterns(store: GraphStore, tenant: Scope) -> None:
    memory = Memory(store, HashingEmbeddings())
    try:
        await internals(memory).semantic.write(
            tenant, {"label": "ticket", "content": f"Ticket {TICKET}, header {BEARER}."}
        )
        [node] = await internals(memory).store.query_subtree(tenant)
        assert TICKET in node.content and BEARER not in node.content and REDACTED in node.content
    finally:
        await internals(memory).engine.drain()
