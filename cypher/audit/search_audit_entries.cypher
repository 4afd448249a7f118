// Audit entries recorded in a scope and every scope below it, newest first.
MATCH (a:AuditEntry)
WHERE a.scope_key STARTS WITH $scope_key
  AND (a.scope_key = $scope_key OR a.scope_key STARTS WITH $subtree_prefix)
RETURN a {.*} AS entry
ORDER BY a.at DESC, a.id DESC
SKIP $offset LIMIT $limit
