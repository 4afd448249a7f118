"""What one recall carries from retrieval to scoring, whichever path retrieved it (the one
statement of :mod:`~hippograph.retrieval.engine`, its fragments one by one, or the test oracle's
stages): the channels' hits, the evidence, the activation state,
and the arithmetic both paths share."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from hippograph.models import MemoryNode
from hippograph.retrieval import scoring
from hippograph.retrieval.activation import Arrival, activated_log, add_up, pending_links, session_prior, strongest
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.fusion import zscores
from hippograph.retrieval.repository import CandidateRow
from hippograph.retrieval.types import ActivatedNode, ActivationLog, PathStep, ScoreParts

POPULATION_TTL = 10.0
EXACT_SCAN_BELOW = 5000
"""Scopes that see fewer memories than this are scanned exactly: cheaper than asking the
index (whose global top-k would mostly belong to other scopes) and exact by construction."""
SEARCH_PER_KEY = 4
"""Above the threshold the scope chain is searched inside the vector index (one range search,
two in a namespace) for this many times the candidates wanted (per visible scope key before the
chain search): at 1M (a 1 % scope) 2× found 0.67 of the exact top 100, 4× 0.84,
at the same latency."""

PopulationKey = tuple[str, tuple[str, ...]]


def rank_depth(k: int) -> int:
    """How many of the most active memories are read whole and scored for a top-``k`` recall."""
    return max(3 * k, 50)


class Populations:
    """How many memories a scope sees per layer set (the N of cue rarity; the choice between the
    vector index and the exact scan). A count older than :data:`POPULATION_TTL` seconds still
    answers: the first recall to find it old claims its recount (:meth:`due`) and recounts off
    the hot path, so recalls a person's turns apart do not each count the scope first.
    Holds at most :attr:`CAP` + 1 entries (it starts afresh past that)."""

    CAP = 10_000

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._seen: dict[PopulationKey, tuple[float, int]] = {}
        self._clock = clock

    def __len__(self) -> int:
        return len(self._seen)

    def get(self, key: PopulationKey) -> int | None:
        """The last count of ``key``, however old (None: never counted)."""
        cached = self._seen.get(key)
        return cached[1] if cached else None

    def due(self, key: PopulationKey) -> bool:
        """Whether ``key``'s count is older than the TTL. True once per TTL: the caller that
        hears it recounts (the count keeps answering until :meth:`put` replaces it)."""
        cached = self._seen.get(key)
        if cached is None or cached[0] > self._clock():
            return False
        self._seen[key] = (self._clock() + POPULATION_TTL, cached[1])
        return True

    def put(self, key: PopulationKey, n: int) -> None:
        if len(self._seen) > self.CAP:
            self._seen.clear()
        self._seen[key] = (self._clock() + POPULATION_TTL, n)


class Hits:
    """What the two channels returned: ranks, BM25 scores, cosines, sessions, person cues."""

    def __init__(self) -> None:
        self.vector_rank: dict[str, int] = {}
        self.fulltext_rank: dict[str, int] = {}
        self.bm25: dict[str, float] = {}
        self.cosine: dict[str, float] = {}
        self.session: dict[str, str] = {}
        self.persons: dict[str, list[str]] = {}
        self.keys: dict[str, str] = {}
        """The key a channel found a memory through (the vector channel's wins), by memory id."""

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
        if row.key:
            self.keys[nid] = row.key

    @classmethod
    def of(cls, fulltext: Sequence[CandidateRow], vector: Sequence[CandidateRow]) -> Hits:
        """Both channels' rows, ranked from 1 (a vector row wins over a fulltext row)."""
        hits = cls()
        for rank, row in enumerate(fulltext, 1):
            hits.add(row, fulltext_rank=rank)
        for rank, row in enumerate(vector, 1):
            hits.add(row, vector_rank=rank)
        return hits

    @property
    def pool(self) -> list[str]:
        return list(dict.fromkeys([*self.fulltext_rank, *self.vector_rank]))


def with_keys(
    rows: Sequence[CandidateRow], key_rows: Sequence[CandidateRow], k: int, *, bm25: bool
) -> list[CandidateRow]:
    """One channel's rows with its key hits fused in: a memory takes its best key's score
    (``bm25``: BM25, else the cosine) when higher than its own, the row then naming the key;
    the rows ranked again (score descending, then id) and cut to ``k``. Without key hits the
    rows are returned as they are."""
    if not key_rows:
        return list(rows)

    def score(row: CandidateRow) -> float:
        return float((row.score if bm25 else row.cosine) or 0.0)

    fused = {row.id: row for row in rows}
    for via in key_rows:
        own = fused.get(via.id)
        if own is None:
            fused[via.id] = via
        elif score(via) > score(own):
            fused[via.id] = own.model_copy(update={"score" if bm25 else "cosine": score(via), "key": via.key})
    return sorted(fused.values(), key=lambda r: (-score(r), r.id))[:k]


def evidence_of(hits: Hits, named: list[str], cfg: RecallConfig) -> dict[str, ScoreParts]:
    """Each candidate's evidence: both channels z-scored over the pool, and the person bonus
    when the query names exactly one person the candidate was said by."""
    pool = hits.pool
    z_c = zscores(hits.cosine, pool, missing=min(hits.cosine.values(), default=0.0))
    z_f = zscores(hits.bm25, pool, missing=0.0)
    person = named[0] if len(named) == 1 else None
    return {
        i: ScoreParts(
            z_vector=z_c.get(i, 0.0),
            z_fulltext=z_f.get(i, 0.0),
            person=cfg.person_bonus if person and person in hits.persons.get(i, []) else 0.0,
            key=hits.keys.get(i),
        )
        for i in pool
    }


class ActivationState:
    """Per-recall activation state: evidence (base), what each spreading stage and the session
    prior added, paths."""

    def __init__(self, base: dict[str, float], log: ActivationLog, prior: dict[str, float] | None = None) -> None:
        self.base = base
        self.log = log
        self.prior = prior or {}
        """What the session prior gives each candidate (added last to every total)."""
        self.edges: dict[str, float] = {}
        self.session: dict[str, float] = {}
        self.cues: dict[str, float] = {}
        self.total: dict[str, float] = {}
        self.paths: dict[str, list[PathStep]] = {}
        """Paths over memory edges, and the session / cue paths built so far (on demand)."""
        self._associated: tuple[dict[str, Arrival], ...] = ()

    @classmethod
    def from_evidence(
        cls, evidence: dict[str, ScoreParts], cfg: RecallConfig, session_of: Mapping[str, str]
    ) -> ActivationState:
        """The state before any spreading: every candidate's evidence, scaled to [0, 1], and
        the session prior of its session (``session_of``: the candidates' sessions)."""
        base = scoring.evidence_activation(evidence, cfg.vector_weight, cfg.fulltext_weight)
        prior = session_prior(base, session_of, cfg.session_prior)
        state = cls(base=base, log=ActivationLog(seeds=list(strongest(base, cfg.activation.cue_seeds))), prior=prior)
        state.total = add_up(base, prior)
        return state

    def add_edges(self, edges: dict[str, ActivatedNode], capped: bool) -> dict[str, float]:
        """Fold in the arrivals over memory edges; returns evidence + edge activation."""
        self.log.capped = capped
        self.edges = {i: a.activation for i, a in edges.items()}
        self.paths.update({i: n.path for i, n in edges.items()})
        return add_up(self.base, self.edges)

    def finish(
        self,
        a: dict[str, float],
        reps: dict[str, float],
        session: dict[str, Arrival],
        cue: dict[str, Arrival],
        edge_ids: set[str],
        act: ActivationConfig,
    ) -> None:
        """Fold session and cue arrivals in (the best member of a session shares its
        session's activation too), then the totals (the session prior last), the activation log
        and the pending links."""
        for i, value in reps.items():
            session[i] = Arrival(i, act.session_decay * value, i)
        self.session = {i: n.activation for i, n in session.items()}
        self.cues = {i: n.activation for i, n in cue.items()}
        self._associated = (session, cue)
        self.total = add_up(a, self.session, self.cues, self.prior)
        self.log.activated = activated_log(
            self.total, self.base, self._known_path, {*edge_ids, *session, *cue}, max(act.max_nodes, act.cue_seeds)
        )
        if act.record_pending:
            self.log.pending = pending_links(cue, self.base, act.max_pending)

    def add_topic(self, topic: dict[str, float], scale: float) -> None:
        """Fold in person-centred evidence (standard deviations, ``scale`` = one of them in
        activation units); a total never drops below 0."""
        for i, value in topic.items():
            self.total[i] = max(0.0, self.total.get(i, 0.0) + value * scale)

    def _known_path(self, i: str) -> list[PathStep] | None:
        """The path that reached ``i``: over memory edges, else (unless a channel found it)
        through its session, else through a cue; None when nothing reached it."""
        path = self.paths.get(i)
        if path is not None or i in self.base:
            return path
        for reached in self._associated:
            arrival = reached.get(i)
            if arrival is not None:
                path = arrival.path
                self.paths[i] = path
                return path
        return None

    def path(self, i: str) -> list[PathStep]:
        """The path that reached ``i`` (just ``i`` when nothing did): what an item explains."""
        return self._known_path(i) or [PathStep(node_id=i)]


@dataclass
class Retrieved:
    """What retrieval hands to scoring: the channels' hits, the evidence, the activation
    state, the memories to score (None: read them for the ranking), the keys the caller sees
    and when the candidates were in."""

    hits: Hits
    evidence: dict[str, ScoreParts]
    state: ActivationState
    nodes: dict[str, MemoryNode] | None
    visible: list[str]
    t_candidates: float
    named: list[str] = field(default_factory=list)
    """The person cues the query names (casefolded keys)."""
