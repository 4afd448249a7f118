"""What a phase gets: the connection, the scope, the config, the run's clock reading, the
optional model, and the lease's bookkeeping (watermarks of incremental phases)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import model_validator

from hippograph.consolidation import repository as repo
from hippograph.consolidation.config import ConsolidationConfig
from hippograph.consolidation.report import Phase
from hippograph.scope import Scope
from hippograph.store.catalog import CypherQuery
from hippograph.store.connection import Neo4jConnection
from hippograph.store.transaction import Row

Counts = dict[str, int]
R = TypeVar("R", bound=Row)


class Counted(Row):
    """A summary row of counts: subclasses name them as ``int = 0`` fields, in report order.
    A count the query leaves out or answers as null is 0."""

    @model_validator(mode="before")
    @classmethod
    def _null_is_zero(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None}
        return data

    def counts(self) -> Counts:
        """The counts by name, in the order the row declares them."""
        return {name: int(getattr(self, name)) for name in type(self).model_fields}


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

    async def batch(self, query: CypherQuery, row: type[R], **extra: Any) -> R:
        """Run a ``CALL {…} IN TRANSACTIONS`` job; return its single summary row as ``row``."""
        return await repo.batch(self.conn, query, row, self.params(**extra))

    async def read(self, query: CypherQuery, row: type[R], **extra: Any) -> list[R]:
        return await repo.read(self.conn, query, row, self.params(**extra))

    async def write(self, query: CypherQuery, row: type[R], **extra: Any) -> list[R]:
        return await repo.write(self.conn, query, row, self.params(**extra))

    async def remember(self, **state: Any) -> None:
        """Record bookkeeping on the lease now, so an interruption later keeps it."""
        self.state.update(state)
        if self.save_state is not None:
            await self.save_state(state)


PhaseFn = Callable[[PhaseContext], Awaitable[Counts]]
PhaseTable = dict[Phase, PhaseFn]
