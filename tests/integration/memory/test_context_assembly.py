"""Context assembly through the memory facade: per-layer rendering, the token budget respected
with what was left out reported, an explanation per item, and credentials — in content or in
properties, of any layer — never in the context text."""

from __future__ import annotations

import pytest

from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.retrieval.context import approx_tokens
from hippograph.scope import Scope
from hippograph.scrub import REDACTED
from tests.support.memory_internals import internals

SECRETS = {
    "anthropic": "sk-ant-api03-Q1w2E3r4T5y6U7i8O9p0",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "bearer": "mF_9.B5f-4.1JqM_token_value",
    "password": "hunter2-Correct",
    "json": "s3cr3t-in-json",
    "env": "env-file-secret-42",
    "prop": "property-secret-value",
}


async def seed_secrets(memory: Memory, scope: Scope) -> None:
    s = SECRETS
    await memory.remember(scope, "harbor deploy key", f"the harbor deploy key is {s['anthropic']}",
                          properties={"api_key": s["prop"], "owner": "ops"})  # fmt: skip
    await memory.remember(scope, "harbor aws access", f"harbor aws id {s['aws']}")
    await memory.remember(scope, "harbor db login", f'harbor db config {{"password": "{s["json"]}"}}')
    await internals(memory).episodic.store_event(scope, f"harbor call used Authorization: Bearer {s['bearer']}",
                                      properties={"speaker": "Bob", "session_token": s["prop"]})  # fmt: skip
    steps = [f"password: {s['password']}", "open the harbor console"]
    await internals(memory).procedural.store_skill(scope, "harbor login", steps, status="approved")
    await internals(memory).working.push(scope, f"harbor env HARBOR_TOKEN={s['env']}")


async def test_credentials_never_reach_the_context(memory: Memory, tenant: Scope) -> None:
    await seed_secrets(memory, tenant)
    result, ctx = await memory.context(tenant, "harbor deploy aws db login call env", budget=2000)
    assert len(result.items) >= 5 and {e.layer for e in ctx.entries} >= {
        Layer.SEMANTIC, Layer.EPISODIC, Layer.PROCEDURAL, Layer.WORKING,
    }  # fmt: skip
    for name, secret in SECRETS.items():
        assert secret not in ctx.text, name
        assert all(secret not in e.text and secret not in e.explanation for e in ctx.entries), name
    assert REDACTED in ctx.text and "owner=ops" in ctx.text  # innocent properties are still shown


async def test_the_token_budget_is_respected_and_what_is_left_out_is_reported(memory: Memory, tenant: Scope) -> None:
    for i in range(30):
        await memory.remember(tenant, f"harbor fact {i}", "the harbor lantern " + "glows softly " * (i % 6 + 1),
                              dedup=False)  # fmt: skip
    for budget in (60, 150, 400):
        result, ctx = await memory.context(tenant, "harbor lantern", budget=budget, top_k=30)
        assert ctx.tokens <= budget and ctx.budget == budget
        assert approx_tokens(ctx.text) <= ctx.tokens
        kept = [e.id for e in ctx.entries]
        assert ctx.dropped and sorted(kept + ctx.dropped) == sorted(result.ids)
        assert kept == [i for i in result.ids if i in kept]  # best first
    _, wide = await memory.context(tenant, "harbor lantern", budget=5000, top_k=30)
    assert wide.dropped == [] and len(wide.entries) == 30


async def test_the_default_budget_is_the_configured_one(memory: Memory, tenant: Scope) -> None:
    await memory.remember(tenant, "harbor fact", "the harbor lantern")
    _, ctx = await memory.context(tenant, "harbor")
    assert ctx.budget == internals(memory).engine.config.token_budget == 2000


async def test_every_entry_explains_how_it_was_found(memory: Memory, tenant: Scope) -> None:
    fact = await memory.remember(tenant, "harbor lantern colour", "the harbor lantern is green")
    await internals(memory).working.push(tenant, "User: what colour is the lantern?")
    result, ctx = await memory.context(tenant, "harbor lantern")
    entries = {e.id: e for e in ctx.entries}
    assert entries[fact.id].text == f"[id:{fact.id[:8]}] [semantic] harbor lantern colour: the harbor lantern is green"
    assert entries[fact.id].explanation == result.items[0].explain()
    assert "found by fulltext #1, vector #1" in entries[fact.id].explanation
    working = [e for e in ctx.entries if e.layer is Layer.WORKING]
    assert [e.text.split("] ", 1)[1] for e in working] == ["[working] User: what colour is the lantern?"]
    _, without = await memory.context(tenant, "harbor lantern", include_working=False)
    assert all(e.layer is not Layer.WORKING for e in without.entries)


async def test_activation_only_memories_go_under_associated_context(memory: Memory, tenant: Scope) -> None:
    from hippograph.retrieval.config import RecallConfig

    seed = await memory.remember(tenant, "harbor lantern quokka")
    far = await memory.remember(tenant, "quokka marmalade picnic")
    for word in ("alpha", "bravo", "charlie"):
        await memory.remember(tenant, f"harbor {word}")
    internals(memory).engine.config = RecallConfig(candidates_per_channel=2)
    result, ctx = await memory.context(tenant, "harbor lantern", budget=500, top_k=10)
    lines = ctx.text.splitlines()
    assert "Associated Context:" in lines
    header = lines.index("Associated Context:")
    assert any("quokka marmalade picnic" in line for line in lines[header + 1 :])
    assert seed.id in result.ids and far.id in result.ids


@pytest.mark.parametrize("query", ["harbor", "harbor lantern colour glows"])
async def test_an_empty_scope_gives_an_empty_context(memory: Memory, tenant: Scope, query: str) -> None:
    result, ctx = await memory.context(tenant, query)
    assert result.items == [] and ctx.text == "" and ctx.entries == [] and ctx.tokens == 0
