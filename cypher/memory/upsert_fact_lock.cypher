// transaction: write
// Take the write lock of ($scope_key, $key) for the rest of the transaction: MERGE on the
// uniquely constrained FactLock node (two writers cannot both create it), then a write to it
// (a second writer blocks here until the first commits). Hangs off the scope, so an erase
// removes it. $key: a fact's subject key, or '' for the scope's write-time dedup.
MATCH (s:Scope {key: $scope_key})
MERGE (l:FactLock {scope_key: $scope_key, key: $key})
  ON CREATE SET l.created_at = $now
MERGE (l)-[:IN_SCOPE]->(s)
SET l.locked_at = $now
RETURN l.key AS key
