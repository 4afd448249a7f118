"""What a phase gets: the connection, the scope, the config, the run's clock reading, the
optional model, and the lease's bookkeeping (watermarks of incremental phases)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from hippograph.consolidation import repository as repo
from hippograph.consolidation.config import ConsolidationConfig
from hippograph.consolidation.report import Phase
from hippograph.scope import Scope
from hippograph.store.catalog import CypherQuery
from hippograph.store.connection import Neo4jConnection

Counts = dict[str, int]


class SkipPhase(Exception):
    """Raised by a phase that decides not to run; the message is the reason reported."""


@dataclass
class PhaseContext:
    """One run's view for its phases. ``state`` is read from the lease and written back."""

    conn: Neo4jConnection
    scope: Scope
    config: ConsolidationConfig
    now: float
    run_id: str
    model: object | None = None
    quick: bool = False
    state: dict[str, Any] = field(default_factory=dict)
    save_state: Callable[[dict[str, Any]], Awaitable[None]] | None = None

    def params(self, **extra: Any) -> dict[str, Any]:
        """The parameters every phase query takes, plus ``extra``."""
        return {
            "scope_key": self.scope.key,
            "subtree_prefix": self.scope.subtree_prefix,
            "now": self.now,
            "run_id": self.run_id,
            "batch": self.config.batch_size,
            **extra,
        }

    async def batch(self, query: CypherQuery, **extra: Any) -> dict[str, Any]:
        """Run a ``CALL {…} IN TRANSACTIONS`` job; return its single summary row."""
        return await repo.batch(self.conn, query, self.params(**extra))

    async def read(self, query: CypherQuery, **extra: Any) -> list[dict[str, Any]]:
        return await repo.read(self.conn, query, self.params(**extra))

    async def write(self, query: CypherQuery, **extra: Any) -> list[dict[str, Any]]:
        return await repo.write(self.conn, query, self.params(**extra))

    async def remember(self, **state: Any) -> None:
        """Record bookkeeping on the lease now, so an interruption later keeps it."""
        self.state.update(state)
        if self.save_state is not None:
            await self.save_state(state)


PhaseFn = Callable[[PhaseContext], Awaitable[Counts]]
PhaseTable = dict[Phase, PhaseFn]


def ints(row: dict[str, Any], *keys: str) -> Counts:
    """Pick integer counts out of a summary row (missing or null → 0)."""
    return {k: int(row.get(k) or 0) for k in keys}
