// transaction: autocommit
// Phase 8 — working_ttl: hard-deletes working memory of the subtree whose ttl has passed,
// transient working memory without a ttl older than $transient_ttl, and expired ones.
// A deleted memory's keys ((:Key)-[:KEY_OF]->) go with it.
CYPHER replan=skip
MATCH (m:Memory:Working)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND (m.durability = 'expired'
       OR (m.ttl IS NOT NULL AND m.created_at + m.ttl <= $now)
       OR (m.ttl IS NULL AND m.durability = 'transient' AND m.created_at + $transient_ttl <= $now))
CALL (m) {
  FOREACH (k IN COLLECT { MATCH (k:Key)-[:KEY_OF]->(m) RETURN k } | DETACH DELETE k)
  DETACH DELETE m
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS deleted
