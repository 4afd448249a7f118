// transaction: write
// Take the consolidation lease of $scope_key for $holder when no other live lease covers it:
// none on the scope itself, on an ancestor ($ancestor_keys) or on a descendant. Locking the
// root Scope node first serialises every acquisition in one tenant tree, so two callers
// cannot both see the scope free. Lease times are the server's clock.
MATCH (root:Scope {key: $root_key})
SET root._lease_lock = true
REMOVE root._lease_lock
WITH timestamp() / 1000.0 AS now
OPTIONAL MATCH (other:ConsolidationLease)
WHERE other.scope_key STARTS WITH $root_key
  AND other.holder IS NOT NULL AND other.holder <> $holder AND other.expires_at > now
  AND (other.scope_key IN $ancestor_keys OR other.scope_key STARTS WITH $subtree_prefix)
WITH now, collect(other.scope_key) AS busy
MATCH (s:Scope {key: $scope_key})
FOREACH (_ IN CASE WHEN size(busy) = 0 THEN [1] ELSE [] END |
  MERGE (l:ConsolidationLease {scope_key: $scope_key})
  SET l.holder = $holder, l.acquired_at = now, l.expires_at = now + $ttl
  MERGE (l)-[:IN_SCOPE]->(s))
WITH busy
OPTIONAL MATCH (l:ConsolidationLease {scope_key: $scope_key})
RETURN size(busy) = 0 AS acquired, busy, l {.*} AS lease
