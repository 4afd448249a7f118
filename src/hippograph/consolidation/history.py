"""Reports as ``(:ConsolidationRun)-[:RAN_IN]->(:Scope)`` nodes, and reading them back."""

from __future__ import annotations

import json
from typing import Any

from hippograph.consolidation import repository as repo
from hippograph.consolidation.report import ConsolidationReport
from hippograph.errors import InvalidInputError
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection

MAX_RUNS = 1000


def run_props(report: ConsolidationReport) -> dict[str, Any]:
    """The flat property map of a run node: phases and counts as JSON strings."""
    data = report.model_dump(mode="json", exclude={"run_id", "phases_run"})
    data["id"] = report.run_id
    data["phases"] = json.dumps([p.model_dump(mode="json") for p in report.phases_run])
    data["counts"] = json.dumps(report.totals, sort_keys=True)
    return {k: v for k, v in data.items() if v is not None}


def props_to_report(props: dict[str, Any]) -> ConsolidationReport:
    data = {k: v for k, v in props.items() if k not in ("id", "phases", "counts")}
    data["run_id"] = props["id"]
    data["phases_run"] = json.loads(props.get("phases") or "[]")
    return ConsolidationReport.model_validate(data)


async def save_report(conn: Neo4jConnection, report: ConsolidationReport) -> None:
    await repo.save_run(conn, run_props(report))


async def list_runs(conn: Neo4jConnection, scope: Scope, limit: int = 20, offset: int = 0) -> list[ConsolidationReport]:
    """The consolidation history of ``scope`` (runs started on it), newest first.

    Raises:
        InvalidInputError: ``limit`` is not in 1..1000 or ``offset`` is negative.
    """
    if not 1 <= limit <= MAX_RUNS:
        raise InvalidInputError("limit", f"must be between 1 and {MAX_RUNS}")
    if offset < 0:
        raise InvalidInputError("offset", "must be ≥ 0")
    runs = await repo.search_runs(conn, scope_key=scope.key, limit=limit, offset=offset)
    return [props_to_report(r) for r in runs]
