// The run history of one scope, newest first.
MATCH (r:ConsolidationRun)-[:RAN_IN]->(:Scope {key: $scope_key})
RETURN r {.*} AS run
ORDER BY r.started_at DESC, r.id DESC
SKIP $offset LIMIT $limit
