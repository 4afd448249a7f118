// transaction: autocommit
// Phase 9.5 — prune_retracted: hard-deletes memories of the subtree retracted more than $grace
// seconds ago (the end of their restore window). Never touches an ancestor's memories.
// A deleted memory's keys ((:Key)-[:KEY_OF]->) go with it.
CYPHER replan=skip
MATCH (m:Memory)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND coalesce(m.retracted, false)
  AND coalesce(m.retracted_at, m.updated_at, m.created_at) <= $now - $grace
CALL (m) {
  FOREACH (k IN COLLECT { MATCH (k:Key)-[:KEY_OF]->(m) RETURN k } | DETACH DELETE k)
  DETACH DELETE m
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS deleted
