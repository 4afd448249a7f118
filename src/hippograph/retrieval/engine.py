"""Hybrid recall with spreading activation.

1. Channels: the vector index and the fulltext index, both restricted to the scopes the
   caller may see and correct under that restriction; ``candidates_per_channel`` each.
2. Evidence: each channel z-scored over the candidate pool and added; +``person_bonus``
   for memories said by the one person the query names.
3. Spreading activation from every candidate (shifted to be ≥ 0, scaled to [0, 1]): over
   memory edges (``NEXT``, ``MENTIONS`` …), then from the best sessions to their members,
   then from the best memories through shared keyword / name cues, weighted by rarity.
4. Score: the four signals of the reference (relevance, recency, frequency, proximity) times
   the scope-distance, time-window and currency multipliers; gates; per-layer rules.

Every item carries its channels, its score parts and the path that reached it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from hippograph.cues import query_names
from hippograph.embeddings.base import EmbeddingProvider
from hippograph.errors import StoreError
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval import scoring
from hippograph.retrieval.activation import (
    activated_log,
    add_up,
    pending_links,
    session_representatives,
    spread_associations,
    spread_edges,
    strongest,
)
from hippograph.retrieval.checks import check_request
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.fusion import zscores
from hippograph.retrieval.layer_rules import apply_layer_rules
from hippograph.retrieval.lucene import build_query
from hippograph.retrieval.repository import CandidateRow, RecallRepository
from hippograph.retrieval.timeparse import time_window
from hippograph.retrieval.types import (
    ActivatedNode,
    ActivationLog,
    Channel,
    Degradation,
    PathStep,
    RecallItem,
    RecallResult,
    RecallTimings,
    ScoreParts,
)
from hippograph.scope import Scope
from hippograph.store.graph_store import GraphStore
from hippograph.store.mapping import has_direction

log = logging.getLogger(__name__)
T = TypeVar("T")


async def _degrade(part: str, work: Awaitable[T], fallback: T, degraded: list[Degradation]) -> T:
    """``work``'s result, or ``fallback`` with the failure noted: one part of recall failing
    never costs the others."""
    try:
        return await work
    except (asyncio.CancelledError, KeyboardInterrupt):
        raise
    except Exception as exc:
        log.warning("recall: %s failed: %s", part, type(exc).__name__, exc_info=True)
        degraded.append(Degradation.of(part, exc))
        return fallback


def _first_failure(degraded: list[Degradation]) -> Exception:
    first = degraded[0]
    return StoreError(f"recall failed: {first.part}: {first.error_type}: {first.message}", retryable=True)


def _without_spreading(cfg: RecallConfig) -> RecallConfig:
    return cfg.model_copy(update={"activation": cfg.activation.model_copy(update={"max_nodes": 0})})


POPULATION_TTL = 10.0
EXACT_SCAN_BELOW = 5000
"""Scopes that see fewer memories than this are scanned exactly: cheaper than asking the
index (whose global top-k would mostly belong to other scopes) and exact by construction."""


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
        self._population: dict[tuple[str, tuple[str, ...]], tuple[float, int]] = {}

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
        cfg = config or self.config
        k = cfg.top_k if top_k is None else top_k
        wanted = check_request(query, layers, k)
        now = self.clock() if now is None else now
        t0 = time.perf_counter()
        vector, erasing = await asyncio.gather(
            self.embedder.embed(query), self.repo.erasing(visible=scope.ancestor_keys())
        )
        t_embed = time.perf_counter()

        visible = [key for key in scope.ancestor_keys() if key not in erasing]  # an erase hides at once
        degraded: list[Degradation] = []
        population = await _degrade(
            "population", self._population_of(scope, visible, wanted), EXACT_SCAN_BELOW + 1, degraded
        )
        hits, named = await asyncio.gather(
            self._channels(query, vector, visible, wanted, cfg.candidates_per_channel, population, degraded),
            _degrade("people", self._named_people(query, visible), [], degraded),
        )
        if {"fulltext", "vector"} <= {d.part for d in degraded}:
            raise _first_failure(degraded)  # nothing found anything: the recall failed
        evidence = _evidence(hits, named, cfg)
        t_cand = time.perf_counter()

        try:
            state = await self._activate(hits, evidence, visible, wanted, population, cfg)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # the direct hits still answer: activation only adds to them
            log.warning("recall: activation failed: %s", type(exc).__name__, exc_info=True)
            degraded.append(Degradation.of("activation", exc))
            state = await self._activate(hits, evidence, visible, wanted, population, _without_spreading(cfg))
        t_act = time.perf_counter()

        ranked = sorted(state.total, key=lambda i: (-state.total[i], i))[: max(3 * k, 50)]
        nodes = await self.repo.recalled(ids=ranked, visible=visible)
        items = self._score(scope, query, ranked, nodes, hits, evidence, state, cfg, now)
        items = apply_layer_rules(scope, items, cfg)[:k]
        t_end = time.perf_counter()

        if cfg.track_access:
            self._bookkeeping(scope, items, state.log, now)
        timings = RecallTimings(
            embed_ms=(t_embed - t0) * 1000,
            candidates_ms=(t_cand - t_embed) * 1000,
            activation_ms=(t_act - t_cand) * 1000,
            scoring_ms=(t_end - t_act) * 1000,
            total_ms=(t_end - t0) * 1000,
        )
        return RecallResult(
            query=query,
            scope_key=scope.key,
            items=items,
            activation=state.log,
            timings=timings,
            degraded=degraded,
        )

    # -- stages ----------------------------------------------------------------------------
    async def _channels(
        self,
        query: str,
        vector: list[float],
        visible: list[str],
        layers: list[Layer],
        n: int,
        population: int,
        degraded: list[Degradation],
    ) -> _Hits:
        """Both channels, each on its own: one failing leaves the other's candidates. A query
        whose embedding is the zero vector (no words the embedder knows) has no direction: the
        vector channel finds nothing and fulltext hits carry no cosine."""
        layer_values = [layer.value for layer in layers]
        directed = has_direction(vector)

        async def fulltext() -> list[CandidateRow]:
            lucene = build_query(query, visible, layers)
            if lucene is None:
                return []
            return await self.repo.fulltext(lucene=lucene, visible=visible, k=n, vector=vector if directed else None)

        async def vectors() -> list[CandidateRow]:
            if not directed:
                return []
            return await self.repo.vector_candidates(
                vector=vector,
                visible=visible,
                layers=layer_values,
                k=n,
                fetch_k=max(self.store.vector_fetch_k, 2 * n),
                exact_first=population <= EXACT_SCAN_BELOW,
            )

        vec_rows, ft_rows = await asyncio.gather(
            _degrade("vector", vectors(), [], degraded), _degrade("fulltext", fulltext(), [], degraded)
        )
        hits = _Hits()
        for rank, row in enumerate(ft_rows, 1):
            hits.add(row, fulltext_rank=rank)
        for rank, row in enumerate(vec_rows, 1):
            hits.add(row, vector_rank=rank)
        return hits

    async def _named_people(self, query: str, visible: list[str]) -> list[str]:
        keys = [n.casefold() for n in query_names(query)]
        if not keys:
            return []
        return await self.repo.person_cues(visible=visible, keys=keys)

    async def _population_of(self, scope: Scope, visible: list[str], layers: list[Layer]) -> int:
        key = (scope.key, tuple(layer.value for layer in layers))
        cached = self._population.get(key)
        if cached and cached[0] > time.monotonic():
            return cached[1]
        n = await self.repo.scope_size(visible=visible, layers=list(key[1]))
        if len(self._population) > 10_000:
            self._population.clear()
        self._population[key] = (time.monotonic() + POPULATION_TTL, n)
        return n

    async def _activate(
        self,
        hits: _Hits,
        evidence: dict[str, ScoreParts],
        visible: list[str],
        layers: list[Layer],
        population: int,
        cfg: RecallConfig,
    ) -> _Activation:
        act = cfg.activation
        base = scoring.evidence_activation(evidence, cfg.vector_weight, cfg.fulltext_weight)
        state = _Activation(base=base, log=ActivationLog(seeds=list(strongest(base, act.cue_seeds))))
        state.total = dict(base)
        if act.max_nodes == 0:
            return state
        edges, capped = await spread_edges(self.repo, seeds=base, visible=visible, config=act, layers=layers)
        state.log.capped = capped
        state.edges = {i: a.activation for i, a in edges.items()}
        state.paths.update({i: n.path for i, n in edges.items()})
        a = add_up(base, state.edges)

        reps = session_representatives(a, hits.session, act.session_seeds)
        seeds = strongest(a, act.cue_seeds)
        session, cue = await spread_associations(
            self.repo,
            session_seeds=reps,
            cue_seeds=seeds,
            visible=visible,
            config=act,
            layers=layers,
            population=population,
        )
        for i, value in reps.items():  # the best member shares its session's activation too
            session[i] = ActivatedNode(id=i, activation=act.session_decay * value, hop=0, path=[PathStep(node_id=i)])
        state.session = {i: n.activation for i, n in session.items()}
        state.cues = {i: n.activation for i, n in cue.items()}
        for reached in (session, cue):
            for i, n in reached.items():
                if i not in base:
                    state.paths.setdefault(i, n.path)
        state.total = add_up(a, state.session, state.cues)
        state.log.activated = activated_log(
            state.total, base, state.paths, {*edges, *session, *cue}, max(act.max_nodes, act.cue_seeds)
        )
        if act.record_pending:
            state.log.pending = pending_links(cue, base, act.max_pending)
        return state

    def _score(
        self,
        scope: Scope,
        query: str,
        ranked: list[str],
        nodes: dict[str, MemoryNode],
        hits: _Hits,
        evidence: dict[str, ScoreParts],
        state: _Activation,
        cfg: RecallConfig,
        now: float,
    ) -> list[RecallItem]:
        window = time_window(query, now) if cfg.time_aware else None
        best = max((state.total.get(i, 0.0) for i in ranked), default=0.0) or 1.0
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
            path = state.paths.get(nid, [PathStep(node_id=nid)])
            if not channels:
                channels[Channel.ACTIVATION] = max(1, len(path) - 1)
            distance = scope.distance_to(node.scope_key) or 0
            parts = evidence.get(nid, ScoreParts()).model_copy(
                update={
                    "relevance": state.total.get(nid, 0.0) / best,
                    "cosine": cosine,
                    "bm25": hits.bm25.get(nid),
                    "edges": state.edges.get(nid, 0.0),
                    "session": state.session.get(nid, 0.0),
                    "cues": state.cues.get(nid, 0.0),
                    **scoring.signals(node, cfg, now=now, hops=max(0, len(path) - 1), distance=distance, window=window),
                }
            )
            score = scoring.final_score(cfg, parts)
            items.append(
                RecallItem(node=node, score=score, parts=parts, channels=channels, path=path, scope_distance=distance)
            )
        items.sort(key=lambda i: (-i.score, i.node.id))
        return items

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

        task = asyncio.create_task(work())
        self._background.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("recall bookkeeping failed: %r", task.exception())

    async def drain(self) -> None:
        """Wait for background bookkeeping (tests, shutdown)."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)


class _Activation:
    """Per-recall activation state: evidence (base), what each spreading stage added, paths."""

    def __init__(self, base: dict[str, float], log: ActivationLog) -> None:
        self.base = base
        self.log = log
        self.edges: dict[str, float] = {}
        self.session: dict[str, float] = {}
        self.cues: dict[str, float] = {}
        self.total: dict[str, float] = {}
        self.paths: dict[str, list[PathStep]] = {}


class _Hits:
    """What the two channels returned: ranks, BM25 scores, cosines, sessions, person cues."""

    def __init__(self) -> None:
        self.vector_rank: dict[str, int] = {}
        self.fulltext_rank: dict[str, int] = {}
        self.bm25: dict[str, float] = {}
        self.cosine: dict[str, float] = {}
        self.session: dict[str, str] = {}
        self.persons: dict[str, list[str]] = {}

    def add(self, row: CandidateRow, *, vector_rank: int | None = None, fulltext_rank: int | None = None) -> None:
        nid = row.id
        if vector_rank is not None:
            self.vector_rank[nid] = vector_rank
        if fulltext_rank is not None:
            self.fulltext_rank[nid] = fulltext_rank
            self.bm25[nid] = float(row.score or 0.0)
        if row.cos is not None:
            self.cosine[nid] = row.cos
        if row.session_id:
            self.session[nid] = row.session_id
        self.persons[nid] = list(row.persons)

    @property
    def pool(self) -> list[str]:
        return list(dict.fromkeys([*self.fulltext_rank, *self.vector_rank]))


def _evidence(hits: _Hits, named: list[str], cfg: RecallConfig) -> dict[str, ScoreParts]:
    pool = hits.pool
    z_c = zscores(hits.cosine, pool, missing=min(hits.cosine.values(), default=0.0))
    z_f = zscores(hits.bm25, pool, missing=0.0)
    person = named[0] if len(named) == 1 else None
    return {
        i: ScoreParts(
            z_vector=z_c.get(i, 0.0),
            z_fulltext=z_f.get(i, 0.0),
            person=cfg.person_bonus if person and person in hits.persons.get(i, []) else 0.0,
        )
        for i in pool
    }
