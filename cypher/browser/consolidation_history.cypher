// Consolidation history: the runs started on one scope, newest first, with what each phase changed.
// Scopes under erasure (at or below an (:Erasure) marker) show nothing, as in hippograph's own reads.
:param scope_key => "org:demo/user:sam";
:param limit => 20;
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (run:ConsolidationRun)-[:RAN_IN]->(s:Scope {key: $scope_key})
WHERE none(gone IN erasing WHERE s.key = gone OR s.key STARTS WITH gone + '/')
RETURN datetime({epochMillis: toInteger(run.started_at * 1000)}) AS started,
       run.entry_point AS entry_point, run.status AS status,
       round(run.duration_ms) AS ms, run.counts AS counts, run.error AS error
ORDER BY run.started_at DESC
LIMIT $limit
