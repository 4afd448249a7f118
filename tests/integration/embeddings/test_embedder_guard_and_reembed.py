"""The database's embedder: recorded, adopted from the index by a database made before records,
checked at connect (another model or size is refused, the message naming both and the command
that migrates), and changed by re-embedding while recall keeps answering — never from a mix of
the two models — with the vector index at the new embedder's size afterwards (64-d here).

These tests change the shared database's embedder and put it back (the fixture ``restored``)."""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
import re
from collections.abc import AsyncIterator

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.memory.reembed import reembed
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.types import RecallResult
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from hippograph.store.queries import SchemaQuery as Q
from hippograph.store.vectors import (
    DEFAULT_MODEL_ID,
    MAIN,
    NEXT,
    EmbedderMismatchError,
    EmbeddingRecord,
    index_record,
    slot_query,
    stored_record,
    write_record,
)
from tests.support.memory_internals import internals

pytestmark = pytest.mark.integration


class Trigrams(HashingEmbeddings):
    """Another 'model': signed hashing of character trigrams, so its cosines differ from the
    word-hashing model's (the two would agree wherever no words collide)."""

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dimensions
        padded = f"  {text.lower()}  "
        for i in range(len(padded) - 2):
            value = int.from_bytes(hashlib.blake2b(padded[i : i + 3].encode(), digest_size=8).digest(), "little")
            vec[(value >> 1) % self.dimensions] += 1.0 if value & 1 else -1.0
        norm = math.sqrt(sum(x * x for x in vec)) or 1.0
        return [x / norm for x in vec]


async def _clear_record(conn: Neo4jConnection) -> None:
    await conn.write(Q.UPSERT_EMBEDDING_RECORD, model=None, dimensions=None, similarity=None, property=None)
    await conn.write(Q.UPDATE_REEMBED_STATE, model=None, dimensions=None, similarity=None, phase=None, cursor=None)


async def _vector_indexes(conn: Neo4jConnection) -> dict[str, int]:
    return {r["name"]: r["dimensions"] for r in await conn.read(Q.GET_VECTOR_INDEXES)}


@pytest.fixture
async def restored(conn: Neo4jConnection) -> AsyncIterator[None]:
    """The database's embedder record and vector index as they were before the test."""
    before, index = await stored_record(conn), await index_record(conn)
    size = index.dimensions if index is not None else 384
    yield
    now = await stored_record(conn)
    if now is not None and (now.dimensions != size or now.slot != MAIN or now.reembed_phase):
        if now.reembed_phase:  # a failed test's re-embedding: start the way back afresh
            drop = conn.capabilities.pick(Q.DROP_INDEX_MEMORY_EMBEDDING_CHAIN, Q.DROP_INDEX_MEMORY_EMBEDDING)
            await conn.run_autocommit(slot_query(drop, NEXT))
            await _clear_record(conn)
            await write_record(conn, EmbeddingRecord("restoring", now.dimensions, vector_property=now.vector_property))
        await reembed(conn, HashingEmbeddings(size), batch_size=512)
    await _clear_record(conn)
    if before is not None:
        await write_record(conn, before)


async def test_connect_refuses_another_model_or_size_naming_both_and_the_command(
    neo4j_server: tuple[str, str], conn: Neo4jConnection, restored: None
) -> None:
    uri, password = neo4j_server
    await write_record(conn, EmbeddingRecord("model-a", 384))
    with pytest.raises(EmbedderMismatchError) as caught:
        await Memory.connect(uri, password=password, embedder=HashingEmbeddings(model_id="model-b"), warm_plans=False)
    message = str(caught.value)
    assert "model-a (384 dimensions)" in message
    assert "model-b (384 dimensions)" in message
    assert "hippograph reembed --embedder" in message
    with pytest.raises(EmbedderMismatchError, match=re.escape("an unnamed model (64 dimensions)")):
        await Memory.connect(uri, password=password, embedder=HashingEmbeddings(64), warm_plans=False)
    async with await Memory.connect(
        uri, password=password, embedder=HashingEmbeddings(model_id="model-a"), warm_plans=False
    ):
        pass
    assert (await stored_record(conn)) == EmbeddingRecord("model-a", 384)


async def test_a_database_without_a_record_adopts_its_index_and_the_default_model(
    neo4j_server: tuple[str, str], conn: Neo4jConnection, restored: None
) -> None:
    uri, password = neo4j_server
    await _clear_record(conn)
    size = (await _vector_indexes(conn))[conn.capabilities.vector_index]
    async with await Memory.connect(uri, password=password, embedder=HashingEmbeddings(size), warm_plans=False):
        pass
    assert await stored_record(conn) == EmbeddingRecord(DEFAULT_MODEL_ID, size)
    with pytest.raises(EmbedderMismatchError, match=DEFAULT_MODEL_ID):
        await Memory.connect(uri, password=password, embedder=Trigrams(size, model_id="tri"), warm_plans=False)


TOPICS = {
    "deploy": "deploy the web service after the tests pass, then watch the error rate",
    "bread": "bake sourdough bread with a levain started the night before",
    "garden": "water the tomato plants every evening during the heat wave",
    "trip": "book the train to Lisbon for the conference in March",
    "budget": "the quarterly budget review moved to Thursday afternoon",
    "piano": "practise the Chopin nocturne slowly, left hand alone first",
}
QUERIES = ["when do we deploy the service", "sourdough levain", "tomato plants heat", "train to Lisbon"]


async def _expected(model: HashingEmbeddings, contents: list[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for query in QUERIES:
        q = await model.embed(query)
        out[query] = {c: sum(a * b for a, b in zip(q, await model.embed(c), strict=True)) for c in contents}
    return out


def _model_of(result: RecallResult, expected: dict[str, dict[str, dict[str, float]]]) -> set[str]:
    """The models every vector score of ``result`` agrees with (float32 storage: 1e-4)."""
    cosines = {i.node.content: i.parts.cosine for i in result.items if i.parts.cosine is not None}
    return {
        name
        for name, table in expected.items()
        if all(math.isclose(c, table[result.query][content], abs_tol=1e-4) for content, c in cosines.items())
    }


async def test_reembedding_under_concurrent_recalls(
    neo4j_server: tuple[str, str], conn: Neo4jConnection, tenant: Scope, restored: None
) -> None:
    """Recalls run throughout; each one's vector scores all come from one model (old before the
    switch, new after), none fails or degrades, and afterwards the index is 64-d and recall
    finds what it should with the new model."""
    uri, password = neo4j_server
    size = (await _vector_indexes(conn))[conn.capabilities.vector_index]
    old, new = HashingEmbeddings(size), Trigrams(64, model_id="trigrams-64")
    scope = tenant.child("user", "ana")
    contents = [f"{text} ({n})" for n in range(5) for text in TOPICS.values()]
    memory = await Memory.connect(uri, password=password, embedder=old, warm_plans=False)
    try:
        nodes = [MemoryNode(layer=Layer.SEMANTIC, content=c, embedding=await old.embed(c)) for c in contents]
        await internals(memory).store.add_nodes(scope, nodes)
        expected = {"old": await _expected(old, contents), "new": await _expected(new, contents)}
        results: list[RecallResult] = []
        switched = asyncio.Event()
        stop = asyncio.Event()

        async def recaller(i: int) -> None:
            n = 0
            while not stop.is_set():
                results.append(await memory.recall(scope, QUERIES[(i + n) % len(QUERIES)], top_k=5))
                n += 1

        def progress(phase: str, done: int, total: int) -> None:
            if phase == "copy":
                switched.set()

        tasks = [asyncio.create_task(recaller(i)) for i in range(3)]
        await asyncio.sleep(0.2)
        report = await memory.reembed(new, batch_size=16, progress=progress)
        after_switch = len(results)
        await asyncio.sleep(0.2)
        stop.set()
        await asyncio.gather(*tasks)  # a failed recall fails the test here
    finally:
        await memory.close()

    assert report.model == "trigrams-64" and report.dimensions == 64 and report.embedded >= len(contents)
    assert switched.is_set()
    models = [_model_of(r, expected) for r in results]
    assert all(not r.degraded for r in results), [r.degraded for r in results if r.degraded][:3]
    assert all(r.items for r in results)
    assert all(m for m in models), "a recall scored with both models' vectors"
    assert {"old"} in models and {"new"} in models, "the recalls did not span the switch"
    assert len(results) > after_switch
    record = await stored_record(conn)
    assert record == EmbeddingRecord("trigrams-64", 64)
    indexes = await _vector_indexes(conn)
    assert indexes[conn.capabilities.vector_index] == 64
    assert not {NEXT.index, NEXT.index_lts} & set(indexes)
    with pytest.raises(EmbedderMismatchError, match="trigrams-64"):
        await Memory.connect(uri, password=password, embedder=old, warm_plans=False)
    async with await Memory.connect(uri, password=password, embedder=new, warm_plans=False) as fresh:
        found = await fresh.recall(scope, "sourdough levain", top_k=3)
    assert found.items and "sourdough" in found.items[0].node.content
    assert found.items[0].parts.cosine == pytest.approx(
        expected["new"]["sourdough levain"][found.items[0].node.content], abs=1e-4
    )


@pytest.fixture
async def twenty(store: GraphStore, tenant: Scope) -> None:
    """Twenty memories with vectors of the database's size (so a re-embedding has batches)."""
    size = (await _vector_indexes(store.conn))[store.conn.capabilities.vector_index]
    embedder = HashingEmbeddings(size)
    texts = [f"{text} ({n})" for n in range(4) for text in TOPICS.values()][:20]
    await store.add_nodes(
        tenant, [MemoryNode(layer=Layer.SEMANTIC, content=t, embedding=await embedder.embed(t)) for t in texts]
    )


def test_the_cli_reembeds_resumably_with_progress_on_stderr(
    neo4j_server: tuple[str, str], twenty: None, restored: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hippograph reembed --embedder hashing:64``: interrupted after its first batch, run again
    it resumes and finishes; progress goes to stderr, the result to stdout."""
    from typer.testing import CliRunner

    from hippograph.app.cli import app
    from hippograph.memory import reembed as module

    uri, password = neo4j_server
    env = {**os.environ, "HIPPOGRAPH_NEO4J_URI": uri, "HIPPOGRAPH_NEO4J_PASSWORD": password}
    batches = 0
    real = module._Job.embed

    async def crash_after_one(self: module._Job, *args: object, **kwargs: object) -> None:
        nonlocal batches
        batches += 1
        if batches == 2:
            raise ConnectionResetError("killed")
        await real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module._Job, "embed", crash_after_one)
    runner = CliRunner()
    first = runner.invoke(app, ["reembed", "--embedder", "hashing:64", "--batch-size", "8"], env=env)
    assert first.exit_code != 0
    monkeypatch.setattr(module._Job, "embed", real)
    second = runner.invoke(app, ["reembed", "--embedder", "hashing:64", "--batch-size", "512", "--json"], env=env)
    assert second.exit_code == 0, second.output
    assert '"model": "hashing-64"' in second.stdout and '"dimensions": 64' in second.stdout
    assert "vectors:" in second.stderr
    again = runner.invoke(app, ["reembed", "--embedder", "hashing:64"], env=env)
    assert again.exit_code == 0 and "already" in again.stdout
