"""``Memory.warm`` (and ``Memory.connect(warm=True)``): the embedder is loaded and used, the
recall statement's planning has finished, the turn's reads ran, and nothing was written."""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.store import GraphStore
from tests.support.memory_internals import internals


class CountingEmbeddings(HashingEmbeddings):
    """The hashing embedder, counting the texts it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    async def embed(self, text: str) -> list[float]:
        self.texts += 1
        return await super().embed(text)

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += len(texts)
        return await super().embed_batch(texts)


async def _count(store: GraphStore) -> int:
    """Every node and relationship of the database (a probe of this test, not a catalogued query)."""
    records, _, _ = await store.conn.driver.execute_query(
        "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) + count(r) AS n", database_=store.conn.database
    )
    return int(records[0]["n"])


async def test_warm_loads_the_embedder_plans_and_reads_without_writing(
    neo4j_server: tuple[str, str], store: GraphStore
) -> None:
    uri, password = neo4j_server
    embedder = CountingEmbeddings()
    memory = await Memory.connect(uri, password=password, embedder=embedder, warm_plans=False)
    try:
        before = await _count(store)
        warmed = await memory.warm()
        task = internals(memory).engine._warming
        assert task is not None and task.done() and task.exception() is None  # the plan is made
        assert embedder.texts >= 4  # the model's first sentence, a batch, and the turns' queries
        assert warmed.total_ms >= max(warmed.embedder_ms, warmed.plans_ms) and warmed.reads_ms > 0
        assert await _count(store) == before  # nothing written, not even the warm-up scope
        again = await memory.warm()  # idempotent
        assert again.total_ms >= 0 and await _count(store) == before
    finally:
        await memory.close()


async def test_connect_with_warm_returns_warmed(neo4j_server: tuple[str, str]) -> None:
    uri, password = neo4j_server
    embedder = CountingEmbeddings()
    memory = await Memory.connect(uri, password=password, embedder=embedder, warm=True)
    try:
        task = internals(memory).engine._warming
        assert task is not None and task.done() and embedder.texts >= 4
    finally:
        await memory.close()
