"""Keys of turns: written by an enricher at ingest or later, idempotent, scrubbed, erased with
their turn and their scope, and searched by both recall channels — the one statement and the
staged path alike — with the hit credited to the turn and explained as a key's."""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.memory import ConversationTurn, Memory
from hippograph.memory.enrich import KeyphraseEnricher, TurnKey, TurnToEnrich
from hippograph.memory.ingest import turn_node_id
from hippograph.models import KeyKind, Layer
from hippograph.retrieval.config import RecallConfig
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.integration.memory.helpers import run_file
from tests.support.memory_internals import internals
from tests.support.recall_oracle import StagedRecallEngine

DAY = 1_683_504_000.0  # 8 May 2023
SECRET = "sk-ant-api03-" + "x" * 40
CFG = RecallConfig(track_access=False)


class FixedKeys:
    """An enricher that gives each turn the keys named for its turn id."""

    name = "fixed"

    def __init__(self, keys: dict[str, list[str]]) -> None:
        self.by_turn = keys

    async def keys(self, turns: Sequence[TurnToEnrich]) -> list[list[TurnKey]]:
        return [[TurnKey(kind=KeyKind.FACT, text=t) for t in self.by_turn.get(turn.turn_id, [])] for turn in turns]


def conversation() -> list[ConversationTurn]:
    said = [
        ("Ana", "We finally signed the papers for the little one"),
        ("Ben", "Congratulations, that is huge news"),
        ("Ana", "I went to the pottery class yesterday and made a bowl"),
        ("Ben", "My brother plays violin in an orchestra"),
        ("Ben", "My child loves the swings at the park"),
        ("Ana", "The shelter adopted new rules for visitors"),
    ]
    return [
        ConversationTurn(turn_id=f"D1:{i}", session_id="s1", speaker=s, text=t, occurred_at=DAY + i)
        for i, (s, t) in enumerate(said)
    ]


async def keys_under(store: GraphStore, scope: Scope) -> list[dict[str, object]]:
    return await run_file(store.conn, "get_keys_under", prefix=scope.key)


async def test_ingest_with_the_offline_enricher_writes_keys_once(memory: Memory, tenant: Scope) -> None:
    home = tenant.child("user", "ana")
    await memory.ingest(home, conversation(), enricher=KeyphraseEnricher(internals(memory).services.embedder))
    first = await keys_under(internals(memory).store, home)
    kinds = {(r["memory_id"], r["k"]["kind"]) for r in first}  # type: ignore[index]
    pottery = turn_node_id(home, "D1:2")
    assert {(pottery, "keyphrase"), (pottery, "date"), (pottery, "statement")} <= kinds
    texts = {r["k"]["text"] for r in first if r["memory_id"] == pottery}  # type: ignore[index]
    assert "Ana went to the pottery class on 7 May 2023 and made a bowl" in texts
    assert all(r["dims"] == internals(memory).services.embedder.dimensions for r in first)
    assert all(r["k"]["scope_key"] == home.key and r["k"]["enricher"] == "keyphrase" for r in first)  # type: ignore[index]

    await memory.ingest(home, conversation(), enricher=KeyphraseEnricher(internals(memory).services.embedder))
    await memory.enrich(home, KeyphraseEnricher(internals(memory).services.embedder))
    again = await keys_under(internals(memory).store, home)
    assert [r["k"]["id"] for r in again] == [r["k"]["id"] for r in first]  # type: ignore[index]


async def test_a_turn_is_found_through_its_key_by_both_engines(
    store: GraphStore, memory: Memory, tenant: Scope
) -> None:
    keyed, plain = tenant.child("user", "keyed"), tenant.child("user", "plain")
    filler = ["a summer evening", "the long drive home", "tea with friends", "an old photograph", "rainy weekend"]
    enricher = FixedKeys({f"D1:{i}": [f"{f} {i}" for f in filler] for i in range(6)})
    enricher.by_turn["D1:0"].append("Ana adopted a child")
    await memory.ingest(keyed, conversation(), enricher=enricher)
    await memory.ingest(plain, conversation())
    adopted = turn_node_id(keyed, "D1:0")

    for engine in (internals(memory).engine, StagedRecallEngine(store, internals(memory).services.embedder, CFG)):
        found = await engine.recall(keyed, "adopted child", layers=[Layer.EPISODIC], config=CFG, now=DAY + 86_400)
        assert found.items and found.items[0].node.id == adopted, engine
        top = found.items[0]
        assert top.parts.key == "Ana adopted a child" and "through key 'Ana adopted a child'" in top.explain()
        assert not found.degraded
    without = await memory.recall(plain, "adopted child", layers=[Layer.EPISODIC], config=CFG, now=DAY + 86_400)
    assert without.ids[0] != turn_node_id(plain, "D1:0")  # no word of the query in the turn itself
    assert all(i.parts.key is None for i in without.items)


async def test_keys_are_scrubbed_and_replaced_when_enriched_again(memory: Memory, tenant: Scope) -> None:
    home = tenant.child("user", "ana")
    await memory.ingest(home, conversation(), enricher=FixedKeys({"D1:1": [f"the key is {SECRET}", "old key"]}))
    texts = [r["k"]["text"] for r in await keys_under(internals(memory).store, home)]  # type: ignore[index]
    assert len(texts) == 2 and all(SECRET not in t for t in texts) and any("[REDACTED]" in t for t in texts)

    assert await memory.enrich(home, FixedKeys({"D1:1": ["new key"]})) == 1
    assert [r["k"]["text"] for r in await keys_under(internals(memory).store, home)] == ["new key"]  # type: ignore[index]


async def test_keys_go_with_their_turn_and_with_their_scope(store: GraphStore, memory: Memory, tenant: Scope) -> None:
    home = tenant.child("user", "ana")
    keys = {f"D1:{i}": [f"key of turn {i}", f"second key {i}"] for i in range(4)}
    await memory.ingest(home, conversation(), enricher=FixedKeys(keys))
    assert len(await keys_under(store, home)) == 8

    assert await store.delete_node(home, turn_node_id(home, "D1:0"), cascade=True)
    left = await keys_under(store, home)
    assert len(left) == 6 and all(r["memory_id"] is not None for r in left)

    await memory.forget(home)
    assert await keys_under(store, home) == []


async def test_a_scope_sees_no_other_scopes_keys(memory: Memory, tenant: Scope) -> None:
    ana, ben = tenant.child("user", "ana"), tenant.child("user", "ben")
    await memory.ingest(ana, conversation(), enricher=FixedKeys({"D1:0": ["Ana adopted a child"]}))
    await memory.ingest(ben, conversation())
    found = await memory.recall(ben, "adopted child", config=CFG, now=DAY + 86_400)
    assert all(i.node.scope_key == ben.key for i in found.items) and all(i.parts.key is None for i in found.items)
