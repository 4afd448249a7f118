"""Every threshold of every phase, in one validated object, with its defaults."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hippograph.layers.procedural import MERGE_SIMILARITY
from hippograph.models import Layer

DAY = 86_400.0
DEFAULT_TURNS_BETWEEN_NAPS = 10
"""A quick nap (phases 1, 5 and 10, the light ones) every 10 turns of a scope: a conversation's
memories are strengthened and its old events folded while it goes on."""
DEFAULT_RISK_TERMS = (
    "risk",
    "danger",
    "failure",
    "loss",
    "negative",
    "decline",
    "warning",
    "critical",
    "error",
    "threat",
)
DEFAULT_META_STOPWORDS = ("the", "and", "for", "with", "this", "that", "user", "agent")
DEFAULT_ACTION_SEPARATORS = (
    "#",
    ":",
    ";",
    ",",
    ".",
    "!",
    "?",
    "-",
    "_",
    "/",
    "(",
    ")",
    "[",
    "]",
    "'",
    '"',
    "\t",
    "\n",
)


class ConsolidationConfig(BaseModel):
    """Knobs of :class:`~hippograph.consolidation.SleepConsolidator`, with their defaults.

    Times are seconds. Field names start with the phase they belong to.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # -- run-wide ------------------------------------------------------------------------
    batch_size: int = Field(default=2000, ge=1, le=100_000)
    """Rows per inner transaction of ``CALL {…} IN TRANSACTIONS`` jobs. Neo4j's transaction
    memory grows fast with relationship writes: 5,000 edges per transaction already overflow a
    512 MB ``dbms.memory.transaction.total.max``; 2,000 is also the fastest measured here."""
    nightly_enabled: bool = False
    """``nightly_nap`` runs only when this is True (the operator schedules it, or
    ``hippograph serve`` with a nightly schedule)."""
    turns_between_naps: int = Field(default=DEFAULT_TURNS_BETWEEN_NAPS, ge=0)
    """``note_turn`` answers True every this many turns of a scope (10 by default), when the
    agent (or a memory capability) runs a quick nap of that scope in the background; 0 turns
    naps off."""
    lease_ttl: float = Field(default=600.0, gt=0)
    """A lease not renewed for this long is free again (a crashed run cannot block forever)."""
    lease_poll: float = Field(default=0.25, gt=0)
    wait_timeout: float = Field(default=60.0, ge=0)
    """How long ``wait=True`` callers wait for a busy scope before AlreadyRunningError."""
    retraction_grace: float = Field(default=7 * DAY, gt=0)
    """Soft-retracted memories can be restored for this long; phase 9.5 prunes them after."""

    # -- 1 strengthen --------------------------------------------------------------------
    strengthen_min_seen: float = Field(default=2.0, gt=0)
    """access_count + factor·spreading_access_count gained since the last strengthen."""
    strengthen_spreading_factor: float = Field(default=0.5, ge=0)
    strengthen_step: float = Field(default=0.5, gt=0)
    importance_max: float = Field(default=10.0, ge=1, le=10)

    # -- 1.5 cooccurrence ----------------------------------------------------------------
    cooccurrence_window: float = Field(default=900.0, gt=0)
    cooccurrence_weight: float = Field(default=0.3, gt=0)
    cooccurrence_degree_cap: int = Field(default=5, ge=1, le=50)
    cooccurrence_layers: tuple[Layer, ...] = (Layer.EPISODIC, Layer.SEMANTIC)

    # -- 2 tag_risk ----------------------------------------------------------------------
    risk_terms: tuple[str, ...] = DEFAULT_RISK_TERMS
    """Words (matched at a word start, case-insensitively) that flag a memory as a risk."""

    # -- 2.5 pending_edges ---------------------------------------------------------------
    pending_default_weight: float = Field(default=0.5, gt=0)
    """Weight of an INFERRED edge whose pending link carries no positive score."""

    # -- 3 prune_orphans -----------------------------------------------------------------
    prune_importance_below: float = Field(default=4.0, ge=1, le=10)
    prune_idle: float = Field(default=7 * DAY, ge=0)
    prune_max_neighbors: int = Field(default=1, ge=0)
    prune_layers: tuple[Layer, ...] = (Layer.SEMANTIC,)
    prune_max_passes: int = Field(default=10, ge=1, le=100)
    """Pruning one orphan can orphan its neighbour: repeat until nothing changes (or this)."""

    # -- 4 meta_nodes --------------------------------------------------------------------
    meta_min_cluster: int = Field(default=3, ge=2)
    meta_importance: float = Field(default=7.0, ge=1, le=10)
    meta_max_edges: int = Field(default=10, ge=1)
    meta_min_prefix_length: int = Field(default=3, ge=1)
    meta_stopwords: tuple[str, ...] = DEFAULT_META_STOPWORDS

    # -- 5 soul_corrections --------------------------------------------------------------
    soul_schema: tuple[str, ...] | None = None
    """Profile keys a correction may set on a SOUL:<name> node; None skips the phase."""

    # -- 8 working_ttl -------------------------------------------------------------------
    working_transient_ttl: float = Field(default=3600.0, gt=0)
    """Transient working memory without its own ttl lives this long."""

    # -- 9 decay_importance --------------------------------------------------------------
    decay_idle: float = Field(default=30 * DAY, ge=0)
    decay_step: float = Field(default=0.5, gt=0)
    decay_floor: float = Field(default=1.0, ge=1, le=10)
    decay_exempt_from: float = Field(default=8.0, ge=1, le=10)
    decay_interval: float = Field(default=DAY, ge=0)
    """A memory decays at most once per interval, so back-to-back runs decay once."""

    # -- 9.2 expire_durability -----------------------------------------------------------
    transient_ttl: float = Field(default=DAY, gt=0)

    # -- 10 episodic_summary -------------------------------------------------------------
    episodic_max_events: int = Field(default=100, ge=1)
    episodic_fold_size: int = Field(default=50, ge=2)
    episodic_max_folds: int = Field(default=20, ge=1)
    """Folds per ``run`` (all scopes together): 1,000 events. A larger backlog (an imported
    history) is folded over several runs, 50 events per fold."""
    episodic_fold_batch: int = Field(default=10, ge=1, le=1000)
    """Chunks folded per inner transaction."""
    quick_nap_max_folds: int = Field(default=1, ge=0)
    """Folds per ``quick_nap``: it must stay fast; ``run`` catches up."""
    summary_importance: float = Field(default=6.0, ge=1, le=10)
    summary_max_chars: int = Field(default=4000, ge=200, le=20_000)
    summary_line_chars: int = Field(default=240, ge=40)

    # -- 11 synthetic_links --------------------------------------------------------------
    synthetic_recent_episodes: int = Field(default=200, ge=1)
    synthetic_min_episodes: int = Field(default=2, ge=1)
    synthetic_max_pairs: int = Field(default=500, ge=1)
    synthetic_weight: float = Field(default=0.2, gt=0)

    # -- 12 procedural_promotion ---------------------------------------------------------
    procedural_min_occurrences: int = Field(default=3, ge=2)
    procedural_window: float = Field(default=30 * DAY, gt=0)
    procedural_max_per_run: int = Field(default=5, ge=1)
    procedural_min_action_chars: int = Field(default=4, ge=1)
    action_separators: tuple[str, ...] = DEFAULT_ACTION_SEPARATORS
    procedural_merge_similarity: float = Field(default=MERGE_SIMILARITY, gt=0, le=1)
    """A recurring action whose events' mean embedding has this cosine or more with a skill
    visible from its scope is that skill: merged into it when it is a draft of the same scope,
    else not proposed again (the layer's own skill dedup threshold)."""

    # -- 13 semantic_merge ---------------------------------------------------------------
    merge_min_cosine: float = Field(default=0.90, gt=0, le=1)
    merge_max_pairs: int = Field(default=10, ge=1)
    merge_candidates_k: int = Field(default=10, ge=2, le=1000)
    """Neighbours asked of the vector index per probed fact; when all of them are near
    duplicates (the index is crowded, e.g. by other scopes' copies) the fact is compared
    exactly with every fact of the subtree instead."""
    merge_max_probes: int = Field(default=100, ge=1)
    """Facts written since the last pass probed per run (oldest first); the rest wait."""

    @field_validator("risk_terms", "meta_stopwords")
    @classmethod
    def _words(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for word in v:
            if not word or not word.isascii() or not all(c.isalpha() or c == "-" for c in word):
                raise ValueError(f"{word!r}: words are ASCII letters (and '-') only")
        return tuple(w.lower() for w in v)

    @field_validator("soul_schema")
    @classmethod
    def _schema(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        reserved = {"corrections", "rejected_corrections", "corrected_at", "meta"}
        for key in v or ():
            if not key or key in reserved:
                raise ValueError(f"{key!r} cannot be a profile key")
        return v

    @property
    def risk_pattern(self) -> str:
        """One Java regex for ``=~``: any risk word at a word start."""
        return "(?s).*\\b(" + "|".join(self.risk_terms) + ").*"
