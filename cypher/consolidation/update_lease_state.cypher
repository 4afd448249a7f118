// transaction: write
// Record bookkeeping (watermarks of incremental phases) on a held lease as soon as a phase ends.
MATCH (l:ConsolidationLease {scope_key: $scope_key})
WHERE l.holder = $holder
SET l += $state
RETURN count(l) AS updated
