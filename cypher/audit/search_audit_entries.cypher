// transaction: read
// Audit entries recorded in a scope and every scope below it, newest first, but for the scopes
// under erasure (at or below an (:Erasure) marker): the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (a:AuditEntry)
WHERE a.scope_key STARTS WITH $scope_key
  AND (a.scope_key = $scope_key OR a.scope_key STARTS WITH $subtree_prefix)
  AND none(gone IN erasing WHERE a.scope_key = gone OR a.scope_key STARTS WITH gone + '/')
RETURN a {.*} AS entry
ORDER BY a.at DESC, a.id DESC
SKIP $offset LIMIT $limit
