"""Ingest a whole conversation as episodic memories in one call — no model needed.

Each turn becomes an episodic memory whose id is derived from the scope and the turn id, so
ingesting again changes nothing (idempotent), and a crashed ingest is resumed by running it
again: the turns already stored are neither embedded nor written again. Retrieval context is written with it: the
fulltext index sees the turn with its date, speaker and both neighbouring turns of the same
session; the embedding sees "<speaker> on <date>: <text>"; turns of a session are chained by
``NEXT`` in the order given (also when sessions interleave, and across calls: a session's
first new turn follows its latest stored one); speaker, session, keyword and name cues link
related turns.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from hippograph.layers.base import MemoryServices, make_node
from hippograph.layers.episodic import EpisodicMemory
from hippograph.layers.repository import LayerRepository
from hippograph.models import MAX_TEXT, Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.scope import Scope

Progress = Callable[[int, int], None]
TURN_IMPORTANCE = 3.0
RESEMBLANCE_K = 3
"""The k measured for opt-in resemblance links (``ingest(..., resemblance_links=k)``):
each ingested turn linked to its k most similar turns of other sessions. Off by default: on
LoCoMo dev it buys multi-hop R@10 (+5) at open-domain's cost, leave-one-conversation-out does not
pick it, and each turn is compared with every turn of its scope (ingest 1.3–3.4× slower)."""
RESEMBLANCE_MIN_COSINE = 0.5
"""No resemblance link below this cosine (MiniLM: below it, texts share little meaning)."""


class ConversationTurn(BaseModel):
    """One utterance of a conversation, as the caller has it."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    turn_id: str = Field(min_length=1, max_length=200)
    session_id: str = Field(min_length=1, max_length=128)
    speaker: str = Field(min_length=1, max_length=100)
    text: str = Field(min_length=1, max_length=MAX_TEXT)
    occurred_at: float | None = None
    """When it was said (epoch seconds); the session's date is shown from it."""
    caption: str | None = Field(default=None, max_length=2000)
    """A description of an image the speaker shared, kept with the text."""

    @property
    def full_text(self) -> str:
        return f"{self.text} [shared an image: {self.caption}]" if self.caption else self.text


def turn_node_id(scope: Scope, turn_id: str) -> str:
    return "t" + hashlib.sha1(f"{scope.key}\x1f{turn_id}".encode()).hexdigest()[:31]


def _date(ts: float | None) -> str:
    if ts is None:
        return ""
    d = datetime.fromtimestamp(ts, tz=UTC)
    return f"{d.day} {d:%B %Y}"


def turn_nodes(scope: Scope, turns: Sequence[ConversationTurn]) -> tuple[list[MemoryNode], list[str], list[MemoryEdge]]:
    """Nodes (with retrieval context), the texts to embed, and the NEXT chain edges."""
    nodes: list[MemoryNode] = []
    embed_texts: list[str] = []
    edges: list[MemoryEdge] = []
    sessions: dict[str, list[ConversationTurn]] = {}
    seen: set[str] = set()
    for turn in turns:  # each session in the order given; a repeated turn id counts once
        if turn.turn_id not in seen:
            seen.add(turn.turn_id)
            sessions.setdefault(turn.session_id, []).append(turn)
    for session in sessions.values():
        for i, turn in enumerate(session):
            date = _date(turn.occurred_at)
            around = [session[j] for j in (i - 1, i + 1) if 0 <= j < len(session)]
            context = " ".join([f"{date}. {turn.speaker}."] + [f"{t.speaker}: {t.full_text}" for t in around])
            node = make_node(
                Layer.EPISODIC,
                {
                    "id": turn_node_id(scope, turn.turn_id),
                    "label": "",
                    "content": turn.full_text,
                    "context": context,
                    "session_id": turn.session_id,
                    "occurred_at": turn.occurred_at,
                    "importance": TURN_IMPORTANCE,
                    "properties": {"kind": "turn", "turn_id": turn.turn_id, "speaker": turn.speaker, "date": date},
                },
                field_prefix=f"turns[{turn.turn_id}]",
            )
            nodes.append(node)
            embed_texts.append(
                f"{turn.speaker} on {date}: {turn.full_text}" if date else f"{turn.speaker}: {turn.full_text}"
            )
            if i:
                edges.append(MemoryEdge(source=nodes[-2].id, target=node.id, relationship=Relationship.NEXT))
    return nodes, embed_texts, edges


async def ingest_conversation(
    services: MemoryServices,
    episodic: EpisodicMemory,
    scope: Scope,
    turns: Sequence[ConversationTurn],
    *,
    batch_size: int = 256,
    progress: Progress | None = None,
    resemblance_k: int = 0,
) -> list[MemoryNode]:
    """Store every turn, chain each session (in the order given) and link each turn to the
    ``resemblance_k`` turns of other sessions it most resembles (associative recall's paths
    between sessions: "pottery" and "painting" turns weeks apart).

    Turns are written in chunks of ``batch_size``, one transaction each; the next chunk is
    embedded (by the embedder's batch path, on its worker thread) while one is written.
    Returns every turn's node; a turn that was already stored comes back without its
    embedding (it was not embedded again)."""
    nodes, texts, edges = turn_nodes(scope, turns)
    edges = [*await _links_to_stored(services, scope, nodes), *edges]
    starts = list(range(0, len(nodes), batch_size))
    # each chunk is written with the NEXT edges into its turns, in its transaction: a turn's
    # predecessor is in the same chunk, an earlier one, or already stored
    chunk_of = {n.id: i for i, n in enumerate(nodes)}
    inbound: list[list[MemoryEdge]] = [[] for _ in starts]
    for e in edges:
        inbound[chunk_of[e.target] // batch_size].append(e)
    stored: list[MemoryNode] = []
    # each chunk's successor is looked up and embedded while the chunk is written: the
    # embedder's thread and the database work at the same time
    ahead = [_embed_ahead(services, scope, nodes[s : s + batch_size], texts[s : s + batch_size]) for s in starts[:1]]
    try:
        for i in range(len(starts)):
            chunk = await ahead[i]
            if i + 1 < len(starts):
                after = starts[i + 1]
                ahead.append(
                    _embed_ahead(services, scope, nodes[after : after + batch_size], texts[after : after + batch_size])
                )
            new = [n for n in chunk if n.embedding is not None]
            if new:
                await episodic.add(scope, new, edges=inbound[i])
            elif inbound[i]:  # every turn of the chunk was stored; its chain is made sure of
                await services.store.upsert_edges(scope, inbound[i], increment=0.0)
            stored.extend(chunk)
            if progress:
                progress(len(stored), len(nodes))
    finally:
        for future in ahead:
            if not future.done():
                future.cancel()
            elif not future.cancelled():
                future.exception()  # retrieved: a failed write makes the next embedding moot
    if resemblance_k > 0:
        repo = LayerRepository(services.store)
        for start in range(0, len(stored), batch_size):
            ids = [n.id for n in stored[start : start + batch_size]]
            await repo.link_resemblances(
                scope, ids, k=resemblance_k, min_cosine=RESEMBLANCE_MIN_COSINE, now=services.clock()
            )
    return stored


def _embed_ahead(
    services: MemoryServices, scope: Scope, chunk: Sequence[MemoryNode], texts: Sequence[str]
) -> asyncio.Future[list[MemoryNode]]:
    """The chunk with its new turns embedded; a turn already stored (a resumed import) is
    neither embedded nor written again and comes back without an embedding."""

    async def embed() -> list[MemoryNode]:
        have = {n.id for n in await services.store.get_nodes(scope, [n.id for n in chunk])}
        todo = [i for i, n in enumerate(chunk) if n.id not in have]
        vectors = list(await services.embedder.embed_batch([texts[i] for i in todo])) if todo else []
        by_index = dict(zip(todo, vectors, strict=True))
        return [n.model_copy(update={"embedding": by_index[i]}) if i in by_index else n for i, n in enumerate(chunk)]

    return asyncio.ensure_future(embed())


async def _links_to_stored(services: MemoryServices, scope: Scope, nodes: Sequence[MemoryNode]) -> list[MemoryEdge]:
    """``NEXT`` from each session's latest stored turn to its first new one, so a conversation
    ingested in parts is one chain. Read before anything is written; a turn already stored or
    one older than the stored tail is not linked (re-ingest and back-fill add nothing)."""
    firsts: dict[str, MemoryNode] = {}
    for node in nodes:
        if node.session_id is not None:
            firsts.setdefault(node.session_id, node)
    ids = {n.id for n in nodes}
    tails = await LayerRepository(services.store).session_tails(scope, Layer.EPISODIC, list(firsts))
    candidates = {
        session_id: first
        for session_id, first in firsts.items()
        if (tail := tails.get(session_id)) is not None
        and tail.id not in ids
        and (tail.occurred_at or 0.0) <= (first.occurred_at or float("inf"))
    }
    if not candidates:
        return []
    stored = {n.id for n in await services.store.get_nodes(scope, [f.id for f in candidates.values()])}
    return [
        MemoryEdge(source=tails[session_id].id, target=first.id, relationship=Relationship.NEXT)
        for session_id, first in candidates.items()
        if first.id not in stored
    ]
