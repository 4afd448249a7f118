"""The phases, and the order each entry point runs them in.

Execution order is not number order: phases that delete, retract or fold run before the ones
that read what is left (prune, tag, link), so one ``run`` leaves nothing for a second ``run``
to do — e.g. a fact decayed below 4.0 by phase 9 is pruned by phase 3 in the same run, and a
summary written by phase 10 is risk-tagged by phase 2 in the same run.

Every phase query starts with ``CYPHER replan=skip``: consolidation itself keeps changing the
statistics the planner watches (a few SUMMARIZES or CLUSTERS more), which would otherwise make
Neo4j re-plan these large statements on most runs — seconds of planning for milliseconds of
work. Their plans are driven by the scope-key index seek, so a cached plan stays good.
"""

from __future__ import annotations

from hippograph.consolidation.context import PhaseTable
from hippograph.consolidation.phases.episodes import episodic_summary
from hippograph.consolidation.phases.graph import cooccurrence, pending_edges, strengthen, tag_risk
from hippograph.consolidation.phases.learning import procedural_promotion, synthetic_links
from hippograph.consolidation.phases.lifecycle import (
    decay_importance,
    expire_durability,
    prune_orphans,
    prune_retracted,
    working_ttl,
)
from hippograph.consolidation.phases.merge import semantic_merge
from hippograph.consolidation.phases.structure import meta_nodes, soul_corrections
from hippograph.consolidation.report import Phase

PHASES: PhaseTable = {
    Phase.STRENGTHEN: strengthen,
    Phase.COOCCURRENCE: cooccurrence,
    Phase.TAG_RISK: tag_risk,
    Phase.PENDING_EDGES: pending_edges,
    Phase.PRUNE_ORPHANS: prune_orphans,
    Phase.META_NODES: meta_nodes,
    Phase.SOUL_CORRECTIONS: soul_corrections,
    Phase.WORKING_TTL: working_ttl,
    Phase.DECAY_IMPORTANCE: decay_importance,
    Phase.EXPIRE_DURABILITY: expire_durability,
    Phase.PRUNE_RETRACTED: prune_retracted,
    Phase.EPISODIC_SUMMARY: episodic_summary,
    Phase.SYNTHETIC_LINKS: synthetic_links,
    Phase.PROCEDURAL_PROMOTION: procedural_promotion,
    Phase.SEMANTIC_MERGE: semantic_merge,
}

RUN_ORDER: tuple[Phase, ...] = (
    Phase.STRENGTHEN,  # reads access counters only
    Phase.SOUL_CORRECTIONS,
    Phase.WORKING_TTL,
    Phase.DECAY_IMPORTANCE,  # before prune: what it lowers below 4.0 is pruned this run
    Phase.EXPIRE_DURABILITY,
    Phase.PROCEDURAL_PROMOTION,  # before the fold: learn from events before they are folded
    Phase.EPISODIC_SUMMARY,
    Phase.SEMANTIC_MERGE,  # before synthetic links and pruning, which read edges it moves
    Phase.PRUNE_ORPHANS,  # after everything that lowers importance or degree
    Phase.PRUNE_RETRACTED,
    Phase.PENDING_EDGES,
    Phase.META_NODES,
    Phase.SYNTHETIC_LINKS,
    Phase.TAG_RISK,  # after every phase that writes text (summaries, META, drafts)
    Phase.COOCCURRENCE,  # last: reads the final set of live memories
)
QUICK_NAP_ORDER: tuple[Phase, ...] = (
    Phase.STRENGTHEN,
    Phase.SOUL_CORRECTIONS,
    Phase.EPISODIC_SUMMARY,
)

__all__ = ["PHASES", "QUICK_NAP_ORDER", "RUN_ORDER"]
