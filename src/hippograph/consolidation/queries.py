"""The consolidation queries (``cypher/consolidation/``), and the audit ones re-exported so the
catalog index imports both from one place."""

from __future__ import annotations

from hippograph.audit import AuditQuery
from hippograph.store.catalog import CypherQuery

__all__ = ["AuditQuery", "ConsolidationQuery"]


class ConsolidationQuery(CypherQuery):
    """Queries of the sleep consolidator: one per phase (two for select-then-write phases)."""

    # phases
    STRENGTHEN_MEMORIES = "consolidation/strengthen_memories"
    LINK_COOCCURRENCES = "consolidation/link_cooccurrences"
    TAG_RISKS = "consolidation/tag_risks"
    LINK_PENDING = "consolidation/link_pending"
    DELETE_ORPHANS = "consolidation/delete_orphans"
    GET_META_CLUSTERS = "consolidation/get_meta_clusters"
    UPSERT_META_NODES = "consolidation/upsert_meta_nodes"
    GET_SOUL_NODES = "consolidation/get_soul_nodes"
    UPDATE_SOUL_NODES = "consolidation/update_soul_nodes"
    DELETE_EXPIRED_WORKING = "consolidation/delete_expired_working"
    DECAY_IMPORTANCE = "consolidation/decay_importance"
    RETRACT_EXPIRED = "consolidation/retract_expired"
    DELETE_RETRACTED = "consolidation/delete_retracted"
    GET_EPISODE_FOLDS = "consolidation/get_episode_folds"
    FOLD_EPISODES = "consolidation/fold_episodes"
    LINK_SYNTHETIC = "consolidation/link_synthetic"
    GET_ACTION_PATTERNS = "consolidation/get_action_patterns"
    UPSERT_DRAFT_SKILLS = "consolidation/upsert_draft_skills"
    GET_MERGE_CANDIDATES = "consolidation/get_merge_candidates"
    MERGE_FACTS = "consolidation/merge_facts"
    # lease, history, undo
    ACQUIRE_LEASE = "consolidation/acquire_lease"
    RENEW_LEASE = "consolidation/renew_lease"
    RELEASE_LEASE = "consolidation/release_lease"
    UPDATE_LEASE_STATE = "consolidation/update_lease_state"
    TERMINATE_RUN_TRANSACTIONS = "consolidation/terminate_run_transactions"
    UPSERT_CONSOLIDATION_RUN = "consolidation/upsert_consolidation_run"
    SEARCH_CONSOLIDATION_RUNS = "consolidation/search_consolidation_runs"
    RESTORE_MEMORY = "consolidation/restore_memory"
