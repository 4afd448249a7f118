"""The scope's population (the N of cue rarity, the choice of the exact scan) is counted by the
first recall of a scope; once its count is older than the TTL, recall answers with the old
count and recounts after it, off the hot path — the next recall sees the new count."""

from __future__ import annotations

from typing import Any

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval import recall_state
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.scope import Scope
from hippograph.store import GraphStore


async def _add(store: GraphStore, scope: Scope, texts: list[str]) -> None:
    embedder = HashingEmbeddings()
    nodes = [MemoryNode(layer=Layer.SEMANTIC, content=t, embedding=await embedder.embed(t)) for t in texts]
    await store.add_nodes(scope, nodes)


async def test_an_old_count_answers_and_is_recounted_after_the_recall(
    store: GraphStore, tenant: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recall_state, "POPULATION_TTL", 0.0)  # every count is old at once
    scope = tenant.child("user", "u")
    await _add(store, scope, ["the harbor at dawn", "a lantern by the river", "copper kettle"])
    engine = RecallEngine(store, HashingEmbeddings(), RecallConfig(track_access=False))
    passed: list[Any] = []
    recounts: list[int] = []
    search, size = engine.repo.search_recall, engine.repo.scope_size

    async def spy_search(**params: Any) -> Any:
        passed.append(params["population"])
        return await search(**params)

    async def spy_size(**params: Any) -> int:
        recounts.append(n := await size(**params))
        return n

    monkeypatch.setattr(engine.repo, "search_recall", spy_search)
    monkeypatch.setattr(engine.repo, "scope_size", spy_size)

    first = await engine.recall(scope, "harbor")
    await engine.drain()
    assert passed == [None] and recounts == []  # never counted: the statement counts

    await _add(store, scope, ["the harbor wall", "harbor seals"])
    second = await engine.recall(scope, "harbor")
    assert passed[-1] == 3  # the old count answered ...
    await engine.drain()
    assert recounts == [5]  # ... and was recounted after the recall
    third = await engine.recall(scope, "harbor")
    await engine.drain()
    assert passed[-1] == 5
    assert "the harbor at dawn" in {i.node.content for i in first.items}
    for result in (second, third):  # the old count changes no answer here
        assert {"the harbor at dawn", "the harbor wall", "harbor seals"} <= {i.node.content for i in result.items}
        assert all(i.path[-1].node_id == i.node.id for i in result.items)
