// transaction: write
// Clear one layer of exactly this scope (optionally one session).
// A deleted memory's keys ((:Key)-[:KEY_OF]->) go with it.
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, layer)
WHERE m.scope_key = $scope_key AND m.layer = $layer
  AND ($session_id IS NULL OR m.session_id = $session_id)
FOREACH (k IN COLLECT { MATCH (k:Key)-[:KEY_OF]->(m) RETURN k } | DETACH DELETE k)
DETACH DELETE m
RETURN count(*) AS deleted
