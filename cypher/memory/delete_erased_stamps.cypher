// transaction: autocommit
// Erase, step 2a: relationships written on behalf of the erased subtree ($scope_key and below)
// between memories of its ancestors ($ancestor_keys: the keys strictly above it) — inferred,
// co-occurrence, synthetic links, moved edges — in batches of $batch. Edges that touch an
// erased memory go with it in step 3.
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
WHERE m.scope_key IN $ancestor_keys
MATCH (m)-[r]->(:Memory)
WHERE r.scope_key = $scope_key OR r.scope_key STARTS WITH $subtree_prefix
CALL (r) {
  DELETE r
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS removed
