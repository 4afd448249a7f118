// transaction: write
// Persist one consolidation report as (:ConsolidationRun)-[:RAN_IN]->(:Scope); idempotent by id.
// $run: flat map (phases and counts as JSON strings).
MATCH (s:Scope {key: $run.scope_key})
MERGE (r:ConsolidationRun {id: $run.id})
SET r += $run
MERGE (r)-[:RAN_IN]->(s)
RETURN r.id AS id
