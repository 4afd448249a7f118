"""The test oracle of recall: the same retrieval one small query per stage, its spreading
done in Python — the executable specification the one statement (and its fragments run one by
one) is tested against (``tests/integration/memory/test_recall_one_round_trip.py``).

Its reads are the stage statements of ``cypher/retrieval`` (the channels, one hop of edge
spreading, the associations); its maths are the pure functions below and those of
:mod:`hippograph.retrieval.activation` and :mod:`hippograph.retrieval.recall_state` the engine
shares. Ties are broken as the statement breaks them: activations within :data:`TIE` of each
other are equal, a lower hop keeps a memory, then the smaller id.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from hippograph.cues import query_names
from hippograph.errors import StoreError
from hippograph.models import Layer
from hippograph.retrieval.activation import Arrival, association_arrivals, session_representatives, strongest
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.lucene import build_query
from hippograph.retrieval.queries import RetrievalQuery as Q
from hippograph.retrieval.recall_state import (
    EXACT_SCAN_BELOW,
    SEARCH_PER_KEY,
    ActivationState,
    Hits,
    PopulationKey,
    Populations,
    Retrieved,
    evidence_of,
    with_keys,
)
from hippograph.retrieval.repository import (
    ASSOCIATION_LIMIT,
    ActivationStepRow,
    AssociationRow,
    CandidateRow,
    RecallRepository,
)
from hippograph.retrieval.types import ActivatedNode, Degradation, PathStep, ScoreParts
from hippograph.scope import Scope
from hippograph.store.connection import Row
from hippograph.store.graph_store import GraphStore
from hippograph.store.mapping import has_direction
from hippograph.store.vector_search import scoped_vector_search
from hippograph.tracing import span

__all__ = ["TIE", "OracleRepository", "StagedRecallEngine", "StagedRetrieval"]

log = logging.getLogger(__name__)
T = TypeVar("T")
Frontier = dict[str, tuple[float, list[PathStep]]]
TIE = 1e-9
"""Activations this close are equal (the statement's tie rule)."""


class _Key(Row):
    key: str


class OracleRepository(RecallRepository):
    """The stage reads of the oracle, beside the engine's own."""

    async def fulltext(
        self, *, lucene: str, visible: list[str], k: int, vector: list[float] | None
    ) -> list[CandidateRow]:
        return await self._conn.read_as(
            self._v(Q.SEARCH_FULLTEXT), CandidateRow, lucene=lucene, visible=visible, k=k, vector=vector
        )

    async def vector_candidates(
        self,
        *,
        vector: list[float],
        visible: list[str],
        chain: list[str],
        layers: list[str],
        k: int,
        fetch_k: int,
        exact_first: bool,
    ) -> list[CandidateRow]:
        rows = await scoped_vector_search(
            self._conn,
            self._v(Q.SEARCH_VECTOR_CANDIDATES),
            self._v(Q.SEARCH_VECTOR_CANDIDATES_EXACT),
            lts_query=self._v(Q.SEARCH_VECTOR_CANDIDATES_LTS),
            k=k,
            fetch_k=fetch_k,
            vector=vector,
            visible=visible,
            chain=chain,
            layers=layers,
            exact_first=exact_first,
        )
        return [CandidateRow.model_validate(r) for r in rows]

    async def key_fulltext(
        self, *, lucene: str, visible: list[str], layers: list[str], k: int, vector: list[float] | None
    ) -> list[CandidateRow]:
        """The memories the best ``k`` keys found by BM25 lead to, each with its best key."""
        return await self._conn.read_as(
            self._v(Q.SEARCH_KEY_FULLTEXT), CandidateRow, lucene=lucene, visible=visible, layers=layers, k=k,
            vector=vector,
        )  # fmt: skip

    async def key_vector(
        self, *, vector: list[float], visible: list[str], chain: list[str], layers: list[str], k: int, fetch_k: int
    ) -> list[CandidateRow]:
        """The memories the ``k`` keys nearest ``vector`` lead to, each with its best key."""
        query = self._conn.capabilities.pick(Q.SEARCH_KEY_VECTOR, Q.SEARCH_KEY_VECTOR_LTS)
        return await self._conn.read_as(
            self._v(query), CandidateRow, vector=vector, visible=visible, chain=chain, layers=layers, k=k,
            fetch_k=fetch_k,
        )  # fmt: skip

    async def person_cues(self, *, visible: list[str], keys: list[str]) -> list[str]:
        return [r.key for r in await self._conn.read_as(Q.GET_PERSON_CUES, _Key, visible=visible, keys=keys)]

    async def erasing(self, *, visible: list[str]) -> set[str]:
        """The keys among ``visible`` whose erase has started (their tombstone is set)."""
        return {r.key for r in await self._conn.read_as(Q.GET_ERASING_SCOPES, _Key, visible=visible)}

    async def activation_step(
        self, *, frontier: list[str], visible: list[str], layers: list[str] | None, fan_out: int
    ) -> list[ActivationStepRow]:
        return await self._conn.read_as(
            Q.GET_ACTIVATION_STEP, ActivationStepRow, frontier=frontier, visible=visible, layers=layers, fan_out=fan_out
        )

    async def associations(self, **params: Any) -> list[AssociationRow]:
        """One read of :attr:`RetrievalQuery.GET_ASSOCIATIONS` (parameters as its header names)."""
        return cast(list[AssociationRow], await self._conn.read(Q.GET_ASSOCIATIONS, **params))


def edge_factor(weight: float | None) -> float:
    """Stronger edges pass more activation: 1.0 at weight ≥ 1, proportionally less below."""
    return 1.0 if weight is None else max(0.0, min(1.0, float(weight)))


def seed_frontier(seeds: Mapping[str, float]) -> Frontier:
    """The first frontier: every seed with a positive value, its path just itself."""
    return {sid: (value, [PathStep(node_id=sid)]) for sid, value in seeds.items() if value > 0}


def step_arrivals(
    frontier: Mapping[str, tuple[float, list[PathStep]]],
    rows: Iterable[ActivationStepRow],
    config: ActivationConfig,
    hop: int,
) -> dict[str, ActivatedNode]:
    """What one hop delivers: per target, the strongest ``parent × base_decay × edge factor``
    at or above ``threshold``, never back onto the path that led to the parent (ties within
    :data:`TIE`: from the smaller parent id, then relationship type)."""
    step: dict[str, ActivatedNode] = {}
    for row in rows:
        value, path = frontier[row.source]
        target = row.id
        if any(p.node_id == target for p in path):
            continue
        incoming = value * config.base_decay * edge_factor(row.weight)
        if incoming < config.threshold:
            continue
        current = step.get(target)
        if (
            current is None
            or incoming > current.activation + TIE
            or (
                incoming >= current.activation - TIE
                and (row.source, row.relationship) < (current.path[-2].node_id, current.path[-1].relationship or "")
            )
        ):
            step[target] = ActivatedNode(
                id=target,
                activation=incoming,
                hop=hop,
                path=[*path, PathStep(node_id=target, relationship=row.relationship)],
            )
    return step


@dataclass
class Spread:
    """The running state of edge spreading: strongest arrival per memory, new memories
    admitted so far, whether the node cap refused any."""

    arrived: dict[str, ActivatedNode] = field(default_factory=dict)
    added: int = 0
    capped: bool = False


def admit(step: Mapping[str, ActivatedNode], spread: Spread, seeds: Mapping[str, float], max_nodes: int) -> Frontier:
    """Fold one hop's arrivals into ``spread`` (strongest first, at most ``max_nodes`` new
    memories in all) and return the next frontier (seeds already spread their own value)."""
    frontier: Frontier = {}
    for node in sorted(step.values(), key=lambda a: (-a.activation, a.id)):
        known = node.id in spread.arrived or node.id in seeds
        if not known and spread.added >= max_nodes:
            spread.capped = True
            continue
        if node.id in spread.arrived and spread.arrived[node.id].activation >= node.activation - TIE:
            continue
        if not known:
            spread.added += 1
        spread.arrived[node.id] = node
        if node.id not in seeds:
            frontier[node.id] = (node.activation, node.path)
    return frontier


async def spread_edges(
    repo: OracleRepository,
    *,
    seeds: Mapping[str, float],
    visible: Sequence[str],
    config: ActivationConfig,
    layers: Sequence[Layer] | None,
) -> tuple[dict[str, ActivatedNode], bool]:
    """Activation arriving at each memory over memory edges (seeds included, as receivers).
    Returns (memory id → strongest arrival, whether the node cap cut the spread)."""
    spread = Spread()
    frontier = seed_frontier(seeds)
    layer_values = [layer.value for layer in layers] if layers else None
    for hop in range(1, max(1, config.max_hops) + 1):
        if not frontier:
            break
        rows = await repo.activation_step(
            frontier=list(frontier), visible=list(visible), layers=layer_values, fan_out=config.fan_out
        )
        frontier = admit(step_arrivals(frontier, rows, config, hop), spread, seeds, config.max_nodes)
    return spread.arrived, spread.capped


async def spread_associations(
    repo: OracleRepository,
    *,
    session_seeds: Mapping[str, float],
    cue_seeds: Mapping[str, float],
    visible: Sequence[str],
    config: ActivationConfig,
    layers: Sequence[Layer] | None,
    population: int,
    limit: int = ASSOCIATION_LIMIT,
) -> tuple[dict[str, Arrival], dict[str, Arrival]]:
    """Activation arriving through shared sessions and through shared keyword / name cues
    (each memory keeps its strongest arrival of each kind; about ``limit``, the strongest, ties
    at the cut kept). One read."""
    if not session_seeds and not cue_seeds:
        return {}, {}
    rows = await repo.associations(
        session_seeds=[{"id": i, "value": v} for i, v in session_seeds.items()] if config.session_decay > 0 else [],
        cue_seeds=[{"id": i, "value": v} for i, v in cue_seeds.items()] if config.cue_decay > 0 else [],
        session_decay=config.session_decay,
        cue_decay=config.cue_decay,
        visible=list(visible),
        layers=[layer.value for layer in layers] if layers else None,
        max_degree=config.max_cue_degree,
        cue_budget=config.cue_budget,
        inverse_rarity=config.cue_rarity == "inverse",
        population=max(population, 2),
        threshold=config.threshold,
        limit=limit,
    )
    return association_arrivals(rows)


async def degrade(part: str, work: Awaitable[T], fallback: T, degraded: list[Degradation]) -> T:
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


class StagedRetrieval:
    """Retrieval as a chain of small reads over one repository."""

    def __init__(self, repo: OracleRepository, populations: Populations, vector_fetch_k: int) -> None:
        self.repo = repo
        self.populations = populations
        self.vector_fetch_k = vector_fetch_k
        self.exact_scan_below = EXACT_SCAN_BELOW

    async def retrieve(
        self, scope: Scope, query: str, vector: list[float], wanted: list[Layer], cfg: RecallConfig
    ) -> tuple[Retrieved, list[Degradation]]:
        """The channels, evidence and activation of one recall, and the parts that failed.
        Raises :class:`StoreError` when both channels fail (nothing could answer)."""
        degraded: list[Degradation] = []
        with span("hippograph.recall.population") as counted:
            erasing = await self.repo.erasing(visible=scope.ancestor_keys())
            visible = [key for key in scope.ancestor_keys() if key not in erasing]  # an erase hides at once
            population = await degrade(
                "population", self._population_of(scope, visible, wanted), self.exact_scan_below + 1, degraded
            )
            counted.set_attribute("hippograph.recall.population", population)
        with span("hippograph.recall.channels", {"db.system": "neo4j"}) as channels:
            n = cfg.candidates_per_channel
            hits, named = await asyncio.gather(
                self._channels(query, vector, visible, scope.chain_points(), wanted, n, population, degraded),
                degrade("people", self._named_people(query, visible), [], degraded),
            )
            channels.set_attributes(
                {
                    "hippograph.recall.vector_candidates": len(hits.vector_rank),
                    "hippograph.recall.fulltext_candidates": len(hits.fulltext_rank),
                }
            )
        if {"fulltext", "vector"} <= {d.part for d in degraded}:
            first = next(d for d in degraded if d.part in ("fulltext", "vector"))
            raise StoreError(f"recall failed: {first.part}: {first.error_type}: {first.message}", retryable=True)
        evidence = evidence_of(hits, named, cfg)
        t_candidates = time.perf_counter()
        with span("hippograph.recall.activation", {"db.system": "neo4j"}) as activation:
            try:
                state = await self._activate(hits, evidence, visible, wanted, population, cfg)
            except (asyncio.CancelledError, KeyboardInterrupt):
                raise
            except Exception as exc:  # the direct hits still answer: activation only adds to them
                log.warning("recall: activation failed: %s", type(exc).__name__, exc_info=True)
                degraded.append(Degradation.of("activation", exc))
                state = ActivationState.from_evidence(evidence, cfg, hits.session)
            activation.set_attribute("hippograph.recall.activated", len(state.log.activated))
        return Retrieved(hits, evidence, state, None, visible, t_candidates, named), degraded

    async def _channels(
        self,
        query: str,
        vector: list[float],
        visible: list[str],
        chain: list[str],
        layers: list[Layer],
        n: int,
        population: int,
        degraded: list[Degradation],
    ) -> Hits:
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
                chain=chain,
                layers=layer_values,
                k=n,
                fetch_k=max(self.vector_fetch_k, SEARCH_PER_KEY * n),
                exact_first=population <= self.exact_scan_below,
            )

        async def key_text() -> list[CandidateRow]:
            lucene = build_query(query, visible, layers)
            if lucene is None:
                return []
            return await self.repo.key_fulltext(
                lucene=lucene, visible=visible, layers=layer_values, k=n, vector=vector if directed else None
            )

        async def key_vectors() -> list[CandidateRow]:
            if not directed:
                return []
            fetch_k = max(self.vector_fetch_k, SEARCH_PER_KEY * n)
            return await self.repo.key_vector(
                vector=vector, visible=visible, chain=chain, layers=layer_values, k=n, fetch_k=fetch_k
            )

        vec_rows, ft_rows, key_vec_rows, key_ft_rows = await asyncio.gather(
            degrade("vector", vectors(), [], degraded),
            degrade("fulltext", fulltext(), [], degraded),
            degrade("keys", key_vectors(), [], degraded),
            degrade("keys", key_text(), [], degraded),
        )
        return Hits.of(with_keys(ft_rows, key_ft_rows, n, bm25=True), with_keys(vec_rows, key_vec_rows, n, bm25=False))

    async def _named_people(self, query: str, visible: list[str]) -> list[str]:
        keys = [n.casefold() for n in query_names(query)]
        if not keys:
            return []
        return await self.repo.person_cues(visible=visible, keys=keys)

    async def _population_of(self, scope: Scope, visible: list[str], layers: list[Layer]) -> int:
        key: PopulationKey = (scope.key, tuple(layer.value for layer in layers))
        cached = self.populations.get(key)
        if cached is not None and not self.populations.due(key):
            return cached
        n = await self.repo.scope_size(visible=visible, layers=list(key[1]))
        self.populations.put(key, n)
        return n

    async def _activate(
        self,
        hits: Hits,
        evidence: dict[str, ScoreParts],
        visible: list[str],
        layers: list[Layer],
        population: int,
        cfg: RecallConfig,
    ) -> ActivationState:
        act = cfg.activation
        state = ActivationState.from_evidence(evidence, cfg, hits.session)
        if act.max_nodes == 0:
            return state
        edges, capped = await spread_edges(self.repo, seeds=state.base, visible=visible, config=act, layers=layers)
        a = state.add_edges(edges, capped)
        reps = session_representatives(a, hits.session, act.session_seeds)
        session, cue = await spread_associations(
            self.repo,
            session_seeds=reps,
            cue_seeds=strongest(a, act.cue_seeds),
            visible=visible,
            config=act,
            layers=layers,
            population=population,
        )
        state.finish(a, reps, session, cue, {*edges}, act)
        return state


class StagedRecallEngine(RecallEngine):
    """:class:`RecallEngine` that always retrieves stage by stage, its spreading done in Python:
    the oracle the one statement is tested against."""

    def __init__(self, store: GraphStore, *args: Any, **kwargs: Any) -> None:
        super().__init__(store, *args, **kwargs)
        self.repo = OracleRepository(store)
        self._staged = StagedRetrieval(self.repo, self._populations, store.vector_fetch_k)

    async def _retrieve(
        self, scope: Scope, query: str, vector: list[float], wanted: list[Layer], cfg: RecallConfig, k: int
    ) -> tuple[Retrieved, list[Degradation]]:
        self._staged.exact_scan_below = self.exact_scan_below
        return await self._staged.retrieve(scope, query, vector, wanted, cfg)
