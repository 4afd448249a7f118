"""Issue 9: the persona's singletons hold under concurrency, a profile correction reaches the
soul_corrections phase, and working memory's ``llm`` summary mode summarises (or refuses)."""

from __future__ import annotations

import asyncio

import pytest

from hippograph.consolidation import ConsolidationConfig, SleepConsolidator
from hippograph.errors import InvalidInputError
from hippograph.layers.semantic import AGENT_IDENTITY
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.support.memory_internals import internals


async def test_concurrent_seeds_make_one_identity_and_one_profile(memory: Memory, tenant: Scope) -> None:
    seeds = [internals(memory).semantic.ensure_identity(tenant, f"persona {i}") for i in range(12)]
    souls = [internals(memory).semantic.soul(tenant, "Juno", {"tone": f"t{i}"}) for i in range(12)]
    results = await asyncio.gather(*seeds, *souls)
    assert len({n.id for n in results[:12]}) == 1 and len({n.id for n in results[12:]}) == 1
    assert len(await internals(memory).semantic.query_facts(tenant, label=AGENT_IDENTITY)) == 1
    assert len(await internals(memory).semantic.query_facts(tenant, label="SOUL:Juno")) == 1


async def test_corrections_queue_on_the_scope_profile_and_the_phase_applies_them(
    memory: Memory, tenant: Scope, conn: Neo4jConnection
) -> None:
    user = tenant.child("user", "sam")
    await internals(memory).semantic.soul(tenant, "Juno", {"tone": "formal", "user_name": "Mr Smith"})
    await asyncio.gather(
        internals(memory).semantic.correct_profile(user, "Juno", "user_name", "Sam", actor="model"),
        internals(memory).semantic.correct_profile(user, "Juno", "tone", "casual", actor="model"),
        internals(memory).semantic.correct_profile(user, "Juno", "secret_mode", True, actor="model"),
    )
    queued = await internals(memory).semantic.query_facts(user, label="SOUL:Juno")
    own = [p for p in queued if p.scope_key == user.key]
    assert len(own) == 1 and len(own[0].properties["corrections"]) == 3  # type: ignore[arg-type]
    sleeper = SleepConsolidator(conn, ConsolidationConfig(soul_schema=("tone", "user_name")))
    report = await sleeper.run(user)
    assert report.phase("soul_corrections").counts == {"profiles": 1, "applied": 2, "rejected": 1}  # type: ignore[union-attr]
    persona = await internals(memory).semantic.persona(user)
    assert persona.profiles == {"Juno": {"tone": "casual", "user_name": "Sam"}}
    assert (await internals(memory).semantic.persona(tenant)).profiles == {
        "Juno": {"tone": "formal", "user_name": "Mr Smith"}
    }
    assert (await internals(memory).semantic.persona(tenant.child("user", "other"))).profiles["Juno"][
        "tone"
    ] == "formal"


async def test_working_summary_llm_uses_the_summarizer_and_unknown_modes_are_refused(
    memory: Memory, tenant: Scope
) -> None:
    for i in range(5):
        await internals(memory).working.push(tenant, f"Turn {i}. We talked about topic {i}.", session_id="s")
    seen: list[list[str]] = []

    async def summarize(texts: list[str]) -> str:
        seen.append(texts)
        return "They covered topics 0 to 2."

    block = await internals(memory).working.render_context(tenant, "llm", session_id="s", summarize=summarize)
    assert block.splitlines()[0] == "[working summary] They covered topics 0 to 2."
    assert len(seen[0]) == 3 and block.splitlines()[-1].startswith("[working] Turn 4.")
    with pytest.raises(InvalidInputError):
        await internals(memory).working.render_context(tenant, "llm", session_id="s")
    with pytest.raises(InvalidInputError):
        await internals(memory).working.render_context(tenant, "abstractive", session_id="s")  # type: ignore[arg-type]
