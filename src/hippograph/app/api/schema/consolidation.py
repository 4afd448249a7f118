# mypy: disable-error-code="untyped-decorator"
"""GraphQL types of consolidation: what one run and each of its phases did."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from hippograph.consolidation import ConsolidationReport as _Report
from hippograph.consolidation import PhaseReport as _PhaseReport


@strawberry.type
class PhaseReport:
    name: str
    number: str
    status: str
    skip_reason: str | None
    counts: JSON
    duration_ms: float

    @classmethod
    def of(cls, p: _PhaseReport) -> PhaseReport:
        return cls(
            name=p.name.value,
            number=p.number,
            status=p.status.value,
            skip_reason=p.skip_reason,
            counts=JSON(dict(p.counts)),
            duration_ms=p.duration_ms,
        )


@strawberry.type(description="What one consolidation run did.")
class ConsolidationReport:
    run_id: strawberry.ID
    scope_key: str
    entry_point: str
    status: str
    skip_reason: str | None
    error: str | None
    started_at: float
    finished_at: float | None
    duration_ms: float
    phases: list[PhaseReport]
    totals: JSON

    @classmethod
    def of(cls, r: _Report) -> ConsolidationReport:
        return cls(
            run_id=strawberry.ID(r.run_id),
            scope_key=r.scope_key,
            entry_point=r.entry_point.value,
            status=r.status.value,
            skip_reason=r.skip_reason,
            error=r.error,
            started_at=r.started_at,
            finished_at=r.finished_at,
            duration_ms=r.duration_ms,
            phases=[PhaseReport.of(p) for p in r.phases_run],
            totals=JSON(r.totals),
        )
