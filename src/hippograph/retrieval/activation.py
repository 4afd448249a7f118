"""Spreading activation's arithmetic on the engine's side.

Two kinds of spreading run inside the recall statement (``cypher/retrieval/recall/``: ``hop``,
``seeds``, ``associations``):

* over memory edges (``NEXT``, ``MENTIONS``, ``RELATES_TO`` …): from every seed, at most
  ``fan_out`` strongest neighbours per node, activation = parent × ``base_decay`` × edge
  factor per hop, breadth-first to ``max_hops`` hops (0 and 1: first-degree neighbours
  only, as ``hydration_max_hops`` means), at most ``max_nodes`` new memories,
  nothing below ``threshold``. A memory keeps the strongest activation that reaches it.
* through shared cues (``(:Memory)-[:HAS_CUE]->(:Cue)<-[:HAS_CUE]-(:Memory)``): a session
  passes ``session_decay`` × its best member to every member; a keyword or name passes
  ``cue_decay`` × seed × rarity, rarity = ln(1 + N/degree) / ln(1 + N) (or 1 / degree:
  ``cue_rarity="inverse"``).

Beside spreading, an optional session prior (``RecallConfig.session_prior``,
:func:`session_prior`) gives every candidate a share of its session's best evidence.

Every reached memory keeps the path that reached it (node ids and relationship types).
:func:`edge_arrivals` and :func:`association_arrivals` read the statement's answer; the
engine adds them up with the pure functions here (:func:`strongest`, :func:`add_up`,
:func:`session_representatives`, :func:`session_prior`, :func:`activated_log`,
:func:`pending_links`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from hippograph.cues import CueKind
from hippograph.retrieval.repository import (
    AssociationRow,
    EdgeArrivalRow,
)
from hippograph.retrieval.types import ActivatedNode, PathStep, PendingConnection


def edge_arrivals(rows: Iterable[EdgeArrivalRow]) -> dict[str, ActivatedNode]:
    """The one-statement recall's edge arrivals (strongest per memory, with its path)."""
    return {r.id: ActivatedNode(id=r.id, activation=r.act, hop=len(r.path) - 1, path=list(r.path)) for r in rows}


@dataclass(frozen=True, slots=True)
class Arrival:
    """Activation that reached memory ``id`` through a shared session or cue from ``seed``
    (``via``: the cue's ``kind:key``; None for a session's best member, which shares its own
    session's activation: then ``seed`` is the memory itself). A plain record: its :attr:`path`
    is built only for the memories that are ranked or logged, not for every arrival."""

    id: str
    activation: float
    seed: str
    via: str | None = None

    @property
    def hop(self) -> int:
        return 0 if self.via is None else 2

    @property
    def path(self) -> list[PathStep]:
        """seed → cue → this memory (just this memory for a session's best member)."""
        if self.via is None:
            return [PathStep(node_id=self.id)]
        return [
            PathStep(node_id=self.seed),
            PathStep(node_id=f"cue:{self.via}", relationship="HAS_CUE"),
            PathStep(node_id=self.id, relationship="HAS_CUE"),
        ]


def association_arrivals(rows: Iterable[AssociationRow]) -> tuple[dict[str, Arrival], dict[str, Arrival]]:
    """(session arrivals, cue arrivals) of the association read, each with its two-hop path
    through the cue that carried it."""
    session: dict[str, Arrival] = {}
    cue: dict[str, Arrival] = {}
    session_kind = CueKind.SESSION.value
    for r in rows:
        if r["part"] == "session":
            session[r["id"]] = Arrival(r["id"], r["activation"], r["seed"], f"{session_kind}:{r['key']}")
        else:
            cue[r["id"]] = Arrival(r["id"], r["activation"], r["seed"], r["key"])
    return session, cue


# -- the engine's activation arithmetic ----------------------------------------------------------
def strongest(values: Mapping[str, float], n: int) -> dict[str, float]:
    """The ``n`` highest values, strongest first (ties by id)."""
    return dict(sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))[:n])


def add_up(*parts: Mapping[str, float]) -> dict[str, float]:
    """Per memory, the sum of what each part gives it (0 where a part has nothing)."""
    return {i: sum(part.get(i, 0.0) for part in parts) for i in {k for part in parts for k in part}}


def session_representatives(activation: Mapping[str, float], session_of: Mapping[str, str], n: int) -> dict[str, float]:
    """The best member of each session (ties: the smaller id), for the ``n`` sessions whose best
    member is strongest (ties: the larger id first)."""
    best_of_session: dict[str, tuple[float, str]] = {}
    for i, value in activation.items():
        session_id = session_of.get(i)
        if not session_id:
            continue
        best = best_of_session.get(session_id)
        if best is None or value > best[0] or (value == best[0] and i < best[1]):
            best_of_session[session_id] = (value, i)
    return {i: value for value, i in sorted(best_of_session.values(), reverse=True)[:n]}


def session_prior(base: Mapping[str, float], session_of: Mapping[str, str], weight: float) -> dict[str, float]:
    """Per candidate with a session, ``weight`` × the best evidence among that session's
    candidates (nothing when ``weight`` is 0)."""
    if weight <= 0:
        return {}
    best: dict[str, float] = {}
    for i, value in base.items():
        session_id = session_of.get(i)
        if session_id:
            best[session_id] = max(value, best.get(session_id, value))
    return {i: weight * best[session_of[i]] for i in base if session_of.get(i)}


def activated_log(
    total: Mapping[str, float],
    base: Mapping[str, float],
    path_of: Callable[[str], list[PathStep] | None],
    reached: Iterable[str],
    limit: int,
) -> list[ActivatedNode]:
    """What spreading added to each reached memory (beyond its own evidence), strongest first
    (ties by id); ``path_of`` gives the path that reached a memory (None: none known, hop −1).
    Only the ``limit`` listed memories are built."""
    added = sorted((-(total[i] - base.get(i, 0.0)), i) for i in reached)[:limit]
    nodes = []
    for minus, i in added:
        path = path_of(i)
        nodes.append(
            ActivatedNode(
                id=i,
                activation=-minus,
                hop=-1 if path is None else len(path) - 1,
                path=[PathStep(node_id=i)] if path is None else path,
            )
        )
    return nodes


def pending_links(cue: Mapping[str, Arrival], base: Mapping[str, float], limit: int) -> list[PendingConnection]:
    """The strongest cue arrivals that were not candidates (ties: by id): links consolidation
    may make real."""
    far = sorted((-n.activation, n.id, n.seed) for n in cue.values() if n.id not in base)
    return [PendingConnection(source=seed, target=i, score=-minus, hops=2) for minus, i, seed in far[:limit]]
