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

``--corpus chitchat`` fills the same tree from a larger real dialogue corpus instead: the
Chit-Chat Challenge dataset (BYU PCC lab, MIT licence, 7,168 conversations, about 139,000
turns, shipped with its data by the ``chitchat-dataset`` package: ``pip install
chitchat-dataset``), for sizes past LoCoMo's 788 distinct turns. Its conversations of at least
:data:`CHITCHAT_MIN_TURNS` turns (about 130,000 turns in all) go to the leaves in turn, each
conversation whole and once, one session each; its speakers are anonymous participants
(``P0001``…, each the same name wherever the participant speaks); a leaf's queries are the
prompts its conversations were started from, then questions asked inside them.

Used by ``recall_ab --shape realtext`` (the A/B of the recall statement on this data),
``load_open_loop --shape realtext`` and ``agent_ab --shape realtext``.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from benchmarks.locomo.dataset import Conversation, data_path, load
from tests.support.memory_internals import internals

TEAMS, USERS = 5, 4
SESSION = 20
QUESTIONS_PER_LEAF = 40
CHITCHAT_MIN_TURNS = 10
CORPORA = ("locomo", "chitchat")


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


class RealCorpus(Protocol):
    """Real conversation turns and queries for the leaves of :func:`realtext_tree`."""

    name: str

    def leaf_turns(self, index: int, per_leaf: int) -> list[Any]:
        """Leaf ``index``'s ``per_leaf`` turns (``ConversationTurn``)."""
        ...

    def questions(self, index: int, per_leaf: int) -> list[str]:
        """Leaf ``index``'s queries, real text, distinct."""
        ...


@dataclass(frozen=True)
class Locomo:
    """LoCoMo dev samples, their turns reused as often as a leaf needs (see the module)."""

    convs: list[Conversation]
    name: str = "locomo"

    def leaf_turns(self, index: int, per_leaf: int) -> list[Any]:
        return leaf_turns(self.convs, index, per_leaf)

    def questions(self, index: int, per_leaf: int) -> list[str]:
        return questions(self.convs, index)


@dataclass(frozen=True)
class ChitChatTurn:
    speaker: str
    text: str
    at: float


@dataclass(frozen=True)
class ChitChatConversation:
    id: str
    prompt: str | None
    turns: tuple[ChitChatTurn, ...]


@dataclass(frozen=True)
class ChitChat:
    """The Chit-Chat Challenge conversations, each used once (see the module)."""

    convs: tuple[ChitChatConversation, ...]
    name: str = "chitchat"

    @classmethod
    def load(cls) -> ChitChat:
        """The corpus the ``chitchat-dataset`` package ships."""
        try:
            import chitchat_dataset  # type: ignore[import-not-found]
        except ImportError:
            raise SystemExit("--corpus chitchat needs its data: pip install chitchat-dataset") from None
        return cls.from_raw(chitchat_dataset.Dataset())

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> ChitChat:
        """From the dataset's mapping of conversation id to ``{prompt, messages}``, where a message
        is one speaker's run of utterances (one turn): the conversations of at least
        :data:`CHITCHAT_MIN_TURNS` turns, by id."""
        names: dict[str, str] = {}
        convs = []
        for conv_id in sorted(raw):
            messages = [m for m in raw[conv_id].get("messages") or [] if m and any(u["text"].strip() for u in m)]
            if len(messages) < CHITCHAT_MIN_TURNS:
                continue
            turns = []
            for m in messages:
                sender = m[0]["sender"]
                speaker = names.setdefault(sender, f"P{len(names) + 1:04d}")
                at = datetime.fromisoformat(m[0]["timestamp"].replace("Z", "+00:00")).timestamp()
                turns.append(ChitChatTurn(speaker, " ".join(u["text"].strip() for u in m if u["text"].strip()), at))
            convs.append(ChitChatConversation(conv_id, raw[conv_id].get("prompt"), tuple(turns)))
        return cls(tuple(convs))

    def _leaf(self, index: int, per_leaf: int) -> list[ChitChatConversation]:
        """The conversations leaf ``index`` holds: every :data:`TEAMS` × :data:`USERS`-th from its
        own, until ``per_leaf`` turns."""
        out, n = [], 0
        for conv in self.convs[index :: TEAMS * USERS]:
            if n >= per_leaf:
                return out
            out.append(conv)
            n += len(conv.turns)
        if n < per_leaf:
            most = min(sum(len(c.turns) for c in self.convs[i :: TEAMS * USERS]) for i in range(TEAMS * USERS))
            raise SystemExit(f"the chit-chat corpus has at most {most:,} turns for each of the {TEAMS * USERS} leaves"
                             f" (asked for {per_leaf:,})")  # fmt: skip
        return out

    def leaf_turns(self, index: int, per_leaf: int) -> list[Any]:
        from hippograph.memory import ConversationTurn

        turns = [(c, j, t) for c in self._leaf(index, per_leaf) for j, t in enumerate(c.turns)][:per_leaf]
        return [
            ConversationTurn(turn_id=f"{c.id}-{j}", session_id=c.id, speaker=t.speaker, text=t.text, occurred_at=t.at)
            for c, j, t in turns
        ]

    def questions(self, index: int, per_leaf: int) -> list[str]:
        convs = self._leaf(index, per_leaf)
        asked = [c.prompt for c in convs if c.prompt]
        asked += [t.text for c in convs for t in c.turns if t.text.endswith("?") and len(t.text.split()) >= 5]
        return list(dict.fromkeys(asked))[:QUESTIONS_PER_LEAF]


def corpus_of(name: str, data: str | None = None) -> RealCorpus:
    """The corpus ``--corpus`` names: ``locomo`` (the dev samples from ``data``) or ``chitchat``."""
    if name == "chitchat":
        return ChitChat.load()
    if name == "locomo":
        return Locomo(load(data_path(data)))
    raise SystemExit(f"unknown corpus {name!r}: one of {', '.join(CORPORA)}")


async def seed_realtext(
    memory: Any, leaves: list[Any], corpus: RealCorpus, per_leaf: int, console: Any
) -> dict[str, list[str]]:
    """Ingest ``per_leaf`` turns of ``corpus`` into each leaf; each leaf's queries."""
    t0 = time.perf_counter()
    asked: dict[str, list[str]] = {}
    for i, leaf in enumerate(leaves):
        turns = corpus.leaf_turns(i, per_leaf)
        for start in range(0, len(turns), 1000):
            await memory.ingest(leaf, turns[start : start + 1000])
        asked[leaf.key] = corpus.questions(i, per_leaf)
        console.print(f"leaf {i + 1}/{len(leaves)}: {per_leaf:,} turns in ({time.perf_counter() - t0:.0f} s)")
    await internals(memory).engine.drain()
    return asked


async def open_realtext_store(
    data_dir: Path, per_leaf: int, console: Any, *, heap: str = "2g", pagecache_mb: int = 1536,
    data: str | None = None, corpus: str = "locomo",
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
    if state and state.get("corpus", "locomo") != corpus:
        raise SystemExit(
            f"{data_dir} holds the {state.get('corpus', 'locomo')} corpus, not {corpus}: use another folder"
        )
    status = server.start(timeout=1800)
    assert status.uri
    conn = await Neo4jConnection.connect(status.uri, password=server.password())
    store = GraphStore(conn)
    await migrate(conn, await_seconds=7200)
    if state:
        return server, store, realtext_tree(state["root"]), state
    t0 = time.perf_counter()
    source = corpus_of(corpus, data)
    embedder = CachedEmbeddings(default_embedder())
    memory = Memory(store, embedder)
    root = uuid.uuid4().hex[:6]
    leaves = realtext_tree(root)
    asked = await seed_realtext(memory, leaves, source, per_leaf, console)
    await migrate(conn, await_seconds=7200)  # waits until the indexes have caught up
    texts = sorted({q for qs in asked.values() for q in qs})
    vectors = {q: await embedder.inner.embed(q) for q in texts}  # a query's own path (not the batch one)
    state = {
        "root": root,
        "questions": asked,
        "vectors": vectors,
        "model_id": embedder.model_id,
        "corpus": source.name,
        "load": {"how": "Memory.ingest, MiniLM (default embedder), each distinct text embedded once",
                 "per_leaf": per_leaf, "seconds": round(time.perf_counter() - t0, 1)},
    }  # fmt: skip
    state_file.write_text(json.dumps(state))
    console.print(f"loaded {per_leaf * len(leaves):,} turns: {state['load']}")
    return server, store, leaves, state
