"""The consolidation queries (``cypher/consolidation``)."""

from __future__ import annotations

from enum import auto, nonmember

from hippograph.store.catalog import CypherQuery

__all__ = ["ConsolidationQuery"]


class ConsolidationQuery(CypherQuery):
    """Queries of the sleep consolidator: one per phase (two for select-then-write phases)."""

    folder = nonmember("consolidation")

    # phases
    STRENGTHEN_MEMORIES = auto()
    GET_COOCCURRENCE_PAIRS = auto()
    LINK_COOCCURRENCES = auto()
    TAG_RISKS = auto()
    LINK_PENDING = auto()
    DELETE_ORPHANS = auto()
    GET_META_CLUSTERS = auto()
    UPSERT_META_NODES = auto()
    GET_SOUL_NODES = auto()
    UPDATE_SOUL_NODES = auto()
    DELETE_EXPIRED_WORKING = auto()
    DECAY_IMPORTANCE = auto()
    RETRACT_EXPIRED = auto()
    DELETE_RETRACTED = auto()
    GET_EPISODE_FOLDS = auto()
    FOLD_EPISODES = auto()
    LINK_SYNTHETIC = auto()
    GET_ACTION_PATTERNS = auto()
    UPSERT_DRAFT_SKILLS = auto()
    GET_SIMILAR_SKILLS = auto()
    UPDATE_DRAFT_SKILLS = auto()
    GET_MERGE_CANDIDATES = auto()
    MERGE_FACTS = auto()
    # lease, history, undo
    ACQUIRE_LEASE = auto()
    RENEW_LEASE = auto()
    RELEASE_LEASE = auto()
    UPDATE_LEASE_STATE = auto()
    TERMINATE_RUN_TRANSACTIONS = auto()
    UPSERT_CONSOLIDATION_RUN = auto()
    SEARCH_CONSOLIDATION_RUNS = auto()
    RESTORE_MEMORY = auto()
