// Benchmark inspection (consolidation_ab): the bookkeeping a run leaves on its scope's lease
// (watermarks, last run time), without the server-clock times of holding it.
MATCH (l:ConsolidationLease {scope_key: $scope_key})
RETURN l {.*, holder: null, acquired_at: null, expires_at: null, released_at: null} AS lease
