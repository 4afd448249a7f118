// transaction: read
// The run history of one scope, newest first; none while the scope is under erasure (at or
// below an (:Erasure) marker): the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (r:ConsolidationRun)-[:RAN_IN]->(s:Scope {key: $scope_key})
WHERE none(gone IN erasing WHERE s.key = gone OR s.key STARTS WITH gone + '/')
RETURN r {.*} AS run
ORDER BY r.started_at DESC, r.id DESC
SKIP $offset LIMIT $limit
