"""Memory: the one object a library user needs — the five layers, recall with
explanations, conversation ingest, bring-your-own facts, committing a model's memory ops,
and forgetting a scope."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, cast

from hippograph.embeddings.base import EmbeddingProvider
from hippograph.errors import InvalidInputError
from hippograph.layers.base import MemoryLayer, MemoryServices
from hippograph.layers.episodic import EpisodicMemory
from hippograph.layers.metacognition import GateMode, MetacognitiveGate
from hippograph.layers.pending import PendingWrites
from hippograph.layers.procedural import ProceduralMemory
from hippograph.layers.prospective import ProspectiveMemory
from hippograph.layers.repository import LayerRepository
from hippograph.layers.semantic import SemanticMemory
from hippograph.layers.turn_reads import TurnReads
from hippograph.layers.working import WorkingMemory
from hippograph.memory.capability import MemoryCapability, RecordPolicy
from hippograph.memory.commit import CommitReport, OpWriter, Written
from hippograph.memory.enrich import Enricher, enrich_turns, turns_of
from hippograph.memory.graph_access import GraphAccess
from hippograph.memory.ingest import ConversationTurn, Progress, ingest_conversation
from hippograph.memory.layer_verbs import LayerVerbs
from hippograph.memory.ports import Consolidation, Extractor
from hippograph.memory.reembed import ReembedProgress, ReembedReport, prepare_embedder, reembed
from hippograph.memory.warm import WarmUp, warm_up
from hippograph.models import Layer, MemoryNode
from hippograph.ops import MemoryOp
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.context import MemoryContext, assemble
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.types import Channel, Degradation, RecallItem, RecallResult
from hippograph.scope import Scope
from hippograph.scrub import Scrubber, ScrubConfig
from hippograph.store.erase import EraseProgress
from hippograph.store.graph_store import GraphStore
from hippograph.store.schema import migrate
from hippograph.store.vectors import VectorSlot, check_embedder, model_id_of
from hippograph.tracing import SCOPE_KEY, span

__all__ = ["Memory"]

log = logging.getLogger(__name__)


class Memory(LayerVerbs, GraphAccess):
    """Long-term memory of one Neo4j database: remember, ingest, recall, build a prompt's
    context, commit a model's memory ops, forget a scope, and bind a capability to one scope
    (:meth:`for_scope`). Build it with :meth:`connect` (or :func:`hippograph.open_memory`).

    ``vector_slot``: the database's vector slot, when the caller checked the embedder itself
    (:meth:`connect` does)."""

    def __init__(
        self,
        store: GraphStore,
        embedder: EmbeddingProvider,
        *,
        recall_config: RecallConfig | None = None,
        clock: Callable[[], float] = time.time,
        scrub: ScrubConfig | None = None,
        vector_slot: VectorSlot | None = None,
    ) -> None:
        engine = RecallEngine(store, embedder, recall_config, clock=clock)
        if vector_slot is not None:
            engine.use_vectors(embedder, vector_slot)
        scrubber = Scrubber(scrub) if scrub is not None else Scrubber.default()
        self._services = MemoryServices(store=store, embedder=embedder, engine=engine, clock=clock, scrubber=scrubber)
        self._store = store
        self._engine = engine
        self._pending = PendingWrites()
        """Background work that will write into a scope (an agent's turn consolidation):
        :meth:`forget` waits for it before erasing."""
        self._working = WorkingMemory(self._services)
        self._episodic = EpisodicMemory(self._services)
        self._semantic = SemanticMemory(self._services)
        self._procedural = ProceduralMemory(self._services)
        self._prospective = ProspectiveMemory(self._services)
        self._gate = MetacognitiveGate(self._services)
        self._writer = OpWriter(
            store, self._semantic, self._episodic, self._procedural, self._prospective, self._gate, clock
        )
        """The one write path of memory ops (:meth:`commit`, :meth:`write`, :meth:`retract`)."""
        self._layers: dict[Layer, MemoryLayer] = {
            Layer.WORKING: self._working,
            Layer.EPISODIC: self._episodic,
            Layer.SEMANTIC: self._semantic,
            Layer.PROCEDURAL: self._procedural,
            Layer.PROSPECTIVE: self._prospective,
        }

    @classmethod
    async def connect(
        cls,
        uri: str,
        *,
        password: str | None,
        user: str = "neo4j",
        database: str = "neo4j",
        embedder: EmbeddingProvider | None = None,
        recall_config: RecallConfig | None = None,
        apply_schema: bool = True,
        warm_plans: bool = True,
        warm: bool = False,
        scrub: ScrubConfig | None = None,
    ) -> Memory:
        """Connect to Neo4j, apply the schema (idempotent) and build the memory.
        ``warm_plans``: have the server plan the recall statement in the background now, not
        on the first recall (seconds after a server start: :meth:`RecallEngine.warm_plans`).
        ``warm``: return only once :meth:`warm` has made the first recall and agent turn as
        fast as later ones (a service's start-up; a one-off script is better off without).

        The database records the embedder its vectors come from (model id and dimensions); a
        new database takes ``embedder``'s, and its vector index is built at its size.

        Raises:
            EmbedderMismatchError: ``embedder`` is not the database's (another model id or
                size); the message names both and the command that moves the database to it.
        """
        store = await GraphStore.open(uri, user=user, password=password, database=database, apply_schema=False)
        try:
            if embedder is None:
                from hippograph.embeddings import default_embedder

                embedder = default_embedder()
            dimensions = await prepare_embedder(embedder)
            record = await check_embedder(store.conn, model_id_of(embedder), dimensions, record=apply_schema)
            if apply_schema:
                await migrate(store.conn, dimensions=record.dimensions, similarity=record.similarity)
        except BaseException:
            await store.close()
            raise
        memory = cls(store, embedder, recall_config=recall_config, scrub=scrub, vector_slot=record.slot)
        if warm_plans or warm:
            memory._engine.warm_plans()
        if warm:
            try:
                await memory.warm()
            except BaseException:
                await memory.close()
                raise
        return memory

    async def reembed(
        self, embedder: EmbeddingProvider, *, batch_size: int = 256, progress: ReembedProgress | None = None
    ) -> ReembedReport:
        """Move the database's vectors to ``embedder`` while this memory keeps recalling: the
        new vectors are written beside the old ones and indexed, then recall and the write paths
        switch to the new embedder in one step (see :mod:`hippograph.memory.reembed`).
        Resumable: after a crash, run it again with the same embedder."""

        async def switch(slot: VectorSlot) -> None:
            before = self._engine.repo.slot
            self._engine.use_vectors(embedder, slot)
            self._services.embedder = embedder
            await self._engine.settled(before)  # the recalls still reading it finish first

        return await reembed(self._store.conn, embedder, batch_size=batch_size, progress=progress, on_switch=switch)

    async def warm(self) -> WarmUp:
        """Get ready to answer the first recall and the first agent turn as fast as the
        hundredth: load the embedder and embed once, and have the server plan, compile and run
        the statements of a recall and of a turn's reads (over a scope that holds nothing;
        nothing is written). Seconds right after a Neo4j start, well under one on a warm server;
        idempotent. ``hippograph serve`` reports ready (``/readyz``) only once this is done.
        See :mod:`hippograph.memory.warm`.

        Returns:
            How long each part took.

        Raises:
            ConfigurationError: The embedder cannot load.
            StoreError: The database failed.
        """
        return await warm_up(self, self._engine, self._services.embedder)

    @property
    def scrubber(self) -> Scrubber:
        """The credential scrubber applied on every write and render (``scrub`` configures it)."""
        return self._services.scrubber

    async def close(self) -> None:
        await self._engine.stop_warming()
        await self._engine.drain()
        await self._store.close()

    async def __aenter__(self) -> Memory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def get_layer(self, layer: Layer | str) -> MemoryLayer:
        try:
            return self._layers[Layer(layer)]
        except ValueError:
            raise InvalidInputError("layer", f"unknown layer {layer!r:.40}") from None

    # -- write -----------------------------------------------------------------------------
    async def remember(self, scope: Scope, label: str, content: str = "", **fields: Any) -> MemoryNode:
        """Bring your own fact: store it in semantic memory, no model call needed."""
        return await self._semantic.store_fact(scope, label, content, **fields)

    async def ingest(
        self,
        scope: Scope,
        turns: Sequence[ConversationTurn | dict[str, Any]],
        *,
        progress: Progress | None = None,
        resemblance_links: int = 0,
        enricher: Enricher | None = None,
    ) -> list[MemoryNode]:
        """Store a whole conversation as episodic turns; idempotent by turn id. With
        ``resemblance_links=k`` each turn is also linked (``RESEMBLES``) to the k turns of other
        sessions of its scope it most resembles, which recall's spreading follows (opt-in: see
        ``hippograph.memory.ingest.RESEMBLANCE_K``). With an ``enricher`` every turn also gets
        its keys (:meth:`enrich`)."""
        parsed = []
        for i, t in enumerate(turns):
            try:
                parsed.append(t if isinstance(t, ConversationTurn) else ConversationTurn.model_validate(t))
            except ValueError as exc:
                raise InvalidInputError(f"turns[{i}]", str(exc).splitlines()[-1]) from None
        with span("hippograph.ingest", {SCOPE_KEY: scope.key, "hippograph.ingest.turns": len(parsed)}) as current:
            stored = await ingest_conversation(
                self._services, self._episodic, scope, parsed, progress=progress, resemblance_k=resemblance_links
            )
            current.set_attribute("hippograph.ingest.stored", len(stored))
        if enricher is not None:
            await self.enrich(scope, enricher, turns=stored)
        return stored

    async def enrich(
        self,
        scope: Scope,
        enricher: Enricher,
        *,
        turns: Sequence[MemoryNode] | None = None,
        progress: Progress | None = None,
    ) -> int:
        """Write ``enricher``'s keys for the conversation turns of exactly ``scope`` (``turns``:
        those of them; None: every stored turn), which recall's channels then search beside the
        turns' own text (:mod:`hippograph.memory.enrich`). Enriching again replaces that
        enricher's keys of a turn. Returns the keys written.

        Raises:
            hippograph.memory.enrich_model.EnrichmentError: A model-backed enricher failed or
                answered in the wrong shape; nothing of the batch it failed on is written.
        """
        nodes = list(turns) if turns is not None else await self._stored_turns(scope)
        with span("hippograph.enrich", {SCOPE_KEY: scope.key, "hippograph.enrich.turns": len(nodes)}) as current:
            written = await enrich_turns(self._services, scope, enricher, turns_of(nodes), progress=progress)
            current.set_attribute("hippograph.enrich.keys", written)
            return written

    async def _stored_turns(self, scope: Scope) -> list[MemoryNode]:
        page = 1000
        found: list[MemoryNode] = []
        repo = LayerRepository(self._store)
        while True:
            rows = await repo.search_events(
                scope, since=None, until=None, session_id=None, limit=page, offset=len(found)
            )
            found += rows
            if len(rows) < page:
                return [n for n in found if n.scope_key == scope.key]

    async def commit(
        self,
        scope: Scope,
        ops: Sequence[MemoryOp],
        *,
        auto_approve_skills: bool = False,
        source_event_id: str | None = None,
        skill_gate: GateMode | str = GateMode.OFF,
    ) -> CommitReport:
        """Apply a model's memory ops by layer; each failure is reported, never raised.
        Every text an op stores (labels, contents, properties, conditions, tasks, steps) is
        scrubbed of credentials first. With ``skill_gate`` ``flag`` or ``refuse``, a
        ``register_skill`` op is checked against the scope's core preferences first (see
        :mod:`hippograph.layers.metacognition`); the op's entry carries the gate's reason."""
        with span("hippograph.commit", {SCOPE_KEY: scope.key, "hippograph.commit.ops": len(ops)}):
            return await self._writer.commit(
                scope,
                ops,
                auto_approve_skills=auto_approve_skills,
                source_event_id=source_event_id,
                skill_gate=skill_gate,
            )

    async def write(self, scope: Scope, op: MemoryOp, *, actor: str) -> Written:
        """Apply one memory op for ``actor`` (a person or a key, named in audits) through the
        same path as :meth:`commit`, and return what it stored; a failure raises.

        Raises:
            InvalidInputError: The op is not valid for its layer, or names no memory of ``scope``.
            HippographError: Any other failure of the layers or the store.
        """
        return await self._writer.write(scope, op, actor=actor)

    async def retract(self, scope: Scope, node_id: str, *, reason: str, actor: str, phase: str | None = None) -> None:
        """Soft-delete a memory of this scope (or below) with its reason; restorable.

        ``node_id`` is a memory's id or the handle a prompt showed for it (``[id:<handle>]``,
        the start of its id, with or without ``id:``) when exactly one memory has it."""
        await self._writer.retract(scope, node_id, reason=reason, actor=actor, phase=phase)

    # -- read ------------------------------------------------------------------------------
    @property
    def recall_config(self) -> RecallConfig:
        """The recall configuration this memory was built with (the default of :meth:`recall`)."""
        return self._engine.config

    async def recall(
        self,
        scope: Scope,
        query: str,
        *,
        config: RecallConfig | None = None,
        top_k: int | None = None,
        layers: Sequence[Layer | str] | None = None,
        now: float | None = None,
    ) -> RecallResult:
        """The ``top_k`` memories ``scope`` may see that best answer ``query``, explained.

        Hybrid recall (vector and full-text search) followed by spreading activation over the
        memory graph; see :class:`~hippograph.retrieval.engine.RecallEngine`.

        Args:
            scope: Whose memories: the scope's own and its ancestors' (never a sibling's).
            query: What to recall, in words.
            config: The recall configuration for this call (hops, weights, budgets …); None:
                :attr:`recall_config`.
            top_k: How many memories; None: the configuration's ``top_k``.
            layers: Only memories of these layers; None: every layer.
            now: The time to score recency against (epoch seconds); None: the clock's now.

        Returns:
            The recalled items with their channels, score parts and activation paths.

        Raises:
            InvalidQueryError: A bad query, layer or ``top_k``.
            StoreError: The database failed.
        """
        return await self._engine.recall(scope, query, layers=layers, top_k=top_k, config=config, now=now)

    async def context(
        self,
        scope: Scope,
        query: str,
        *,
        budget: int | None = None,
        layers: Sequence[Layer] | None = None,
        top_k: int | None = None,
        include_working: bool = True,
        session_id: str | None = None,
        turn_reads: TurnReads | None = None,
        recent_turns: int | None = None,
        config: RecallConfig | None = None,
    ) -> tuple[RecallResult, MemoryContext]:
        """Recall, then render the prompt's memory block within the token budget. The working
        memory block is the last ``recent_turns`` (None: the working layer's ``verbatim``) of
        ``session_id`` (of the whole scope without one); ``turn_reads``, when given, holds the
        scope's working memories read for the turn; ``config`` overrides the recall config."""
        recent = (
            self.last_turns(scope, session_id=session_id, turn_reads=turn_reads, n=recent_turns)
            if include_working and recent_turns != 0
            else _none()
        )
        recalled, last_turns = await asyncio.gather(
            self.recall(scope, query, layers=layers, top_k=top_k, config=config), recent, return_exceptions=True
        )  # independent reads at once; a failure raises as it would have one after the other
        for outcome in (recalled, last_turns):
            if isinstance(outcome, BaseException):
                raise outcome
        result = cast(RecallResult, recalled)
        working = cast("list[MemoryNode] | None", last_turns) or []
        items = self._renderable(result)
        direct = [i for i in items if Channel.ACTIVATION not in i.channels]
        associated = [i for i in items if Channel.ACTIVATION in i.channels]
        renderers = {layer: impl.render_for_prompt for layer, impl in self._layers.items()}
        ctx = assemble(
            direct,
            renderers,
            budget=budget or self._engine.config.token_budget,
            associated=associated,
            working=working,
            working_renderer=self._working.render_for_prompt,
            scrubber=self.scrubber,
        )
        return result, ctx

    async def last_turns(
        self,
        scope: Scope,
        *,
        session_id: str | None = None,
        turn_reads: TurnReads | None = None,
        n: int | None = None,
    ) -> list[MemoryNode]:
        """The working memory a prompt shows verbatim: the last ``n`` turns (None: the working
        layer's ``verbatim``) of ``session_id`` (of the whole scope without one), from
        ``turn_reads`` when given (the turn's combined read)."""
        if n == 0:
            return []
        own = await turn_reads.working(scope) if turn_reads is not None else None
        count = self._working.verbatim if n is None else n
        return await self._working.get_context(scope, count, session_id=session_id, own=own)

    def turn_reads(self, scope: Scope, *, working: bool, prospective: bool, persona: bool) -> TurnReads:
        """Start an agent turn's small reads of ``scope`` in one statement (see :class:`TurnReads`)."""
        return TurnReads(self._store, scope, working=working, prospective=prospective, persona=persona)

    def _renderable(self, result: RecallResult) -> list[RecallItem]:
        """The items whose layer renders them; a layer that fails is left out of the context
        (and named in ``result.degraded``) — the other layers' items stand."""
        failed: set[Layer] = set()
        kept = []
        for item in result.items:
            layer = item.node.layer
            if layer in failed:
                continue
            try:
                self._layers[layer].render_for_prompt(item)
            except Exception as exc:
                log.warning("context: the %s layer failed to render: %s", layer.value, type(exc).__name__)
                failed.add(layer)
                result.degraded.append(Degradation.of(f"layer:{layer.value}", exc))
                continue
            kept.append(item)
        return kept

    # -- forget ----------------------------------------------------------------------------
    async def forget(self, scope: Scope, *, progress: EraseProgress | None = None) -> int:
        """Erase the scope and everything below it (GDPR erase): hidden at once, then deleted
        in batches (``progress(deleted, total)`` after each), completely — nothing left in the
        database names the scope or its memories. Erasing again resumes a crashed erase.

        Writes already scheduled into the subtree (an agent's background consolidation of a
        turn, registered with :meth:`track`, and recall's bookkeeping) finish first, so none
        lands after the erase; work scheduled after this call is new data."""
        await self._pending.settle(scope)
        await self._engine.drain()
        return await self._store.delete_subtree(scope, progress=progress)

    # -- one scope, for any agent host ----------------------------------------------------
    def for_scope(
        self,
        scope: Scope | Any,
        *,
        limit: int = 5,
        budget: int | None = None,
        item_budget: int | None = None,
        token_budget: int | None = None,
        extractor: Extractor | None = None,
        consolidation: Consolidation | None = None,
        policy: RecordPolicy | None = None,
        activation: ActivationConfig | None = None,
        recent_turns: int | None = None,
        conversation: str | None = None,
    ) -> MemoryCapability:
        """The memory capability of one scope (a :class:`Scope` or any form
        :func:`~hippograph.memory.scopes.as_scope` reads): recall within a UTF-8 byte
        ``budget`` (``item_budget`` per memory), with its own spreading ``activation``, the
        last ``recent_turns`` of its ``conversation`` verbatim; record exchanges (optionally
        extracting memories with ``extractor`` and napping in the background on
        ``consolidation``'s cadence), forget. See :mod:`hippograph.memory.capability`.

        Raises:
            InvalidInputError: A bad scope, limit, budget or recent_turns.
            ConfigurationError: ``extractor`` or ``consolidation`` cannot serve its port.
        """
        return MemoryCapability(
            self, scope, limit=limit, budget=budget, item_budget=item_budget, token_budget=token_budget,
            extractor=extractor, consolidation=consolidation, policy=policy, activation=activation,
            recent_turns=recent_turns, conversation=conversation,
        )  # fmt: skip


async def _none() -> None:
    return None
