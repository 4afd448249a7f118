// Consolidation history: the runs started on one scope, newest first, with what each phase changed.
:param scope_key => "org:demo/user:sam";
:param limit => 20;
MATCH (run:ConsolidationRun)-[:RAN_IN]->(:Scope {key: $scope_key})
RETURN datetime({epochMillis: toInteger(run.started_at * 1000)}) AS started,
       run.entry_point AS entry_point, run.status AS status,
       round(run.duration_ms) AS ms, run.counts AS counts, run.error AS error
ORDER BY run.started_at DESC
LIMIT $limit
