// transaction: read
// How many keys the memories of exactly $scope_key have (what enrichment wrote there).
// Parameters: $scope_key.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (k:Key) USING INDEX SEEK k:Key(scope_key)
WHERE k.scope_key = $scope_key AND none(gone IN erasing WHERE k.scope_key = gone OR k.scope_key STARTS WITH gone + '/')
RETURN count(k) AS n
