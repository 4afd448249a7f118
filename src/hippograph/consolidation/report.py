"""What a consolidation did: a :class:`PhaseReport` per phase in a :class:`ConsolidationReport`."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from hippograph.models import new_id


class Phase(StrEnum):
    """The consolidation phases; :attr:`number` is the phase's number (6 and 7 are unused)."""

    STRENGTHEN = "strengthen"
    COOCCURRENCE = "cooccurrence"
    TAG_RISK = "tag_risk"
    PENDING_EDGES = "pending_edges"
    PRUNE_ORPHANS = "prune_orphans"
    META_NODES = "meta_nodes"
    SOUL_CORRECTIONS = "soul_corrections"
    WORKING_TTL = "working_ttl"
    DECAY_IMPORTANCE = "decay_importance"
    EXPIRE_DURABILITY = "expire_durability"
    PRUNE_RETRACTED = "prune_retracted"
    EPISODIC_SUMMARY = "episodic_summary"
    SYNTHETIC_LINKS = "synthetic_links"
    PROCEDURAL_PROMOTION = "procedural_promotion"
    SEMANTIC_MERGE = "semantic_merge"

    @property
    def number(self) -> str:
        return _NUMBERS[self]


_NUMBERS = {
    Phase.STRENGTHEN: "1",
    Phase.COOCCURRENCE: "1.5",
    Phase.TAG_RISK: "2",
    Phase.PENDING_EDGES: "2.5",
    Phase.PRUNE_ORPHANS: "3",
    Phase.META_NODES: "4",
    Phase.SOUL_CORRECTIONS: "5",
    Phase.WORKING_TTL: "8",
    Phase.DECAY_IMPORTANCE: "9",
    Phase.EXPIRE_DURABILITY: "9.2",
    Phase.PRUNE_RETRACTED: "9.5",
    Phase.EPISODIC_SUMMARY: "10",
    Phase.SYNTHETIC_LINKS: "11",
    Phase.PROCEDURAL_PROMOTION: "12",
    Phase.SEMANTIC_MERGE: "13",
}


class EntryPoint(StrEnum):
    """Which method started a run."""

    QUICK_NAP = "quick_nap"
    RUN = "run"
    NIGHTLY_NAP = "nightly_nap"


class PhaseStatus(StrEnum):
    """``ran`` (its counts may all be zero: it found nothing) or ``skipped`` (with a reason)."""

    RAN = "ran"
    SKIPPED = "skipped"


class RunStatus(StrEnum):
    """How a run ended; ``failed`` runs name the phase in ``error`` (cancelled ones too)."""

    COMPLETED = "completed"
    SKIPPED = "skipped"
    FAILED = "failed"


class PhaseReport(BaseModel):
    """One phase of one run. ``counts`` are what it did (``{}`` or zeros: ran, found nothing)."""

    model_config = ConfigDict(extra="forbid")

    name: Phase
    number: str
    status: PhaseStatus
    skip_reason: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    duration_ms: float = 0.0

    @property
    def did_work(self) -> bool:
        return self.status is PhaseStatus.RAN and any(v > 0 for v in self.counts.values())


class ConsolidationReport(BaseModel):
    """A run's record; persisted as ``(:ConsolidationRun)-[:RAN_IN]->(:Scope)``.

    ``started_at`` / ``finished_at`` are the consolidator's clock (epoch seconds);
    ``phases_run`` is in execution order.
    """

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(default_factory=new_id)
    scope_key: str
    entry_point: EntryPoint
    status: RunStatus = RunStatus.COMPLETED
    skip_reason: str | None = None
    error: str | None = None
    started_at: float
    finished_at: float | None = None
    duration_ms: float = 0.0
    phases_run: list[PhaseReport] = Field(default_factory=list)

    def phase(self, name: Phase | str) -> PhaseReport | None:
        """The report of phase ``name``, or None when it was not part of this run."""
        wanted = Phase(name)
        return next((p for p in self.phases_run if p.name is wanted), None)

    @property
    def totals(self) -> dict[str, int]:
        """Every count of every phase, keyed ``<phase>.<count>``."""
        return {f"{p.name.value}.{k}": v for p in self.phases_run for k, v in p.counts.items()}
