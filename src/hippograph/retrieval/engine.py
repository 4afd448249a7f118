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
from collections.abc import Callable, Sequence
from typing import Any

from hippograph.cues import CueKind, query_names
from hippograph.embeddings.base import EmbeddingProvider
from hippograph.models import Layer
from hippograph.retrieval import scoring
from hippograph.retrieval.activation import spread_cues, spread_edges
from hippograph.retrieval.checks import check_request
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.fusion import zscores
from hippograph.retrieval.layer_rules import apply_layer_rules
from hippograph.retrieval.lucene import build_query
from hippograph.retrieval.queries import RetrievalQuery as Q
from hippograph.retrieval.timeparse import time_window
from hippograph.retrieval.types import (
    ActivatedNode,
    ActivationLog,
    Channel,
    PathStep,
    PendingConnection,
    RecallItem,
    RecallResult,
    RecallTimings,
    ScoreParts,
)
from hippograph.scope import Scope, scope_weight
from hippograph.store.connection import Neo4jConnection
from hippograph.store.graph_store import GraphStore
from hippograph.store.mapping import props_to_node

log = logging.getLogger(__name__)
POPULATION_TTL = 10.0


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
        self.conn: Neo4jConnection = store.conn
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
        k = top_k or cfg.top_k
        wanted = check_request(query, layers, k)
        now = self.clock() if now is None else now
        t0 = time.perf_counter()
        vector = await self.embedder.embed(query)
        t_embed = time.perf_counter()

        visible = scope.ancestor_keys()
        (ranks, bm25), named, population = await asyncio.gather(
            self._channels(scope, query, vector, visible, wanted, cfg.candidates_per_channel),
            self._named_people(query, visible),
            self._population_of(scope, visible, wanted),
        )
        pool = list(dict.fromkeys([*ranks[Channel.FULLTEXT], *ranks[Channel.VECTOR]]))
        rows = {r["m"]["id"]: r for r in await self._fetch(pool, visible, vector)}
        pool = [i for i in pool if i in rows]
        evidence = _evidence(pool, rows, bm25, named, cfg)
        t_cand = time.perf_counter()

        state = await self._activate(pool, rows, evidence, visible, wanted, population, cfg)
        t_act = time.perf_counter()

        ranked = sorted(state.total, key=lambda i: (-state.total[i], i))[: max(3 * k, 50)]
        missing = [i for i in ranked if i not in rows]
        if missing:
            rows.update({r["m"]["id"]: r for r in await self._fetch(missing, visible, vector)})
        items = self._score(scope, query, ranked, rows, ranks, bm25, evidence, state, cfg, now)
        items = apply_layer_rules(scope, items, cfg)[:k]
        t_end = time.perf_counter()

        if cfg.track_access:
            self._bookkeeping(scope, items, state.log, now)
        timings = RecallTimings(
            embed_ms=(t_embed - t0) * 1000, candidates_ms=(t_cand - t_embed) * 1000,
            activation_ms=(t_act - t_cand) * 1000, scoring_ms=(t_end - t_act) * 1000,
            total_ms=(t_end - t0) * 1000,
        )  # fmt: skip
        return RecallResult(query=query, scope_key=scope.key, items=items, activation=state.log, timings=timings)

    # -- stages ----------------------------------------------------------------------------
    async def _channels(
        self, scope: Scope, query: str, vector: list[float], visible: list[str], layers: list[Layer], n: int
    ) -> tuple[dict[Channel, dict[str, int]], dict[str, float]]:
        lucene = build_query(query, visible, layers)

        async def fulltext() -> list[dict[str, Any]]:
            if lucene is None:
                return []
            return await self.conn.read(Q.SEARCH_FULLTEXT, lucene=lucene, visible=visible, k=n)

        async def vectors() -> list[str]:
            return [h.id for h in await self.store.search_vectors(scope, vector, n, layers=layers)]

        vec_ids, ft_rows = await asyncio.gather(vectors(), fulltext())
        ranks = {
            Channel.VECTOR: {nid: i + 1 for i, nid in enumerate(vec_ids)},
            Channel.FULLTEXT: {r["id"]: i + 1 for i, r in enumerate(ft_rows)},
        }
        return ranks, {r["id"]: float(r["score"]) for r in ft_rows}

    async def _named_people(self, query: str, visible: list[str]) -> list[str]:
        keys = [n.casefold() for n in query_names(query)]
        if not keys:
            return []
        rows = await self.conn.read(Q.GET_PERSON_CUES, visible=visible, keys=keys)
        return [r["key"] for r in rows]

    async def _population_of(self, scope: Scope, visible: list[str], layers: list[Layer]) -> int:
        key = (scope.key, tuple(layer.value for layer in layers))
        cached = self._population.get(key)
        if cached and cached[0] > time.monotonic():
            return cached[1]
        rows = await self.conn.read(Q.GET_SCOPE_SIZE, visible=visible, layers=list(key[1]))
        n = int(rows[0]["n"])
        if len(self._population) > 10_000:
            self._population.clear()
        self._population[key] = (time.monotonic() + POPULATION_TTL, n)
        return n

    async def _fetch(self, ids: list[str], visible: list[str], vector: list[float]) -> list[dict[str, Any]]:
        return await self.conn.read(Q.GET_CANDIDATES, ids=ids, visible=visible, vector=vector) if ids else []

    async def _activate(
        self,
        pool: list[str],
        rows: dict[str, dict[str, Any]],
        evidence: dict[str, ScoreParts],
        visible: list[str],
        layers: list[Layer],
        population: int,
        cfg: RecallConfig,
    ) -> _Activation:
        act = cfg.activation
        raw = {i: evidence[i].z_vector * cfg.vector_weight + evidence[i].z_fulltext * cfg.fulltext_weight
               + evidence[i].person for i in pool}  # fmt: skip
        floor = min(raw.values(), default=0.0)
        top = max((v - floor for v in raw.values()), default=0.0) or 1.0
        base = {i: (v - floor) / top for i, v in raw.items()}
        state = _Activation(base=base, log=ActivationLog(seeds=sorted(base, key=lambda i: -base[i])[:act.cue_seeds]))
        if act.max_nodes == 0:
            state.total = dict(base)
            return state
        edges, capped = await spread_edges(self.conn, seeds=base, visible=visible, config=act, layers=layers)
        state.log.capped = capped
        state.edges = {i: a.activation for i, a in edges.items()}
        a = {i: base.get(i, 0.0) + state.edges.get(i, 0.0) for i in {*base, *edges}}
        state.paths.update({i: n.path for i, n in edges.items()})

        best_of_session: dict[str, tuple[float, str]] = {}
        for i, value in a.items():
            session = rows[i]["m"].get("session_id") if i in rows else None
            if session and value > best_of_session.get(session, (-1.0, ""))[0]:
                best_of_session[session] = (value, i)
        top_sessions = sorted(best_of_session.values(), reverse=True)[: act.session_seeds]
        reps = {i: value for value, i in top_sessions}
        session = await spread_cues(self.conn, seeds=reps, kinds=[CueKind.SESSION], decay=act.session_decay,
                                    visible=visible, config=act, layers=layers, population=population,
                                    use_rarity=False)  # fmt: skip
        for i, value in reps.items():  # the best member shares its session's activation too
            session[i] = ActivatedNode(id=i, activation=act.session_decay * value, hop=0, path=[PathStep(node_id=i)])
        state.session = {i: n.activation for i, n in session.items()}
        b = {i: a.get(i, 0.0) + state.session.get(i, 0.0) for i in {*a, *session}}
        for i, n in session.items():
            state.paths.setdefault(i, n.path)

        seeds = dict(sorted(b.items(), key=lambda kv: (-kv[1], kv[0]))[: act.cue_seeds])
        cue = await spread_cues(self.conn, seeds=seeds, kinds=[CueKind.KEYWORD, CueKind.ENTITY], decay=act.cue_decay,
                                visible=visible, config=act, layers=layers, population=population,
                                use_rarity=True)  # fmt: skip
        state.cues = {i: n.activation for i, n in cue.items()}
        state.total = {i: b.get(i, 0.0) + state.cues.get(i, 0.0) for i in {*b, *cue}}
        for i, n in cue.items():
            if i not in base:
                state.paths.setdefault(i, n.path)
        reached = {**session, **edges, **cue}
        state.log.activated = sorted(
            (ActivatedNode(id=i, activation=state.total[i] - base.get(i, 0.0), hop=len(state.paths.get(i, [])) - 1,
                           path=state.paths.get(i, [PathStep(node_id=i)])) for i in reached),
            key=lambda n: (-n.activation, n.id),
        )[: max(act.max_nodes, act.cue_seeds)]  # fmt: skip
        if act.record_pending:
            far = [n for n in cue.values() if n.id not in base]
            far.sort(key=lambda n: -n.activation)
            state.log.pending = [PendingConnection(source=n.path[0].node_id, target=n.id, score=n.activation, hops=2)
                                 for n in far[: act.max_pending]]  # fmt: skip
        return state

    def _score(
        self,
        scope: Scope,
        query: str,
        ranked: list[str],
        rows: dict[str, dict[str, Any]],
        ranks: dict[Channel, dict[str, int]],
        bm25: dict[str, float],
        evidence: dict[str, ScoreParts],
        state: _Activation,
        cfg: RecallConfig,
        now: float,
    ) -> list[RecallItem]:
        window = time_window(query, now) if cfg.time_aware else None
        best = max((state.total.get(i, 0.0) for i in ranked), default=0.0) or 1.0
        items = []
        for nid in ranked:
            row = rows.get(nid)
            if row is None:
                continue
            node = props_to_node(row["m"])
            if node.importance < cfg.hydration_threshold:
                continue
            cosine = row["cosine"]
            channels = {c: r[nid] for c, r in ranks.items() if nid in r}
            boosted = state.total.get(nid, 0.0) > state.base.get(nid, 0.0) + 1e-9
            if set(channels) == {Channel.VECTOR} and not boosted and (cosine is None or cosine < cfg.min_relevance):
                continue
            if not channels:
                channels[Channel.ACTIVATION] = max(0, len(state.paths.get(nid, [])) - 1)
            path = state.paths.get(nid, [PathStep(node_id=nid)])
            distance = scope.distance_to(node.scope_key) or 0
            parts = evidence.get(nid, ScoreParts()).model_copy(update={
                "relevance": state.total.get(nid, 0.0) / best,
                "cosine": float(cosine) if cosine is not None else None, "bm25": bm25.get(nid),
                "edges": state.edges.get(nid, 0.0), "session": state.session.get(nid, 0.0),
                "cues": state.cues.get(nid, 0.0),
                "recency": scoring.recency(node, now, cfg.recency_half_life_days),
                "frequency": scoring.frequency(node, cfg.frequency_saturation),
                "proximity": scoring.proximity(max(0, len(path) - 1)),
                "scope_weight": scope_weight(distance, floor=cfg.scope_floor, half_life=cfg.scope_half_life)
                if cfg.scope_weighting else 1.0,
                "time_match": scoring.time_match(node, window), "currency": scoring.currency(node, now),
            })  # fmt: skip
            base = scoring.combine(cfg, parts.relevance, parts.recency, parts.frequency, parts.proximity)
            score = base * parts.scope_weight * parts.time_match * parts.currency
            items.append(RecallItem(node=node, score=score, parts=parts, channels=channels, path=path,
                                    scope_distance=distance))  # fmt: skip
        items.sort(key=lambda i: (-i.score, i.node.id))
        return items

    # -- bookkeeping off the hot path -------------------------------------------------------
    def _bookkeeping(self, scope: Scope, items: list[RecallItem], log_: ActivationLog, now: float) -> None:
        async def work() -> None:
            await self.conn.write(Q.UPDATE_ACCESS_COUNTS, ids=[i.node.id for i in items], now=now)
            if log_.activated:
                await self.conn.write(Q.UPDATE_SPREADING_ACCESS_COUNTS, ids=[a.id for a in log_.activated])
            if log_.pending:
                rows = [p.model_dump() for p in log_.pending]
                await self.conn.write(Q.UPSERT_PENDING_LINKS, rows=rows, scope_key=scope.key, now=now)

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


def _evidence(
    pool: list[str], rows: dict[str, dict[str, Any]], bm25: dict[str, float], named: list[str], cfg: RecallConfig
) -> dict[str, ScoreParts]:
    cos = {i: float(rows[i]["cosine"]) for i in pool if rows[i]["cosine"] is not None}
    z_c = zscores(cos, pool, missing=min(cos.values(), default=0.0))
    z_f = zscores(bm25, pool, missing=0.0)
    person = named[0] if len(named) == 1 else None
    return {
        i: ScoreParts(z_vector=z_c.get(i, 0.0), z_fulltext=z_f.get(i, 0.0),
                      person=cfg.person_bonus if person and person in rows[i]["persons"] else 0.0)
        for i in pool
    }  # fmt: skip
