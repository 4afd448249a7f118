"""Recall's retrieval one query per stage: the erase tombstones, the population, both
channels, the person cues, one query per hop of edge spreading, the associations — each
part failing on its own (noted in ``degraded``, the others stand).

:class:`~hippograph.retrieval.engine.RecallEngine` takes this path when its one statement
(``search_recall.cypher``) fails; :class:`~hippograph.retrieval.engine.StagedRecallEngine`
always takes it — the executable specification the statement is tested against, and the
"before" of the benchmarks.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from typing import TypeVar

from hippograph.cues import query_names
from hippograph.errors import StoreError
from hippograph.models import Layer
from hippograph.retrieval.activation import session_representatives, spread_associations, spread_edges, strongest
from hippograph.retrieval.config import RecallConfig
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
    with_keys,
)
from hippograph.retrieval.repository import CandidateRow, RecallRepository
from hippograph.retrieval.types import Degradation, ScoreParts
from hippograph.scope import Scope
from hippograph.store.mapping import has_direction
from hippograph.tracing import span

__all__ = ["StagedRetrieval", "degrade"]

log = logging.getLogger(__name__)
T = TypeVar("T")


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

    def __init__(self, repo: RecallRepository, populations: Populations, vector_fetch_k: int) -> None:
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
            hits, named = await asyncio.gather(
                self._channels(query, vector, visible, wanted, cfg.candidates_per_channel, population, degraded),
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
            return await self.repo.key_vector(vector=vector, visible=visible, layers=layer_values, k=n, fetch_k=fetch_k)

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
