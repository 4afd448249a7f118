"""Recall's storage boundary: the only retrieval module that talks to the connection.

Every read returns typed rows validated once (:class:`~hippograph.store.connection.Row`);
vector scores arrive as cosines (converted in :mod:`hippograph.store.scores`, nowhere else).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from pydantic import Field, SkipValidation
from typing_extensions import TypedDict

from hippograph.errors import StoreError
from hippograph.models import MemoryNode
from hippograph.retrieval.config import ActivationConfig
from hippograph.retrieval.queries import RetrievalQuery as Q
from hippograph.retrieval.statement import recall_stages, recall_statement
from hippograph.retrieval.types import Degradation, PathStep
from hippograph.store.catalog import Statement
from hippograph.store.connection import Neo4jConnection, Row
from hippograph.store.graph_store import GraphStore
from hippograph.store.mapping import props_to_node
from hippograph.store.scores import cosine_from_index
from hippograph.store.vectors import MAIN, READING_SLOT, VectorSlot, slot_query
from hippograph.tracing import span

__all__ = [
    "ActivationStepRow",
    "AssociationRow",
    "CandidateRow",
    "EdgeArrivalRow",
    "RecallRepository",
    "RecallRow",
    "SeedRow",
]

log = logging.getLogger(__name__)

ASSOCIATION_LIMIT = 1000
"""Most session / cue arrivals one recall reads (the strongest)."""

LIST_FLOOR = 2
"""Fewest entries the recall statement's lists are sent with ('' pads them): the server keys its
plan cache on each list's size bucket (0, 1, 2–10, 11–100 …), so 1 and 3 visible keys, or no
name and one name, would each be planned apart, seconds per plan."""

LUCENE_FLOOR = 1001
"""Fewest characters the fulltext query is sent with (trailing spaces, which the query parser
skips): strings are bucketed like lists, and 1001–10000 holds every query ``build_query`` makes
(at most 48 terms: ≈ 1,200 characters with the scope tags; a short one ≈ 200)."""


def padded(items: Sequence[str], floor: int = LIST_FLOOR) -> list[str]:
    """``items`` with '' appended up to ``floor`` entries (a statement that reads the list
    skips '')."""
    return [*items, *[""] * (floor - len(items))]


def recall_statement_params(
    *,
    vector: list[float] | None,
    dimensions: int,
    lucene: str | None,
    visible: Sequence[str],
    layers: Sequence[str],
    keys: Sequence[str],
    population: int | None,
    chain: Sequence[str] = (),
) -> dict[str, Any]:
    """The recall statement's parameters whose value would otherwise change their type or size
    bucket, as sent: never null, lists padded to :data:`LIST_FLOOR`, the fulltext query to
    :data:`LUCENE_FLOOR` (the statement reads the padding as absent). ``vector`` None (no
    direction) goes as the zero vector of ``dimensions`` with ``directed`` false."""
    return {
        "vector": list(vector) if vector is not None else [0.0] * max(dimensions, 1),
        "directed": vector is not None,
        "lucene": (lucene or "").ljust(LUCENE_FLOOR),
        "visible": padded(visible),
        "chain": padded(chain),
        "layers": padded(layers),
        "keys": padded(keys),
        "population": -1 if population is None else population,
    }


class CandidateRow(Row):
    """One hit of a channel. ``score`` is BM25 (fulltext only); ``cosine`` is Neo4j's
    ``(1 + cos) / 2`` as the query returns it — read :attr:`cos` for the cosine."""

    id: str
    score: float | None = None
    cosine: float | None = None
    session_id: str | None = None
    persons: list[str] = Field(default_factory=list)
    key: str | None = None
    """The text of the key (``(:Key)-[:KEY_OF]->`` the memory) whose score this row carries;
    None when the memory's own text scored."""

    @property
    def cos(self) -> float | None:
        return None if self.cosine is None else cosine_from_index(self.cosine)


class ActivationStepRow(Row):
    """One edge of a spreading step: from ``source`` (on the frontier) to ``id``."""

    source: str
    id: str
    relationship: str
    weight: float | None = None


class AssociationRow(TypedDict):
    """A memory reached through a shared session (``part == "session"``) or cue from ``seed``.
    A plain map, not validated: a recall reads about a thousand, which pydantic took longer to
    check than the activation maths that reads them (the statement writes the keys itself)."""

    part: str
    id: str
    activation: float
    seed: str
    key: str


class EdgeArrivalRow(Row):
    """The strongest activation that reached a memory over memory edges, and its path."""

    id: str
    act: float
    path: list[PathStep]


class SeedRow(Row):
    """A memory that seeded associative spreading, with the activation it passed on."""

    id: str
    value: float


class RecallRow(Row):
    """Everything one recall reads, in one round trip (:meth:`RecallRepository.search_recall`): the keys it could
    see (an erase in progress hides its scope), the channels' hits,
    the names the query mentions, the spreading's arrivals with their paths and seeds, and the
    memories that may rank (``nodes``: property maps, see :meth:`memories`). The association
    rows and the property maps are taken as the driver gives them (not validated).

    ``edges`` and ``associations`` hold only the arrivals the result can show: those of the
    memories that may rank, of the memories spreading added most to (the activation log) and
    of the strongest cue arrivals beyond the candidates (the pending links) — every arrival
    when the search was asked for all of them; ``arrivals`` counts the association arrivals
    spreading kept before that cut."""

    visible: list[str]
    population: int
    vector_hits: list[CandidateRow]
    fulltext_hits: list[CandidateRow]
    named: list[str]
    edges: list[EdgeArrivalRow]
    capped_edges: bool
    reps: list[SeedRow]
    associations: SkipValidation[list[AssociationRow]]
    arrivals: int
    nodes: SkipValidation[list[dict[str, Any]]]

    def memories(self) -> dict[str, MemoryNode]:
        """The ranked memories, whole, by id."""
        return {m["id"]: props_to_node(m) for m in self.nodes}


class _Key(Row):
    key: str


class _Count(Row):
    n: int


class _Cosines(Row):
    id: str
    cosines: list[float]


class RecallRepository:
    """The catalogued reads and writes of one recall engine, over one store."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._conn: Neo4jConnection = store.conn
        self.slot: VectorSlot = MAIN
        """Where the statements that read vectors find them (another slot while a re-embedding
        has switched recall to its new vectors); a recall under way keeps the one it started with
        (:data:`~hippograph.store.vectors.READING_SLOT`)."""

    def _v(self, query: Statement) -> Statement:
        """``query`` reading this recall's vector slot."""
        return slot_query(query, READING_SLOT.get() or self.slot)

    async def search_recall(self, **given: Any) -> RecallRow:
        """One recall's reads in one statement (:func:`~hippograph.retrieval.statement.recall_statement`,
        rendered for the server from the fragments whose headers name the parameters).
        Parameters as :meth:`recall_params` takes them. Every parameter goes with one type and size
        bucket whatever its value (:func:`recall_statement_params`): the server plans the
        statement once per mix, seconds each."""
        lts = not self._conn.capabilities.supports_search_clause
        (row,) = await self._conn.read_plain_as(
            self._v(recall_statement(lts=lts)), RecallRow, **self.recall_params(**given)
        )
        return row

    async def search_recall_stages(self, **given: Any) -> tuple[RecallRow, list[Degradation]]:
        """The same reads as :meth:`search_recall`, one fragment per statement (recall's degrade
        path): a fragment that fails is noted in the degradations and its stand-ins take its
        place, unless it has none (then its error is raised); a part fails as a whole (the
        fragments of a part that failed are not run, their stand-ins answer).

        Raises:
            StoreError: Both channels failed (nothing could answer), or a fragment without a
                stand-in failed.
        """
        lts = not self._conn.capabilities.supports_search_clause
        params = self.recall_params(**given)
        env: dict[str, Any] = {}
        degraded: list[Degradation] = []
        for stage in recall_stages(lts=lts):
            fragment = stage.fragment
            if fragment.part is not None and fragment.part in {d.part for d in degraded}:
                env.update(fragment.stand_ins(env, params))
                continue
            try:
                with span("hippograph.recall.fragment", {"hippograph.recall.fragment": fragment.name}):
                    (found,) = await self._conn.read_plain(self._v(stage.query), **params, **stage.params(env))
                env.update(found)
            except (asyncio.CancelledError, KeyboardInterrupt):
                raise
            except Exception as exc:
                if fragment.part is None:
                    raise
                log.warning("recall: fragment %s failed: %s", fragment.name, type(exc).__name__)
                if fragment.part not in {d.part for d in degraded}:
                    degraded.append(Degradation.of(fragment.part, exc))
                env.update(fragment.stand_ins(env, params))
        failed = {d.part for d in degraded}
        if {"fulltext", "vector"} <= failed:
            first = next(d for d in degraded if d.part in ("fulltext", "vector"))
            raise StoreError(f"recall failed: {first.part}: {first.error_type}: {first.message}", retryable=True)
        return RecallRow.model_validate({name: env[name] for name in RecallRow.model_fields}), degraded

    def recall_params(
        self,
        *,
        vector: list[float] | None,
        lucene: str | None,
        visible: list[str],
        layers: list[str],
        k: int,
        fetch_k: int,
        exact_below: int,
        keys: list[str],
        population: int | None,
        vector_weight: float,
        fulltext_weight: float,
        person_bonus: float,
        activation: ActivationConfig,
        rank_n: int,
        dimensions: int = 0,
        all_arrivals: bool = False,
        session_prior: float = 0.0,
        feedback_weight: float = 0.0,
        feedback_seeds: int = 3,
        chain: Sequence[str] = (),
    ) -> dict[str, Any]:
        """The recall statement's parameters: ``vector`` None leaves the vector channel out,
        ``population`` None counts the visible memories, ``lucene`` None leaves the fulltext
        channel out; ``dimensions``: the zero vector's length when ``vector`` is None.
        ``all_arrivals``: return every spreading arrival, not only those the ranking, the
        activation log and the pending links read (:class:`RecallRow`) — for a caller that
        re-ranks the candidates after the statement. ``session_prior``:
        :attr:`~hippograph.retrieval.config.RecallConfig.session_prior`, ``feedback_weight`` and
        ``feedback_seeds`` likewise. ``chain``: the scope's
        :meth:`~hippograph.scope.Scope.chain_points`, what the vector channels search (none: no
        vector search, the exact scan answers)."""
        return {
            **recall_statement_params(
                vector=vector,
                dimensions=dimensions,
                lucene=lucene,
                visible=visible,
                layers=layers,
                keys=keys,
                population=population,
                chain=chain,
            ),
            "k": k,
            "fetch_k": fetch_k,
            "exact_below": exact_below,
            "vector_weight": float(vector_weight),  # an int would be a type of its own
            "fulltext_weight": float(fulltext_weight),
            "person_bonus": float(person_bonus),
            "max_nodes": activation.max_nodes,
            "max_hops": activation.max_hops,
            "fan_out": activation.fan_out,
            "base_decay": float(activation.base_decay),
            "threshold": float(activation.threshold),
            "session_decay": float(activation.session_decay),
            "session_seeds": activation.session_seeds,
            "cue_decay": float(activation.cue_decay),
            "cue_seeds": activation.cue_seeds,
            "max_cue_degree": activation.max_cue_degree,
            "cue_budget": activation.cue_budget,
            "inverse_rarity": activation.cue_rarity == "inverse",
            "session_prior": float(session_prior),
            "feedback_weight": float(feedback_weight),
            "feedback_seeds": feedback_seeds,
            "assoc_limit": ASSOCIATION_LIMIT,
            "rank_n": rank_n,
            "log_n": max(activation.max_nodes, activation.cue_seeds),
            "max_pending": activation.max_pending if activation.record_pending else 0,
            "all_arrivals": all_arrivals,
        }

    async def warm_recall(self, *, dimensions: int, layers: list[str], activation: ActivationConfig) -> None:
        """Run the recall statement once over no scope, with the parameter types and size
        buckets every recall sends: it reads nothing and returns an empty row, and leaves the
        server's plan cache holding the statement planned *and* compiled (an EXPLAIN plans but
        leaves the compilation, ≈ 2.7 s here, to the first run)."""
        await self.search_recall(
            vector=[1.0] * max(dimensions, 1), lucene=None, visible=[], layers=layers, k=1, fetch_k=1,
            exact_below=0, keys=[], population=None, vector_weight=1.0, fulltext_weight=1.0,
            person_bonus=0.0, activation=activation, rank_n=1, dimensions=dimensions,
        )  # fmt: skip

    async def topic_cosines(
        self, *, ids: list[str], visible: list[str], vectors: list[list[float]]
    ) -> dict[str, list[float]]:
        """Each visible memory's cosines to ``vectors`` (in order), by id; Neo4j's
        ``(1 + cos) / 2`` converted back to the cosine."""
        rows = await self._conn.read_as(
            self._v(Q.GET_TOPIC_COSINES), _Cosines, ids=ids, visible=visible, vectors=vectors
        )
        return {r.id: [cosine_from_index(c) for c in r.cosines] for r in rows}

    async def recent_scope(self) -> str | None:
        """The scope key of the memory updated last, None in an empty database."""
        rows = await self._conn.read_as(Q.GET_RECENT_SCOPE, _Key)
        return rows[0].key if rows else None

    async def scope_size(self, *, visible: list[str], layers: list[str]) -> int:
        return (await self._conn.read_as(Q.GET_SCOPE_SIZE, _Count, visible=visible, layers=layers))[0].n

    async def recalled(self, *, ids: list[str], visible: list[str]) -> dict[str, MemoryNode]:
        """The whole memories behind ``ids`` that are still visible, by id."""
        if not ids:
            return {}
        rows = await self._conn.read(Q.GET_RECALLED, ids=ids, visible=visible)
        return {r["m"]["id"]: props_to_node(r["m"]) for r in rows}

    async def record_access(self, *, recalled: Sequence[str], spread: Sequence[str], now: float) -> None:
        """Bump the access counts of what a recall returned and of what spreading visited."""
        await self._conn.write(Q.UPDATE_ACCESS_COUNTS, ids=list(recalled), now=now)
        if spread:
            await self._conn.write(Q.UPDATE_SPREADING_ACCESS_COUNTS, ids=list(spread))

    async def upsert_pending_links(self, *, rows: list[dict[str, Any]], scope_key: str, now: float) -> None:
        """Leave the links activation inferred for consolidation (the scope must exist)."""
        await self._conn.write(Q.UPSERT_PENDING_LINKS, rows=rows, scope_key=scope_key, now=now)
