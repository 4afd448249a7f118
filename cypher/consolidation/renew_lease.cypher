// transaction: write
// Extend a held lease by $ttl seconds from now (server clock); 0 rows changed = lease lost.
MATCH (l:ConsolidationLease {scope_key: $scope_key})
WHERE l.holder = $holder
SET l.expires_at = timestamp() / 1000.0 + $ttl
RETURN count(l) AS renewed
