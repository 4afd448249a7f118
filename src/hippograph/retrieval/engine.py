"""Hybrid recall with spreading activation.

1. Channels: the vector index and the fulltext index, both restricted to the scopes the
   caller may see and correct under that restriction; ``candidates_per_channel`` each.
2. Evidence: each channel z-scored over the candidate pool and added; +``person_bonus``
   for memories said by the one person the query names.
3. Spreading activation from every candidate (shifted to be ≥ 0, scaled to [0, 1]): over
   memory edges (``NEXT``, ``MENTIONS`` …), then from the best sessions to their members,
   then from the best memories through shared keyword / name cues, weighted by rarity.
4. Score: the four signals (relevance, recency, frequency, proximity) times
   the scope-distance, time-window, currency and answer multipliers (a current fact also on
   its own evidence; a turn that asks a question weighs less); gates; a current fact above
   the turns it restates and a superseded version below its current one
   (:mod:`~hippograph.retrieval.fact_rules`); an answer drawn from memory just below its
   sources (:mod:`~hippograph.retrieval.derived`); per-layer rules.

Every item carries its channels, its score parts and the path that reached it.

Steps 1–3 and the rows to score are one parameterised statement, one round trip, rendered for
the server from the fragments of ``cypher/retrieval/recall/``
(:mod:`~hippograph.retrieval.statement`); the engine turns its row into the result with
the pure functions of :mod:`~hippograph.retrieval.activation` and
:mod:`~hippograph.retrieval.scoring`. Degrading: when the statement fails (a fault, the
transaction memory pool, a server that refuses it), recall runs the same fragments one
statement each, each part failing on its own; ``RecallResult.degraded``
names the statement's failure (part ``recall_statement``) and any part that failed after it.
A failure of the maths on the statement's spreading leaves the direct hits (part
``activation``); a fulltext query that cannot be built leaves the vector channel (``fulltext``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from contextvars import ContextVar
from typing import Any

from hippograph.cues import query_names
from hippograph.embeddings.base import EmbeddingProvider
from hippograph.embeddings.memo import embed_once
from hippograph.errors import StoreFailedError
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval import bookkeeping, person_topic, scoring
from hippograph.retrieval.activation import association_arrivals, edge_arrivals
from hippograph.retrieval.checks import check_request
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.derived import demote_derived
from hippograph.retrieval.diversity import diversify
from hippograph.retrieval.fact_rules import rank_facts
from hippograph.retrieval.layer_rules import apply_layer_rules
from hippograph.retrieval.lucene import build_query
from hippograph.retrieval.recall_state import (
    EXACT_SCAN_BELOW,
    SEARCH_PER_KEY,
    ActivationState,
    Hits,
    PopulationKey,
    Populations,
    Retrieved,
    evidence_of,
    rank_depth,
)
from hippograph.retrieval.repository import RecallRepository, RecallRow
from hippograph.retrieval.timeparse import time_window
from hippograph.retrieval.types import (
    ActivationLog,
    Channel,
    Degradation,
    RecallItem,
    RecallResult,
    RecallTimings,
    ScoreParts,
)
from hippograph.scope import Scope
from hippograph.store.graph_store import GraphStore
from hippograph.store.mapping import has_direction
from hippograph.store.vector_search import index_failed
from hippograph.store.vectors import READING_SLOT, VectorSlot
from hippograph.tracing import SCOPE_KEY, AttributeValue, span

__all__ = ["EXACT_SCAN_BELOW", "RecallEngine"]

log = logging.getLogger(__name__)
_EMBEDDER: ContextVar[EmbeddingProvider | None] = ContextVar("hippograph_recall_embedder", default=None)
"""The embedder of the recall under way (see :meth:`RecallEngine.use_vectors`)."""
STATEMENT = "recall_statement"
"""The part ``RecallResult.degraded`` names when the one statement failed (the stages answered)."""
EXACT_EVERYWHERE = 2**62
"""An exact-scan threshold no scope reaches: the statement then never asks the vector index."""


class RecallEngine:
    """Recall over one store. Safe to share across concurrent calls."""

    def __init__(
        self,
        store: GraphStore,
        embedder: EmbeddingProvider,
        config: RecallConfig | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.repo = RecallRepository(store)
        self.embedder = embedder
        self.config = config or RecallConfig()
        self.clock = clock
        self._background: set[asyncio.Task[None]] = set()
        self._warming: asyncio.Task[None] | None = None
        self._populations = Populations()
        self._reading: dict[VectorSlot, int] = {}
        """Recalls under way, by the vector slot they read."""
        self.exact_scan_below = EXACT_SCAN_BELOW
        """Scopes that see at most this many memories skip the vector index (exact scan)."""

    async def recall(
        self,
        scope: Scope,
        query: str,
        *,
        layers: Sequence[Layer | str] | None = None,
        top_k: int | None = None,
        config: RecallConfig | None = None,
        now: float | None = None,
    ) -> RecallResult:
        """The ``top_k`` memories ``scope`` may see that best answer ``query``, explained."""
        base = config or self.config
        k = base.top_k if top_k is None else top_k
        wanted = check_request(query, layers, k)  # before anything reads the query
        cfg = scoring.for_query(base, query)
        now = self.clock() if now is None else now
        attributes: dict[str, AttributeValue] = {
            SCOPE_KEY: scope.key,
            "hippograph.recall.top_k": k,
            "hippograph.recall.layers": _names(wanted),
        }
        # the embedder and the vectors it is compared with, taken together once for the recall
        slot, embedder = READING_SLOT.set(self.repo.slot), _EMBEDDER.set(self.embedder)
        reading = self.repo.slot
        self._reading[reading] = self._reading.get(reading, 0) + 1
        try:
            with span("hippograph.recall", attributes) as current:
                result = await self._recall(scope, query, wanted, cfg, k, now)
                current.set_attributes(_recall_attributes(result))
        finally:
            self._reading[reading] -= 1
            _EMBEDDER.reset(embedder)
            READING_SLOT.reset(slot)
        return result

    def use_vectors(self, embedder: EmbeddingProvider, slot: VectorSlot) -> None:
        """Embed queries with ``embedder`` and compare them with ``slot``'s vectors from the next
        recall on, in one step (a re-embedding's switch); a recall under way finishes with the
        pair it started with."""
        self.embedder = embedder
        self.repo.slot = slot

    async def settled(self, slot: VectorSlot) -> None:
        """Wait until no recall reads ``slot`` any more (after :meth:`use_vectors` moved away
        from it, before its vectors change)."""
        while self._reading.get(slot):
            await asyncio.sleep(0.005)

    def _embedder(self) -> EmbeddingProvider:
        return _EMBEDDER.get() or self.embedder

    async def _recall(
        self, scope: Scope, query: str, wanted: list[Layer], cfg: RecallConfig, k: int, now: float
    ) -> RecallResult:
        t0 = time.perf_counter()
        with span("hippograph.recall.embed", {"gen_ai.operation.name": "embeddings"}):
            vector = await embed_once(self._embedder(), query)
        t_embed = time.perf_counter()

        found, degraded = await self._retrieve(scope, query, vector, wanted, cfg, k)
        about_person = await self._about_person(query, found, cfg, degraded)
        t_act = time.perf_counter()

        with span("hippograph.recall.scoring") as scored:
            state = found.state
            ranked = sorted(state.total, key=lambda i: (-state.total[i], i))[: rank_depth(k)]
            nodes = (
                found.nodes if found.nodes is not None else await self.repo.recalled(ids=ranked, visible=found.visible)
            )
            if about_person and found.nodes is not None:  # the statement read the memories of its own ranking
                unread = [i for i in ranked if i not in nodes]
                nodes = {**nodes, **await self.repo.recalled(ids=unread, visible=found.visible)} if unread else nodes
            items = self._score(scope, query, ranked, nodes, found.hits, found.evidence, found.named, state, cfg, now)
            items = diversify(apply_layer_rules(scope, items, cfg), cfg.session_diversity)[:k]
            scored.set_attributes({"hippograph.recall.ranked": len(ranked), "hippograph.recall.hits": len(items)})
        t_end = time.perf_counter()

        if cfg.track_access:
            self._bookkeeping(scope, items, state.log, now)
        timings = RecallTimings(
            embed_ms=(t_embed - t0) * 1000,
            candidates_ms=(found.t_candidates - t_embed) * 1000,
            activation_ms=(t_act - found.t_candidates) * 1000,
            scoring_ms=(t_end - t_act) * 1000,
            total_ms=(t_end - t0) * 1000,
        )
        return RecallResult(
            query=query, scope_key=scope.key, items=items, activation=state.log, timings=timings, degraded=degraded
        )

    # -- retrieval: one statement, its fragments one by one when it fails ----------------------
    async def _retrieve(
        self, scope: Scope, query: str, vector: list[float], wanted: list[Layer], cfg: RecallConfig, k: int
    ) -> tuple[Retrieved, list[Degradation]]:
        degraded: list[Degradation] = []
        visible = scope.ancestor_keys()
        try:
            lucene = build_query(query, visible, wanted)
        except Exception as exc:  # the vector channel still answers
            log.warning("recall: fulltext query failed: %s", type(exc).__name__, exc_info=True)
            degraded.append(Degradation.of("fulltext", exc))
            lucene = None
        await self._after_warming()
        key: PopulationKey = (scope.key, tuple(layer.value for layer in wanted))
        population = self._populations.get(key)
        params = self._params(query, vector, visible, scope.chain_points(), lucene, key[1], cfg, k, population)
        try:
            with span("hippograph.recall.statement", {"db.system": "neo4j"}) as statement:
                row = await self._search(params)
                statement.set_attributes(_channel_attributes(row.vector_hits, row.fulltext_hits))
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:
            log.warning("recall: the one statement failed, running its fragments one by one: %s", type(exc).__name__)
            degraded.append(Degradation.of(STATEMENT, exc))
            with span("hippograph.recall.fragments", {"db.system": "neo4j"}) as fragments:
                row, more = await self.repo.search_recall_stages(**params)
                fragments.set_attributes(_channel_attributes(row.vector_hits, row.fulltext_hits))
            degraded.extend(more)
        if population is None and "population" not in {d.part for d in degraded}:
            self._populations.put(key, row.population)
        elif self._populations.due(key):
            self._background_task(self._recount(key, row.visible))
        t_candidates = time.perf_counter()
        with span("hippograph.recall.activation") as activation:
            hits = Hits.of(row.fulltext_hits, row.vector_hits)
            evidence = evidence_of(hits, row.named, cfg)
            try:
                state = _activation(row, hits, evidence, cfg)
            except Exception as exc:  # the direct hits still answer: activation only adds to them
                log.warning("recall: activation failed: %s", type(exc).__name__, exc_info=True)
                degraded.append(Degradation.of("activation", exc))
                state = ActivationState.from_evidence(evidence, cfg, hits.session)
            activation.set_attribute("hippograph.recall.activated", len(state.log.activated))
        return Retrieved(hits, evidence, state, row.memories(), row.visible, t_candidates, row.named), degraded

    def _params(
        self,
        query: str,
        vector: list[float],
        visible: list[str],
        chain: list[str],
        lucene: str | None,
        layers: tuple[str, ...],
        cfg: RecallConfig,
        k: int,
        population: int | None,
    ) -> dict[str, Any]:
        """What the recall statement (and each of its fragments) is given."""
        n = cfg.candidates_per_channel
        return dict(
            vector=vector if has_direction(vector) else None,
            dimensions=len(vector),
            lucene=lucene,
            visible=visible,
            chain=chain,
            layers=list(layers),
            k=n,
            fetch_k=max(self.store.vector_fetch_k, SEARCH_PER_KEY * n),
            exact_below=self.exact_scan_below,
            keys=[name.casefold() for name in query_names(query)],
            population=population,
            vector_weight=cfg.vector_weight,
            fulltext_weight=cfg.fulltext_weight,
            person_bonus=cfg.person_bonus,
            session_prior=cfg.session_prior,
            feedback_weight=cfg.feedback_weight,
            feedback_seeds=cfg.feedback_seeds,
            activation=cfg.activation,
            rank_n=rank_depth(k),
            # person-centred evidence may re-rank the candidates after the statement
            all_arrivals=cfg.topic_weight > 0 or cfg.topic_head_weight > 0,
        )

    async def _search(self, params: dict[str, Any]) -> RecallRow:
        """Channels, evidence, spreading and the rows to score: one statement."""
        try:
            return await self.repo.search_recall(**params)
        except StoreFailedError as exc:
            if not index_failed(exc):
                raise
            # the server failed inside the vector index (see hippograph.store.vector_search):
            # the same statement with the exact scan for every scope size answers exactly
            log.warning("recall: the vector index failed inside Neo4j (%s); scanning exactly", exc.code)
            return await self.repo.search_recall(**{**params, "exact_below": EXACT_EVERYWHERE})

    async def _recount(self, key: PopulationKey, visible: list[str]) -> None:
        self._populations.put(key, await self.repo.scope_size(visible=visible, layers=list(key[1])))

    def _score(
        self,
        scope: Scope,
        query: str,
        ranked: list[str],
        nodes: dict[str, MemoryNode],
        hits: Hits,
        evidence: dict[str, ScoreParts],
        named: list[str],
        state: ActivationState,
        cfg: RecallConfig,
        now: float,
    ) -> list[RecallItem]:
        window = time_window(query, now) if cfg.time_aware else None
        levels_up = scope.ancestor_distances()  # Scope.distance_to, once per recall
        scored = {i: nodes[i] for i in ranked if i in nodes}
        on = scoring.footing(state.total, state.base, scored, evidence, named, cfg, now)
        items = []
        for nid in ranked:
            node = nodes.get(nid)
            if node is None or node.importance < cfg.hydration_threshold:
                continue
            cosine = hits.cosine.get(nid)
            channels = scoring.channels_of(hits.vector_rank.get(nid), hits.fulltext_rank.get(nid))
            boosted = state.total.get(nid, 0.0) > state.base.get(nid, 0.0) + 1e-9
            if scoring.weak_vector_only(channels, boosted, cosine, cfg.min_relevance):
                continue
            path = state.path(nid)
            # A memory a channel found is a seed: 0 hops from one, whatever else reached it too.
            hops = 0 if channels else max(1, len(path) - 1)
            if not channels:
                channels[Channel.ACTIVATION] = hops
            distance = levels_up.get(node.scope_key, 0)
            parts = evidence.get(nid, ScoreParts()).model_copy(
                update={
                    "relevance": scoring.relevance(
                        node, cfg, on, now=now, total=state.total.get(nid, 0.0), evidence=state.base.get(nid, 0.0)
                    ),
                    "cosine": cosine,
                    "bm25": hits.bm25.get(nid),
                    "edges": state.edges.get(nid, 0.0),
                    "session": state.session.get(nid, 0.0) + state.prior.get(nid, 0.0),
                    "cues": state.cues.get(nid, 0.0),
                    **scoring.signals(node, cfg, now=now, hops=hops, distance=distance, window=window),
                    "recency_counted": cfg.weights.recency > 0,
                }
            )
            score = scoring.final_score(cfg, parts)
            items.append(
                RecallItem(node=node, score=score, parts=parts, channels=channels, path=path, scope_distance=distance)
            )
        items.sort(key=lambda i: (-i.score, i.node.id))
        return demote_derived(rank_facts(items, cfg, now))

    async def _about_person(self, query: str, found: Retrieved, cfg: RecallConfig, degraded: list[Degradation]) -> bool:
        """Person-centred evidence (:mod:`~hippograph.retrieval.person_topic`) for the
        candidates said by the one person the query names; True when it changed the ranking's
        inputs. A failure leaves the recall as it was (part ``person_topic``)."""
        if len(found.named) != 1 or (cfg.topic_weight <= 0 and cfg.topic_head_weight <= 0):
            return False
        person = found.named[0]
        pool = found.hits.pool
        mine = {i for i in pool if person in found.hits.persons.get(i, [])}
        texts = person_topic.topic_texts(query, person)
        if not mine or not texts:
            return False
        try:
            vectors = list(await self._embedder().embed_batch(texts))
            cosines = await self.repo.topic_cosines(ids=pool, visible=found.visible, vectors=vectors)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:
            log.warning("recall: person-centred evidence failed: %s", type(exc).__name__)
            degraded.append(Degradation.of("person_topic", exc))
            return False
        topic = person_topic.topic_evidence(cosines, mine, cfg.topic_weight, cfg.topic_head_weight)
        if not topic:
            return False
        scale = scoring.evidence_scale(found.evidence, cfg.vector_weight, cfg.fulltext_weight)
        found.state.add_topic(topic, scale)
        for i, value in topic.items():
            found.evidence[i] = found.evidence[i].model_copy(update={"topic": value})
        return True

    # -- bookkeeping off the hot path -------------------------------------------------------
    def _bookkeeping(self, scope: Scope, items: list[RecallItem], log_: ActivationLog, now: float) -> None:
        async def work() -> None:
            await self.repo.record_access(
                recalled=[i.node.id for i in items], spread=[a.id for a in log_.activated], now=now
            )
            if log_.pending:
                await self.store.ensure_scope(scope)
                rows = [p.model_dump() for p in log_.pending]
                await self.repo.upsert_pending_links(rows=rows, scope_key=scope.key, now=now)

        holder = bookkeeping.held()
        if holder is None:
            self._background_task(work())
        else:  # started when the caller's latency no longer counts (see hippograph.retrieval.bookkeeping)
            holder.add(lambda: self._background_task(work()))

    def _background_task(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("recall background work failed: %r", task.exception())

    async def drain(self) -> None:
        """Wait for background bookkeeping and recounts (tests, shutdown)."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    # -- the statement's plan, off the user's path -------------------------------------------
    def warm_plans(self) -> None:
        """Start planning the recall statement in the background (idempotent; needs a running
        loop). The server plans it once per mix of parameter types and sizes, 4–25 s after a
        start; every recall sends one mix (:func:`~hippograph.retrieval.repository.recall_statement_params`),
        which this runs once over no scope. A failure is logged, never raised; a recall that
        starts meanwhile waits for it rather than plan the same statement beside it;
        :meth:`stop_warming` cancels it."""
        if self._warming is None:
            self._warming = asyncio.create_task(self._warm(), name="hippograph-recall-warm-plans")

    async def _warm(self) -> None:
        t0 = time.perf_counter()
        try:
            await self.repo.warm_recall(
                dimensions=self.embedder.dimensions,
                layers=[layer.value for layer in Layer],
                activation=self.config.activation,
            )
        except Exception as exc:  # never BaseException: a cancel goes through
            log.warning("recall: warming the statement's plan failed: %s", type(exc).__name__)
        else:
            log.debug("recall: the statement planned in the background in %.0f ms", (time.perf_counter() - t0) * 1000)

    async def _after_warming(self) -> None:
        task = self._warming
        if task is not None and not task.done():
            await asyncio.wait({task})  # never raises, and a cancelled recall leaves the task be

    async def warmed(self) -> None:
        """Wait until the background planning of :meth:`warm_plans` has finished (at once when
        it was not started); never raises."""
        await self._after_warming()

    async def stop_warming(self) -> None:
        """Cancel the background planning if it still runs, and wait until it has stopped."""
        task, self._warming = self._warming, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def _names(layers: Sequence[Layer]) -> list[str]:
    return [layer.value for layer in layers]


def _channel_attributes(vector_hits: Sequence[object], fulltext_hits: Sequence[object]) -> dict[str, int]:
    """How many candidates each channel found (attributes of the statement or channels span)."""
    return {
        "hippograph.recall.vector_candidates": len(vector_hits),
        "hippograph.recall.fulltext_candidates": len(fulltext_hits),
    }


def _recall_attributes(result: RecallResult) -> dict[str, AttributeValue]:
    """The recall span's outcome: hits, the parts that degraded and the stage timings."""
    t = result.timings
    return {
        "hippograph.recall.hits": len(result.items),
        "hippograph.recall.degraded": [d.part for d in result.degraded],
        "hippograph.recall.embed_ms": t.embed_ms,
        "hippograph.recall.candidates_ms": t.candidates_ms,
        "hippograph.recall.activation_ms": t.activation_ms,
        "hippograph.recall.scoring_ms": t.scoring_ms,
    }


def _activation(row: RecallRow, hits: Hits, evidence: dict[str, ScoreParts], cfg: RecallConfig) -> ActivationState:
    """The activation state of a one-statement recall: evidence, then what the statement's
    spreading delivered, added up as the stages add it."""
    act = cfg.activation
    state = ActivationState.from_evidence(evidence, cfg, hits.session)
    if act.max_nodes == 0:
        return state
    edges = edge_arrivals(row.edges)
    a = state.add_edges(edges, row.capped_edges)
    session, cue = association_arrivals(row.associations)
    state.finish(a, {r.id: r.value for r in row.reps}, session, cue, {*edges}, act)
    return state
