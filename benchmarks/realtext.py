"""The real-text shape recall's speed is judged on: LoCoMo dev turns over an org tree.

An org → 5 teams → 4 users → 1 conversation each (20 leaves); each leaf holds ``per_leaf``
real conversation turns (default 500) of one LoCoMo dev sample — conv-26 and conv-30 in turn
across the leaves, its turns rotated from a leaf's own offset and reused as often as needed —
in sessions of 20 turns, so the two speakers' names recur through every session. Turns go in
through ``Memory.ingest`` (retrieval context, NEXT chains, session / keyword / person cues),
embedded with the tree's default MiniLM embedder; a turn's text repeats across leaves, so each
distinct text is embedded once (:class:`CachedEmbeddings`). The queries are the sample's own
questions, embedded once when the data is loaded and kept in the state file: recall timings
exclude the query embedding (:class:`KnownEmbeddings` answers them from the file).

Used by ``recall_ab --shape realtext`` (the A/B of the recall statement on this data).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.locomo.dataset import Conversation, data_path, load

TEAMS, USERS = 5, 4
SESSION = 20
QUESTIONS_PER_LEAF = 40


def realtext_tree(root: str) -> list[Any]:
    """The 20 leaves: org/<root> → team t0…t4 → user u0…u3 → conversation c0."""
    from hippograph.scope import Scope

    org = Scope.root("org", root)
    return [org.child("team", f"t{t}").child("user", f"u{u}").child("conversation", "c0") for t in range(TEAMS)
            for u in range(USERS)]  # fmt: skip


def source_of(convs: list[Conversation], index: int) -> Conversation:
    """The dev sample leaf ``index`` holds: the samples in turn."""
    return convs[index % len(convs)]


def leaf_turns(convs: list[Conversation], index: int, per_leaf: int) -> list[Any]:
    """Leaf ``index``'s turns: its sample's turns from the leaf's own offset on, wrapping round,
    re-chunked into sessions of :data:`SESSION` turns, a minute apart from the sample's first date."""
    from hippograph.memory import ConversationTurn

    conv = source_of(convs, index)
    turns = conv.turns
    offset = (index // len(convs)) * 37 % len(turns)
    start = min(t.date.timestamp() for t in turns)
    out = []
    for j in range(per_leaf):
        t = turns[(offset + j) % len(turns)]
        out.append(
            ConversationTurn(
                turn_id=f"L{index}-{j}",
                session_id=f"L{index}-s{j // SESSION}",
                speaker=t.speaker,
                text=t.text,
                caption=t.caption,
                occurred_at=start + 60.0 * j,
            )
        )
    return out


class CachedEmbeddings:
    """An embedder that embeds each distinct text once (texts repeat across the leaves)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_id = getattr(inner, "model_id", None)
        self._seen: dict[str, list[float]] = {}

    @property
    def dimensions(self) -> int:
        return int(self.inner.dimensions)

    async def embed(self, text: str) -> list[float]:
        return (await self.embed_batch([text]))[0]

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        todo = list(dict.fromkeys(t for t in texts if t not in self._seen))
        if todo:
            self._seen.update(zip(todo, await self.inner.embed_batch(todo), strict=True))
        return [self._seen[t] for t in texts]


class KnownEmbeddings:
    """The query vectors embedded when the data was loaded (a recall's timing excludes the
    embedding); a text it does not know is an error."""

    def __init__(self, vectors: dict[str, list[float]], model_id: str | None) -> None:
        self.vectors = vectors
        self.model_id = model_id

    @property
    def dimensions(self) -> int:
        return len(next(iter(self.vectors.values())))

    async def embed(self, text: str) -> list[float]:
        return self.vectors[text]

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vectors[t] for t in texts]


def questions(convs: list[Conversation], index: int) -> list[str]:
    """Leaf ``index``'s queries: up to :data:`QUESTIONS_PER_LEAF` of its sample's questions,
    from the leaf's own offset on."""
    qs = list(dict.fromkeys(q.question for q in source_of(convs, index).questions))
    offset = (index // len(convs)) * 13 % len(qs)
    return [qs[(offset + j) % len(qs)] for j in range(min(QUESTIONS_PER_LEAF, len(qs)))]


async def open_realtext_store(
    data_dir: Path, per_leaf: int, console: Any, *, heap: str = "2g", pagecache_mb: int = 1536,
    data: str | None = None,
) -> tuple[Any, Any, list[Any], dict[str, Any]]:  # fmt: skip
    """The kept server of ``data_dir`` (started if down), loaded once with the real-text shape;
    the state file records the root, each leaf's questions, their vectors and how the load went."""
    from hippograph.dbms import LocalNeo4j
    from hippograph.embeddings import default_embedder
    from hippograph.memory import Memory
    from hippograph.store import GraphStore, Neo4jConnection, migrate

    server = LocalNeo4j(data_dir, heap=heap, pagecache_mb=pagecache_mb)
    state_file = data_dir / "realtext_state.json"
    state: dict[str, Any] = json.loads(state_file.read_text()) if state_file.exists() else {}
    status = server.start(timeout=1800)
    assert status.uri
    conn = await Neo4jConnection.connect(status.uri, password=server.password())
    store = GraphStore(conn)
    await migrate(conn, await_seconds=7200)
    if state:
        return server, store, realtext_tree(state["root"]), state
    t0 = time.perf_counter()
    convs = load(data_path(data))
    embedder = CachedEmbeddings(default_embedder())
    memory = Memory(store, embedder)
    root = uuid.uuid4().hex[:6]
    leaves = realtext_tree(root)
    asked: dict[str, list[str]] = {}
    for i, leaf in enumerate(leaves):
        await memory.ingest(leaf, leaf_turns(convs, i, per_leaf))
        asked[leaf.key] = questions(convs, i)
        console.print(f"leaf {i + 1}/{len(leaves)}: {per_leaf} turns in ({time.perf_counter() - t0:.0f} s)")
    await memory.engine.drain()
    await migrate(conn, await_seconds=7200)  # waits until the indexes have caught up
    texts = sorted({q for qs in asked.values() for q in qs})
    vectors = {q: await embedder.inner.embed(q) for q in texts}  # a query's own path (not the batch one)
    state = {
        "root": root,
        "questions": asked,
        "vectors": vectors,
        "model_id": embedder.model_id,
        "load": {"how": "Memory.ingest, MiniLM (default embedder), each distinct text embedded once",
                 "per_leaf": per_leaf, "seconds": round(time.perf_counter() - t0, 1)},
    }  # fmt: skip
    state_file.write_text(json.dumps(state))
    console.print(f"loaded {per_leaf * len(leaves):,} turns: {state['load']}")
    return server, store, leaves, state
