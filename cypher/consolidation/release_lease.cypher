// transaction: write
// Give a lease back; $state (watermarks, last run time) is kept on the lease node.
MATCH (l:ConsolidationLease {scope_key: $scope_key})
WHERE l.holder = $holder
SET l += $state, l.holder = null, l.expires_at = null, l.released_at = timestamp() / 1000.0
RETURN count(l) AS released
