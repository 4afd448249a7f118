// transaction: write
// Keep the newest $keep working memories of one session ($session_id; null: the entries
// without a session) of exactly this scope (a FIFO per session); delete the rest.
// A deleted memory's keys ((:Key)-[:KEY_OF]->) go with it.
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, layer)
WHERE m.scope_key = $scope_key AND m.layer = 'working'
  AND coalesce(m.session_id, '') = coalesce($session_id, '')
WITH m ORDER BY m.created_at DESC, m.id DESC
SKIP $keep
FOREACH (k IN COLLECT { MATCH (k:Key)-[:KEY_OF]->(m) RETURN k } | DETACH DELETE k)
DETACH DELETE m
RETURN count(*) AS deleted
